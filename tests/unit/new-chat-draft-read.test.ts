import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * A new chat reads the person's unsent draft before it leaves the page (#21), inside the mode's turn: how that read
 * can go wrong, and what the new chat does then (review 10, router F7 and round 3). Each test says how the page answers
 * the read (`state.draftRead`, called with the read's number: the first at dispatch, the second in the turn).
 */
const X = 'https://www.perplexity.ai/search/persons-thread-X';
const state = vi.hoisted(() => ({
  stored: {} as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab>,
  reads: 0,
  draftRead: (_read: number): Promise<string> => Promise.resolve(''),
}));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return { browser: { ...base.browser, scripting: { executeScript: async () => [{ result: await state.draftRead(++state.reads) }] } } };
});

afterEach(() => vi.useRealTimers());

/** Tab 7 on `X` with a page that takes every prompt; `sent` and `navigated` say what reached it. */
async function world(settings: Record<string, unknown>) {
  state.stored = { settings };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'T', url: X, active: true } };
  state.reads = 0;
  const sent: string[] = [];
  const pages = {
    state: (tabId: number) => ({ tabId, url: state.tabs[tabId]?.url, title: 't' }),
    document: () => ({}),
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    whenReady: async () => {},
    whenReplaced: async () => {},
    forget: () => () => {},
    request: async (tabId: number, method: string) => {
      sent.push(`${method} -> tab ${tabId}`);
      return { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: '', questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  const tabs = new TabService(pages);
  await tabs.drive(7);
  const navigated: string[] = [];
  vi.spyOn(tabs, 'navigate').mockImplementation(async (url: string) => {
    navigated.push(url);
    state.tabs[7]!.url = url;
    return url;
  });
  return { pages, tabs, sent, navigated };
}

const ask = (id: string, params: Record<string, unknown>): Request => ({ kind: 'request', id, method: 'page.ask', params, origin: { clientId: id, clientName: id, tool: 'comet_ask', door: 'loopback' } });
const answerOf = (replies: Envelope[]) => replies.find((r) => r.kind !== 'progress');

describe("a new chat's draft read", () => {
  it('a read the page never answers does not hold the mode turn: after A is cancelled in it, B gets the turn and is sent', async () => {
    // The first read (dispatch) answers; the second (in the turn) never does: a JS dialog up, a hung renderer.
    state.draftRead = (read) => (read === 1 ? Promise.resolve('') : new Promise(() => {}));
    const { pages, tabs, sent } = await world({ requireApproval: false });
    const router = new Router({ tabs, pages, status: async () => ({}) });
    void router.handle(ask('a', { prompt: 'A', newChat: true }), () => {});
    await vi.waitFor(() => expect(state.reads).toBe(2)); // A holds the turn, in its second draft read
    router.cancel('a'); // A's caller gives up (or its 180 s timeout)
    const bReplies: Envelope[] = [];
    let bDone = false;
    void router.handle(ask('b', { prompt: 'B' }), (m) => bReplies.push(m)).then(() => (bDone = true));
    await vi.waitFor(() => expect(bDone).toBe(true));
    expect(answerOf(bReplies)).toMatchObject({ kind: 'result' });
    expect(sent).toEqual(['page.ask -> tab 7']);
  });

  it('a page too busy to answer within 5 s refuses the new chat: it may hold a draft; the tab is not moved', async () => {
    vi.useFakeTimers();
    // The page answers every read, with the person's draft, 6 s later.
    state.draftRead = () => new Promise((resolve) => setTimeout(() => resolve('my half-written question'), 6_000));
    const { pages, tabs, sent, navigated } = await world({ requireApproval: false });
    const router = new Router({ tabs, pages, status: async () => ({}) });
    const replies: Envelope[] = [];
    const done = router.handle(ask('a', { prompt: 'A', newChat: true }), (m) => replies.push(m));
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    // Before (704e476): both reads ran out, `undefined` passed as "no draft", the tab was navigated and the prompt sent.
    expect(navigated).toEqual([]);
    expect(sent).toEqual([]);
    expect(answerOf(replies)).toMatchObject({ kind: 'error' });
  });

  it('Read-only turned on while it reads refuses the new chat before the navigation, an act of its own', async () => {
    const { pages, tabs, sent, navigated } = await world({ requireApproval: false, readOnly: false });
    const { router, panels } = panelRouter(pages, tabs);
    // The in-turn draft read: the person clicks Read-only meanwhile.
    state.draftRead = async (read) => {
      if (read === 2) await panels.settings.update({ readOnly: true });
      return '';
    };
    const replies: Envelope[] = [];
    await router.handle(ask('a', { prompt: 'A', newChat: true }), (m) => replies.push(m));
    expect(answerOf(replies)).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(sent).toEqual([]);
    // The person's conversation stays on screen. Before (c35f84d): navigated to the home page, then refused.
    expect(navigated).toEqual([]);
  });
});
