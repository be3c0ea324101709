import { describe, expect, it } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import type { WatchSnapshot } from '../../lib/protocol/watch';
import type { CallEvent } from '../../lib/worker/router';
import { ThreadBook } from '../../lib/worker/threads';

const HOME = 'https://www.perplexity.ai/';
const origin = { clientId: 'c1', clientName: 'claude-code', tool: 'comet_ask', summary: '' };

function request(id: string, method: string, params: unknown): Request {
  return { kind: 'request', id, method, params, origin };
}
const start = (r: Request, at: number): CallEvent => ({ phase: 'start', request: r, at });
const end = (r: Request, at: number, result?: unknown, error?: string): CallEvent =>
  error ? { phase: 'end', request: r, at, ok: false, error } : { phase: 'end', request: r, at, ok: true, result };

function snap(url: string, patch: Partial<WatchSnapshot> = {}): WatchSnapshot {
  return { url, title: '', mode: null, status: 'idle', latestStep: '', question: '', interactions: [], conversations: [], ...patch };
}

describe('ThreadBook', () => {
  it('an agent ask is listed at once, then bound to the conversation the page opens', () => {
    const book = new ThreadBook();
    const ask = request('r1', 'page.ask', { prompt: 'Why is the sky blue?', newChat: false });
    book.onCall(start(ask, 1));
    expect(book.list()).toMatchObject([{ key: 'ask:r1', title: 'Why is the sky blue?', status: 'working', startedBy: 'claude-code', current: false }]);
    book.onCall(end(ask, 2, { baselineUrl: HOME, afterTurn: 0, submittedAt: 2 }));
    book.onSnapshot(snap(`${HOME}search/why-sky-abc`, { title: 'Why is the sky blue?', status: 'working', latestStep: 'Searching the web' }), 3);
    expect(book.list()).toMatchObject([
      { key: 'https://www.perplexity.ai/search/why-sky-abc', url: `${HOME}search/why-sky-abc`, status: 'working', latestStep: 'Searching the web', current: true },
    ]);
    book.onSnapshot(snap(`${HOME}search/why-sky-abc`, { title: 'Why is the sky blue?', status: 'done' }), 4);
    expect(book.list()[0]).toMatchObject({ status: 'done', latestStep: 'Searching the web' });
  });

  it('a follow-up in an open conversation joins that thread instead of adding one', () => {
    const book = new ThreadBook();
    const url = `${HOME}search/rust-1`;
    const first = request('r1', 'page.ask', { prompt: 'Rust?' });
    book.onCall(start(first, 1));
    book.onCall(end(first, 2, { baselineUrl: HOME }));
    book.onSnapshot(snap(url, { title: 'Rust?', status: 'done' }), 3);
    const second = request('r2', 'page.ask', { prompt: 'And Go?' });
    book.onCall(start(second, 4));
    book.onCall(end(second, 5, { baselineUrl: url }));
    const list = book.list();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ key: url, title: 'Rust?', status: 'working', updatedAt: 5 });
  });

  it('page.wait results set the status and latest step; a stopped turn is done', () => {
    const book = new ThreadBook();
    const url = `${HOME}search/q`;
    const ask = request('r1', 'page.ask', { prompt: 'q' });
    book.onCall(start(ask, 1));
    book.onCall(end(ask, 2, { baselineUrl: HOME }));
    const wait = request('r2', 'page.wait', {});
    book.onCall(start(wait, 3));
    book.onCall(end(wait, 4, { status: 'timeout', url, steps: ['Reading sources'], currentStep: 'Reading sources' }));
    expect(book.list()[0]).toMatchObject({ key: url, status: 'working', latestStep: 'Reading sources' });
    const again = request('r3', 'page.wait', {});
    book.onCall(end(again, 5, { status: 'error', url, steps: [], currentStep: '', error: 'Something went wrong.' }));
    expect(book.list()[0]).toMatchObject({ status: 'error', error: 'Something went wrong.' });
    book.onCall(end(request('r4', 'page.wait', {}), 6, { status: 'stopped', url, steps: ['a'], currentStep: 'a' }));
    expect(book.list()[0]).toMatchObject({ status: 'done', latestStep: 'Stopped' });
  });

  it('an ask that was never sent (refused, denied) leaves no thread behind', () => {
    const book = new ThreadBook();
    const ask = request('r1', 'page.ask', { prompt: 'q' });
    book.onCall(start(ask, 1));
    book.onCall(end(ask, 2, undefined, '[PERMISSION_DENIED] comet-relay is read-only'));
    expect(book.list()).toEqual([]);
  });

  it('lists the open conversation and the page links after agent threads, each once, newest first', () => {
    const book = new ThreadBook();
    const ask = request('r1', 'page.ask', { prompt: 'agent thread' });
    book.onCall(start(ask, 10));
    book.onSnapshot(
      snap(`${HOME}search/open-one`, {
        title: 'Opened by the person',
        status: 'working',
        latestStep: 'Thinking',
        conversations: [
          { title: 'Opened by the person', url: `${HOME}search/open-one` },
          { title: 'Older', url: `${HOME}search/older#x` },
          { title: 'Library', url: `${HOME}library` },
        ],
      }),
      20,
    );
    const list = book.list();
    expect(list.map((t) => [t.title, t.status, t.current])).toEqual([
      ['Opened by the person', 'working', true],
      ['agent thread', 'working', false],
      ['Older', 'unknown', false],
    ]);
  });

  it('shows what the open thread waits on, and calls without a tool are not agent threads', () => {
    const book = new ThreadBook();
    book.onCall(start({ kind: 'request', id: 'x', method: 'page.ask', params: { prompt: 'internal' } }, 1));
    const interaction = { type: 'confirm_action' as const, id: 'f1', text: 'Send the email?' };
    book.onSnapshot(snap(`${HOME}computer/tasks/t1`, { title: 'Email task', status: 'working', interactions: [interaction] }), 2);
    expect(book.list()).toMatchObject([{ title: 'Email task', status: 'waiting', interactions: [interaction] }]);
    expect(book.interactionsOf('https://www.perplexity.ai/computer/tasks/t1')).toEqual([interaction]);
  });

  it('survives a worker restart through saved()/load()', () => {
    const book = new ThreadBook();
    const ask = request('r1', 'page.ask', { prompt: 'kept' });
    book.onCall(start(ask, 1));
    const copy = new ThreadBook();
    copy.load(JSON.parse(JSON.stringify(book.saved())));
    copy.load([{ nonsense: true }]);
    expect(copy.list()).toMatchObject([{ title: 'kept', startedBy: 'claude-code' }]);
  });
});
