import { describe, expect, it } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import { WatchSnapshot } from '../../lib/protocol/watch';
import { ThreadEntry } from '../../lib/protocol/panel';
import type { CallEvent } from '../../lib/worker/calls/router';
import { ThreadBook } from '../../lib/worker/panel/threads';

const HOME = 'https://www.perplexity.ai/';
const origin = { clientId: 'c1', clientName: 'claude-code', tool: 'comet_ask', summary: '', door: 'loopback' as const };

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
    book.onSnapshot(snap(`${HOME}search/why-sky-abc`, { title: 'Why is the sky blue?', question: 'Why is the sky blue?', status: 'working', latestStep: 'Searching the web' }), 3);
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
    book.onSnapshot(snap(url, { title: 'Rust?', question: 'Rust?', status: 'done' }), 3);
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

  it("a wait with no conversation yet goes to its own session's card, not to another session's of the same client name (review 15c, F4)", () => {
    const book = new ThreadBook();
    const as = (clientId: string, id: string, method: string, params: unknown): Request => ({ kind: 'request', id, method, params, origin: { ...origin, clientId } });
    const b = as('window-b', 'b1', 'page.ask', { prompt: 'B asks' });
    book.onCall(start(b, 1));
    book.onCall(end(b, 2, { baselineUrl: HOME }));
    const a = as('window-a', 'a1', 'page.ask', { prompt: 'A asks' });
    book.onCall(start(a, 3));
    book.onCall(end(a, 4, { baselineUrl: HOME }));
    // B's wait ends on a page that names no conversation: two Claude Code windows share their name.
    book.onCall(end(as('window-b', 'b2', 'page.wait', {}), 5, { status: 'error', url: HOME, steps: [], currentStep: '', error: 'B failed' }));
    const byTitle = Object.fromEntries(book.list().map((t) => [t.title, t]));
    expect(byTitle['B asks']).toMatchObject({ status: 'error', error: 'B failed' });
    expect(byTitle['A asks']).toMatchObject({ status: 'working' });
  });

  it("a Computer thread's card merged into its conversation's card keeps the thread id approvals name it by", () => {
    const book = new ThreadBook();
    const url = `${HOME}search/plan-abc`;
    const ask = request('r1', 'page.ask', { prompt: 'Plan it' });
    book.onCall(start(ask, 1));
    book.onCall(end(ask, 2, { baselineUrl: url }));
    const computer = { kind: 'request', id: 't1', method: 'threads.start', params: { message: 'Plan it' }, origin: { ...origin, tool: 'call_perplexity_computer' } } as Request;
    book.onCall(start(computer, 3));
    book.onCall(end(computer, 4, { threadId: 'plan-abc', url, turn: 0 }));
    expect(book.list()).toHaveLength(1);
    expect(book.byThread('plan-abc')).toBeDefined();
  });

  it("an agent's comet_poll places its card as a wait does; a conversation the person opened is not taken for the agent's (review 15f, F5)", () => {
    const A = `${HOME}search/summarise-my-week-Aa1`;
    const B = `${HOME}search/my-private-notes-Bb2`;
    const asked = () => {
      const book = new ThreadBook();
      const ask = request('r1', 'page.ask', { prompt: 'Summarise my week', newChat: true });
      book.onCall(start(ask, 1));
      book.onCall(end(ask, 2, { baselineUrl: HOME }));
      return book;
    };
    const polled = asked();
    polled.onCall(end(request('p1', 'page.poll', {}), 4, { status: 'completed', url: A, questionText: 'Summarise my week', response: 'Your week…', steps: [] }));
    expect(polled.list()[0]).toMatchObject({ key: A, status: 'done' });
    // The person opens their own conversation in that tab, then the panel: no question of the agent's shows there.
    const opened = asked();
    opened.onSnapshot(snap(B, { title: 'My private notes', question: 'What did I write about Tuesday?', status: 'done' }), 10);
    expect(opened.list().find((t) => t.key === B)).toMatchObject({ title: 'My private notes' });
    expect(opened.list().find((t) => t.key === B)?.startedBy).toBeUndefined();
    expect(opened.list().find((t) => t.key === 'ask:r1')).toBeDefined();
  });

  it("page.ask's own conversation binds its card at once", () => {
    const book = new ThreadBook();
    const ask = request('r1', 'page.ask', { prompt: 'Why?', newChat: true });
    book.onCall(start(ask, 1));
    book.onCall(end(ask, 2, { baselineUrl: HOME, conversationUrl: `${HOME}search/why-Cc3` }));
    expect(book.list()[0]).toMatchObject({ key: `${HOME}search/why-Cc3`, title: 'Why?' });
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

  it('a page showing a confirm_action longer than the panel shows: the snapshot is taken, the panel cuts the words, the reply keeps its id (fixes review 2 #6)', () => {
    const book = new ThreadBook();
    const interaction = { type: 'confirm_action' as const, id: 'f1', text: `Send this email? ${'Dear all, '.repeat(3000)}` };
    const snapshot = WatchSnapshot.parse(snap(`${HOME}computer/tasks/t1`, { title: 'Email task', status: 'working', interactions: [interaction] }));
    book.onSnapshot(snapshot, 2);
    const [entry] = book.list();
    expect(ThreadEntry.safeParse(entry).success).toBe(true);
    expect(entry?.interactions[0]?.text).toHaveLength(10_000);
    expect(book.interactionsOf('https://www.perplexity.ai/computer/tasks/t1')[0]?.id).toBe('f1');
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

describe('ThreadBook, Computer threads', () => {
  const agentOrigin = { clientId: 'c2', clientName: 'codex', tool: 'call_perplexity_computer', summary: '', door: 'loopback' as const };
  const req = (id: string, method: string, params: unknown): Request => ({ kind: 'request', id, method, params, origin: agentOrigin });
  const url = `${HOME}computer/tasks/t-1`;
  const checkpoint = (over: Record<string, unknown>) => ({
    threadId: 't-1',
    url,
    title: 'Write the report',
    turn: 0,
    event: null,
    text: '',
    steps: ['Opening a browser'],
    sources: [],
    files: [],
    interactions: [],
    optionalAuth: [],
    source: 'json',
    ...over,
  });

  it('lists a task as it starts, then follows its steps, checkpoints and answers', () => {
    const book = new ThreadBook();
    const start = req('s1', 'threads.start', { message: 'Write the report' });
    book.onCall({ phase: 'start', request: start, at: 1 });
    expect(book.list()[0]).toMatchObject({ key: 'start:s1', status: 'working', latestStep: 'Starting a Computer task…', startedBy: 'codex' });
    book.onCall({ phase: 'end', request: start, at: 2, ok: true, result: { threadId: 't-1', url, turn: 0 } });
    expect(book.list()[0]).toMatchObject({ key: url, url, threadId: 't-1' });
    expect(book.onThreadStep('t-1', 'Opening a browser', 3)).toBe(true);
    const wait = req('w1', 'threads.wait', { threadId: 't-1', turn: 0 });
    book.onCall({ phase: 'start', request: wait, at: 4 });
    book.onCall({
      phase: 'end',
      request: wait,
      at: 5,
      ok: true,
      result: checkpoint({
        event: 'ask_user_question',
        interactions: [{ type: 'ask_user_question', followupUuid: 'f1', text: 'Which format?', questions: [{ id: 'q1', text: 'Which format?', options: ['PDF', 'DOCX'] }], requiresUserResponse: true }],
      }),
    });
    expect(book.list()[0]).toMatchObject({ status: 'waiting', event: 'ask_user_question', latestStep: 'Asks you a question' });
    expect(book.interactionsOf(url)).toEqual([{ type: 'ask_user_question', id: 'f1', text: 'Which format?', options: ['PDF', 'DOCX'] }]);
    expect(book.threadIdOf(url)).toBe('t-1');
    const respond = req('r1', 'threads.respond', { threadId: 't-1', reply: { kind: 'answers', answers: { x: 'PDF' } } });
    book.onCall({ phase: 'start', request: respond, at: 6 });
    book.onCall({ phase: 'end', request: respond, at: 7, ok: true, result: { threadId: 't-1', url, turn: 0 } });
    expect(book.list()[0]).toMatchObject({ status: 'working', latestStep: 'Answer sent', interactions: [] });
    book.onCheckpoint(checkpoint({ event: 'complete', text: 'Done' }) as never, 8);
    expect(book.list()[0]).toMatchObject({ status: 'done', event: 'complete', latestStep: 'Done' });
  });

  it("an interaction as long as a thread holds it keeps the panel's state readable: its words cut, its ids and choices whole (fixes review 1)", () => {
    const book = new ThreadBook();
    const start = req('s9', 'threads.start', { message: 'Send the newsletter' });
    book.onCall({ phase: 'start', request: start, at: 1 });
    book.onCall({ phase: 'end', request: start, at: 2, ok: true, result: { threadId: 't-1', url, turn: 0 } });
    const email = 'Dear all, '.repeat(5000); // a confirm_action quoting the whole email: 50,000 characters
    const id = `Which list should get it? ${'x'.repeat(300)}`; // a question whose id is its text
    const options = Array.from({ length: 60 }, (_, n) => `List ${n}`);
    book.onCheckpoint(
      checkpoint({
        event: 'confirm_action',
        interactions: [
          { type: 'confirm_action', followupUuid: 'f1', text: email, requiresUserResponse: true },
          { type: 'ask_user_question', followupUuid: 'f2', text: 'Two questions', questions: [{ id, text: id, options }, { id: 'q2', text: 'When?', options: ['Now', 'Later'] }], requiresUserResponse: true },
        ],
      }) as never,
      3,
    );
    const [entry] = book.list();
    expect(ThreadEntry.safeParse(entry).success).toBe(true);
    expect(entry?.interactions[0]?.text).toHaveLength(10_000);
    expect(entry?.interactions[0]?.text.endsWith('…')).toBe(true);
    expect(entry?.interactions[1]?.questions?.[0]).toEqual({ id, text: id, options });
  });

  it('a start the page refused stays listed as an error; a failed one goes', () => {
    const book = new ThreadBook();
    const refused = req('s2', 'threads.start', { message: 'Research' });
    book.onCall({ phase: 'start', request: refused, at: 1 });
    book.onCall({ phase: 'end', request: refused, at: 2, ok: true, result: { notSent: true, event: 'insufficient_credits', text: 'Insufficient credits', account: { reason: 'insufficient_credits' } } });
    expect(book.list()[0]).toMatchObject({ status: 'error', error: 'Insufficient credits' });
    const failed = req('s3', 'threads.start', { message: 'Other' });
    book.onCall({ phase: 'start', request: failed, at: 3 });
    book.onCall({ phase: 'end', request: failed, at: 4, ok: false, error: '[AGENT_ERROR] x' });
    expect(book.list().map((t) => t.key)).toEqual(['start:s2']);
  });
});

describe('the thread list stays bounded', () => {
  const origin = { clientId: 'c1', clientName: 'codex', tool: 'read_thread', summary: '', door: 'loopback' as const };
  it('calls on threads that do not exist add nothing; calls that succeed add their thread, within the cap', () => {
    const book = new ThreadBook();
    for (let i = 0; i < 500; i++) {
      const request = { kind: 'request' as const, id: `r${i}`, method: 'threads.read', params: { threadId: `no-such-thread-${i}` }, origin };
      book.onCall({ phase: 'start', request, at: i });
      book.onCall({ phase: 'end', request, at: i, ok: false, error: `[THREAD_NOT_FOUND] no-such-thread-${i}` });
    }
    expect(book.list().filter((t) => t.threadId?.startsWith('no-such-thread'))).toEqual([]);
    for (let i = 0; i < 80; i++) {
      const request = { kind: 'request' as const, id: `s${i}`, method: 'threads.read', params: { threadId: `t-${i}` }, origin };
      book.onCall({ phase: 'start', request, at: 1000 + i });
      book.onCall({ phase: 'end', request, at: 1000 + i, ok: true, result: {} });
    }
    const listed = book.list().filter((t) => t.threadId?.startsWith('t-'));
    expect(listed.length).toBeLessThanOrEqual(50);
    expect(listed[0]?.threadId).toBe('t-79');
  });
});

describe('the side panel follows a Computer task re-summarized under another slug (review 14d, 1)', () => {
  const HOME = 'https://www.perplexity.ai/';
  const ID = 'AbCdEfGhIjKlMnOpQrStUv';
  const BEFORE = `plan-my-week-${ID}`;
  const AFTER = `weekly-plan-for-the-team-${ID}`;
  const origin = { clientId: 'c2', clientName: 'codex', tool: 'call_perplexity_computer', summary: '', door: 'loopback' as const };
  const req = (id: string, method: string, params: unknown): Request => ({ kind: 'request', id, method, params, origin });
  const checkpoint = (threadId: string) => ({
    threadId,
    url: `${HOME}computer/tasks/${threadId}`,
    title: 'Plan my week',
    turn: 0,
    event: 'complete',
    text: 'Done',
    steps: [],
    sources: [],
    files: [],
    interactions: [],
    optionalAuth: [],
    source: 'page',
  });

  it("a held wait that ends under the new slug marks the task's card done, and later calls keep one card", () => {
    const book = new ThreadBook();
    const start = req('s1', 'threads.start', { message: 'Plan my week' });
    book.onCall({ phase: 'start', request: start, at: 1 });
    book.onCall({ phase: 'end', request: start, at: 2, ok: true, result: { threadId: BEFORE, url: `${HOME}computer/tasks/${BEFORE}`, turn: 0 } });
    // The wait asked with the id handed out; the task finished and was re-summarized: the checkpoint names the new slug.
    const wait = req('w1', 'threads.wait', { threadId: BEFORE, turn: 0 });
    book.onCall({ phase: 'start', request: wait, at: 3 });
    book.onCall({ phase: 'end', request: wait, at: 4, ok: true, result: checkpoint(AFTER) });
    expect(book.list()).toHaveLength(1);
    expect(book.list()[0]).toMatchObject({ status: 'done', event: 'complete' });
    // The agent goes on with the id the checkpoint gave it.
    const read = req('r1', 'threads.state', { threadId: AFTER });
    book.onCall({ phase: 'start', request: read, at: 5 });
    book.onCall({ phase: 'end', request: read, at: 6, ok: true, result: checkpoint(AFTER) });
    expect(book.list()).toHaveLength(1);
  });

  it('the driven tab showing the task under its new slug updates its one card (review 14e, 2)', () => {
    const book = new ThreadBook();
    const start = req('s1', 'threads.start', { message: 'Plan my week' });
    book.onCall({ phase: 'start', request: start, at: 1 });
    book.onCall({ phase: 'end', request: start, at: 2, ok: true, result: { threadId: BEFORE, url: `${HOME}computer/tasks/${BEFORE}`, turn: 0 } });
    // The person asks a follow-up in the tab, which shows the task under its new slug.
    const shown = { url: `${HOME}computer/tasks/${AFTER}`, title: 'Weekly plan for the team', mode: null, status: 'working', latestStep: 'Reading your calendar', question: '', interactions: [], conversations: [] };
    book.onSnapshot(WatchSnapshot.parse(shown), 5);
    expect(book.list()).toEqual([expect.objectContaining({ threadId: AFTER, status: 'working', current: true, title: 'Weekly plan for the team' })]);
  });
});

