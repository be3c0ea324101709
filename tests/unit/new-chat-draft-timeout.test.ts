import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * A new chat on a page that does not say within 5 s whether it holds the person's unsent draft (a busy renderer, a
 * dialog) is refused, the tab left where it is: a new chat must never throw a draft away unseen (#21; review 10, router
 * round 3: the bounded read first counted its running out as no draft).
 */
const X = 'https://www.perplexity.ai/search/person-is-typing-here';
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return {
    browser: {
      ...base.browser,
      // The page is busy: every draft read is answered, with the person's draft, 6 s later.
      scripting: { executeScript: () => new Promise((resolve) => setTimeout(() => resolve([{ result: 'my half-written question' }]), 6_000)) },
    },
  };
});

afterEach(() => vi.useRealTimers());

describe('a draft read that runs out is not "no draft"', () => {
  it('a new chat over a page too busy to answer within 5 s is refused; the tab is not moved', async () => {
    vi.useFakeTimers();
    state.tabs = { 7: { id: 7, windowId: 1, title: 'T', url: X, active: true } };
    const sent: string[] = [];
    const pages = {
      state: (tabId: number) => ({ tabId, url: state.tabs[tabId]?.url, title: 't' }),
      document: () => ({}),
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
      return url;
    });
    const router = new Router({ tabs, pages, status: async () => ({}) });
    const request: Request = { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'A', newChat: true }, origin: { clientId: 'a', clientName: 'a', tool: 'comet_ask', door: 'loopback' } };
    const replies: Envelope[] = [];
    const done = router.handle(request, (m) => replies.push(m));
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    // Correct: the new chat is refused (the page could not say whether it holds a draft), nothing navigated or sent.
    // 704e476: both reads run out, `undefined` passes as "no draft", the tab is navigated and the prompt sent.
    expect(navigated).toEqual([]);
    expect(sent).toEqual([]);
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'error' });
  });
});
