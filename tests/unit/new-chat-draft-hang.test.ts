import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * A draft read the page never answers does not hold the mode's turn (review 10, router F7). A new chat's second draft read (router.ts:283, inside ModeTurn.run) is a chrome.scripting.executeScript with no
 * timeout and no signal: a tab whose renderer does not run it (a JS dialog up — alert/confirm/beforeunload —, a hung
 * renderer) keeps it pending; the caller's cancel or timeout does not end it, so the turn is never released, and every
 * later prompt and mode switch in the browser waited behind it, its deadline pushed back by a note every 20 s. Now the
 * read ends with the caller's cancel.
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false } } as Record<string, unknown>,
  tabs: { 7: { id: 7, windowId: 1, title: 'T', url: 'https://www.perplexity.ai/search/t', active: true } } as Record<number, FakeTab>,
  reads: 0,
}));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return {
    browser: {
      ...base.browser,
      scripting: {
        // The first draft read (dispatch, before the approval) answers; the second (in the turn) never does.
        executeScript: () => (++state.reads === 1 ? Promise.resolve([{ result: '' }]) : new Promise(() => {})),
      },
    },
  };
});

describe('a cancelled new-chat prompt gives the mode turn back', () => {
  it('after A is cancelled while its draft read hangs, B gets the turn and is sent', async () => {
    const sent: string[] = [];
    const pages = {
      state: (tabId: number) => ({ tabId, url: state.tabs[tabId]?.url, title: 't' }),
      document: () => ({}),
      whenReady: async () => {},
      forget: () => () => {},
      request: async (tabId: number, method: string) => {
        sent.push(`${method} -> tab ${tabId}`);
        return { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: '', questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
      },
    } as unknown as PageHub;
    const tabs = new TabService(pages);
    await tabs.drive(7);
    const router = new Router({ tabs, pages, status: async () => ({}) });
    const req = (id: string, params: Record<string, unknown>): Request => ({ kind: 'request', id, method: 'page.ask', params, origin: { clientId: id, clientName: id, tool: 'comet_ask', door: 'loopback' } });
    const aReplies: Envelope[] = [];
    void router.handle(req('a', { prompt: 'A', newChat: true }), (m) => aReplies.push(m));
    await vi.waitFor(() => expect(state.reads).toBe(2)); // A holds the turn, in its second draft read
    router.cancel('a'); // A's caller gives up (or its 180 s timeout)
    const bReplies: Envelope[] = [];
    let bDone = false;
    void router.handle(req('b', { prompt: 'B' }), (m) => bReplies.push(m)).then(() => (bDone = true));
    await vi.waitFor(() => expect(bDone).toBe(true));
    expect(bReplies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'result' });
    expect(sent).toEqual(['page.ask -> tab 7']);
  });
});
