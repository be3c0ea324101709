import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * Read-only turned on while a new chat reads the person's draft refuses it before the navigation, which is an act of
 * its own: the tab is left on the person's conversation (review 10, router round 3).
 */
const X = 'https://www.perplexity.ai/search/persons-thread-X';
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false, readOnly: false } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab>,
  reads: 0,
  onSecondRead: undefined as undefined | (() => Promise<void>),
}));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return {
    browser: {
      ...base.browser,
      scripting: {
        executeScript: async () => {
          if (++state.reads === 2) await state.onSecondRead?.(); // the in-turn draft read: the person clicks Read-only
          return [{ result: '' }];
        },
      },
    },
  };
});

describe('Read-only turned on before a new chat navigates', () => {
  it('refuses the new chat before the tab is moved', async () => {
    state.tabs = { 7: { id: 7, windowId: 1, title: 'T', url: X, active: true } };
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
    const { router, panels } = panelRouter(pages, tabs);
    state.onSecondRead = async () => void (await panels.settings.update({ readOnly: true }));
    const navigated: string[] = [];
    vi.spyOn(tabs, 'navigate').mockImplementation(async (url: string) => {
      navigated.push(url);
      state.tabs[7]!.url = url;
      return url;
    });
    const request: Request = { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'A', newChat: true }, origin: { clientId: 'a', clientName: 'a', tool: 'comet_ask', door: 'loopback' } };
    const replies: Envelope[] = [];
    await router.handle(request, (m) => replies.push(m));
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(sent).toEqual([]);
    // Correct: the person's conversation stays on screen. c35f84d: navigated to the home page, then refused.
    expect(navigated).toEqual([]);
  });
});
