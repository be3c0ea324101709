import { describe, expect, it } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import { ThreadBook } from '../../lib/worker/panel/threads';

/**
 * A page.ask that failed after the page took its prompt (TIMEOUT with `data.taken`: the composer emptied, no turn
 * shown yet) keeps its card, which the agent's comet_wait then moves; a wait that names a conversation never moves a
 * card of another one, an older ask of the same session (review 15f, F9).
 */
const HOME = 'https://www.perplexity.ai/';
const origin = { clientId: 'k1.c1', clientName: 'claude-code', tool: 'comet_ask', summary: '', door: 'loopback' as const };
const call = (id: string, method: string, params: unknown, tool = 'comet_ask'): Request => ({ kind: 'request', id, method, params, origin: { ...origin, tool } });

describe('an ask whose failure says the prompt went', () => {
  it('TIMEOUT after the page took the prompt: the card stays (sent, its turn not shown yet)', () => {
    const book = new ThreadBook();
    const ask = call('r1', 'page.ask', { prompt: 'Plan the offsite', newChat: true });
    book.onCall({ phase: 'start', request: ask, at: 1 });
    book.onCall({
      phase: 'end',
      request: ask,
      at: 2,
      ok: false,
      error: '[TIMEOUT] the page took the prompt (its composer emptied) but shows no turn for it yet; do not send it again: call comet_wait',
      data: { taken: { turnIndex: 0, conversationUrl: `${HOME}search/new`, questionKey: 'plan the offsite', askedAt: 1 } },
    });
    expect(book.list()[0]).toMatchObject({ title: 'Plan the offsite', status: 'working', latestStep: 'Prompt sent; its turn does not show yet' });
    const wait = call('w1', 'page.wait', {}, 'comet_wait');
    book.onCall({ phase: 'end', request: wait, at: 5, ok: true, result: { status: 'completed', url: `${HOME}search/plan-the-offsite-Pp9`, steps: [] } });
    expect(book.list()[0]).toMatchObject({ title: 'Plan the offsite', url: `${HOME}search/plan-the-offsite-Pp9`, status: 'done', latestStep: 'Answered' });
  });

  it('a failure with no sign the page took it still drops the card (never sent)', () => {
    const book = new ThreadBook();
    const ask = call('r1', 'page.ask', { prompt: 'Plan the offsite', newChat: true });
    book.onCall({ phase: 'start', request: ask, at: 1 });
    book.onCall({ phase: 'end', request: ask, at: 2, ok: false, error: '[PERMISSION_DENIED] The person at the browser denied the request', data: undefined });
    expect(book.list()).toEqual([]);
  });

  it('the wait that follows updates that card, not an older one of the same session', () => {
    const book = new ThreadBook();
    // An older ask of this session, in a conversation the agent never waited on: still "working".
    const old = call('r0', 'page.ask', { prompt: 'Old question', newChat: false });
    book.onCall({ phase: 'start', request: old, at: 1 });
    book.onCall({ phase: 'end', request: old, at: 2, ok: true, result: { baselineUrl: `${HOME}search/old-1` } });
    const ask = call('r1', 'page.ask', { prompt: 'Plan the offsite', newChat: true });
    book.onCall({ phase: 'start', request: ask, at: 3 });
    book.onCall({ phase: 'end', request: ask, at: 4, ok: false, error: '[CANCELLED] The ask was cancelled after its prompt was submitted: the page may have taken it; check with comet_poll (read_thread for a Computer thread) before sending it again.' });
    const wait = call('w1', 'page.wait', {}, 'comet_wait');
    book.onCall({ phase: 'end', request: wait, at: 5, ok: true, result: { status: 'completed', url: `${HOME}search/plan-the-offsite-Pp9`, steps: ['Planning'], currentStep: 'Planning' } });
    const oldCard = book.list().find((t) => t.title === 'Old question');
    expect(oldCard).toMatchObject({ status: 'working', latestStep: 'Prompt sent' });
  });
});
