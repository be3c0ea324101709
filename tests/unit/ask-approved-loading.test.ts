import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * An approved new chat is not refused because its tab is loading: it leaves the page anyway, and needs the tab alone
 * (review 10, router round 2; a tab still loading is refused for a prompt that stays on the page, router F3).
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/approved-thread-X';
type Tab = FakeTab & { pendingUrl?: string };
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab & { pendingUrl?: string }> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

function world() {
  const w = { sent: [] as string[], document: {} as object };
  const pages = {
    state: (tabId: number) => (state.tabs[tabId] ? { tabId, url: state.tabs[tabId]!.url, title: 't' } : undefined),
    document: (tabId: number) => (state.tabs[tabId] ? w.document : undefined),
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    whenReady: async () => {},
    forget: () => () => {},
    request: async (tabId: number, method: string) => {
      w.sent.push(`${method} -> tab ${tabId} (${state.tabs[tabId]?.url})`);
      return { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: state.tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  return Object.assign(w, { pages });
}
async function run(url: string, request: Request) {
  state.stored = { settings: { requireApproval: true } };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url, active: true } };
  const w = world();
  const tabs = new TabService(w.pages);
  await tabs.drive(7);
  const { router, panels } = panelRouter(w.pages, tabs);
  vi.spyOn(tabs, 'navigate').mockImplementation(async (to: string) => {
    const tab = state.tabs[7] as Tab;
    tab.url = to;
    delete tab.pendingUrl;
    w.document = {};
    w.sent.push(`navigate ${to}`);
    return to;
  });
  const replies: Envelope[] = [];
  const done = router.handle(request, (m) => replies.push(m));
  await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
  // At the click the tab is (re)loading the page the card showed: the person's reload, Perplexity's own redirect.
  (state.tabs[7] as Tab).pendingUrl = url;
  panels.approvals.decide(request.id, true);
  await done;
  return { w, reply: replies.find((r) => r.kind !== 'progress') };
}

describe('an approved new chat is not refused because its tab is loading', () => {
  it('L1 page.ask newChat, card on X, tab reloading X at the click: the new chat opens and the prompt goes', async () => {
    const { w, reply } = await run(X, { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'P', newChat: true }, origin: { clientId: 'a', clientName: 'A', tool: 'comet_ask', door: 'loopback' } });
    // 2d2f883: PERMISSION_DENIED "... but that tab is loading https://www.perplexity.ai/search/approved-thread-X, so nothing was sent".
    expect(reply).toMatchObject({ kind: 'result' });
    expect(w.sent).toEqual([`navigate ${HOME}`, `page.ask -> tab 7 (${HOME})`]);
  });

  it('L2 page.ask newChat, card on the home page, tab reloading home at the click', async () => {
    const { reply } = await run(HOME, { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'P', newChat: true }, origin: { clientId: 'a', clientName: 'A', tool: 'comet_ask', door: 'loopback' } });
    expect(reply).toMatchObject({ kind: 'result' });
  });
});
