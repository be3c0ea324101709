import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import type { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * Where an approved prompt may go (review 10, router F1 to F4; an approved new chat is not refused while its tab loads,
 * round 2): a real Router and PanelService, a fake PageHub whose
 * document token changes only when a test loads a new page, as the real one (a new port per document).
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/approved-thread-X';
const Y = 'https://www.perplexity.ai/search/other-thread-Y';
const PRIVATE = 'https://www.perplexity.ai/search/persons-private-thread-P';

type Tab = FakeTab & { pendingUrl?: string };
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab & { pendingUrl?: string }>,
}));
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

const askReq = (id: string, params: Record<string, unknown>): Request => ({
  kind: 'request',
  id,
  method: 'page.ask',
  params,
  origin: { clientId: id, clientName: `Agent ${id}`, tool: 'comet_ask', door: 'loopback' },
});

async function start(router: Router, request: Request) {
  const replies: Envelope[] = [];
  const done = router.handle(request, (m) => replies.push(m));
  return { done, reply: async () => {
      await done;
      return replies.find((r) => r.kind !== 'progress');
    }, };
}

async function approvalOn(url: string) {
  state.stored = { settings: { requireApproval: true } };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url, active: true } };
  const w = world();
  const tabs = new TabService(w.pages);
  await tabs.drive(7);
  const { router, panels } = panelRouter(w.pages, tabs);
  return { w, tabs, router, panels };
}

describe('an approved prompt goes only where the card was drawn', () => {
  it('a card on the home page does not follow the person into a thread they opened in the sidebar (same document, no prompt sent: review 10, router F1)', async () => {
    const { w, router, panels } = await approvalOn(HOME);
    const call = await start(router, askReq('a', { prompt: 'Summarise my notes' }));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    // A single-page-app navigation: the page script stays, and nobody's prompt named this thread.
    (state.tabs[7] as Tab).url = PRIVATE;
    panels.approvals.decide(panels.approvals.pending()[0]!.id, true);
    expect(await call.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining(`that tab now shows ${PRIVATE}`) } });
    expect(w.sent).toEqual([]);
  });

  it('with no Perplexity tab open, no card is drawn: the prompt is refused as it would be unheld, never approved into a page opened meanwhile (review 10, router F2)', async () => {
    state.stored = { settings: { requireApproval: true } };
    state.tabs = {};
    const w = world();
    const tabs = new TabService(w.pages);
    const { router, panels } = panelRouter(w.pages, tabs);
    const call = await start(router, askReq('a', { prompt: 'Draft my resignation letter' }));
    expect(await call.reply()).toMatchObject({ kind: 'error', error: { code: 'NO_PERPLEXITY_TAB', message: expect.stringContaining('Call comet_connect') } });
    expect(panels.approvals.pending()).toEqual([]);
    expect(w.sent).toEqual([]);
  });

  it('a tab still loading is not where it is going: a card on X, the tab showing Y while X loads, is refused (review 10, router F3)', async () => {
    const { w, router, panels } = await approvalOn(X);
    const call = await start(router, askReq('a', { prompt: 'Follow-up for X' }));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    const tab = state.tabs[7] as Tab;
    tab.url = Y;
    w.document = {};
    tab.pendingUrl = X;
    panels.approvals.decide(panels.approvals.pending()[0]!.id, true);
    expect(await call.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(w.sent).toEqual([]);
  });
});

describe("the person's policy has the last word before a prompt is posted (review 10, router F4)", () => {
  for (const turnedOn of ['readOnly', 'requireApproval'] as const) {
    it(`${turnedOn} turned on while the new chat loads: nothing is typed, and the refusal says the new chat was opened`, async () => {
      state.stored = { settings: { requireApproval: false, readOnly: false } };
      state.tabs = { 7: { id: 7, windowId: 1, title: 'T', url: X, active: true } };
      const w = world();
      const tabs = new TabService(w.pages);
      await tabs.drive(7);
      const { router, panels } = panelRouter(w.pages, tabs);
      vi.spyOn(tabs, 'navigate').mockImplementation(async (url: string) => {
        await panels.settings.update({ [turnedOn]: true }); // the person's click while the home page loads
        (state.tabs[7] as Tab).url = url;
        w.document = {};
        return url;
      });
      const call = await start(router, askReq('a', { prompt: 'P', newChat: true }));
      expect(await call.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('(a new chat had been opened in its tab.)') } });
      expect(w.sent).toEqual([]);
    });
  }

  it('an approved prompt is not asked again when Require approval is still on', async () => {
    const { w, router, panels } = await approvalOn(X);
    const call = await start(router, askReq('a', { prompt: 'Follow-up for X' }));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide(panels.approvals.pending()[0]!.id, true);
    expect(await call.reply()).toMatchObject({ kind: 'result' });
    expect(w.sent).toEqual([`page.ask -> tab 7 (${X})`]);
  });
});

/** An approved call whose tab is (re)loading the page its card showed at the click: the person's reload, the site's own redirect. */
async function approvedWhileLoading(url: string, request: Request) {
  const { w, tabs, router, panels } = await approvalOn(url);
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
    const { w, reply } = await approvedWhileLoading(X, { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'P', newChat: true }, origin: { clientId: 'a', clientName: 'A', tool: 'comet_ask', door: 'loopback' } });
    // 2d2f883: PERMISSION_DENIED "... but that tab is loading https://www.perplexity.ai/search/approved-thread-X, so nothing was sent".
    expect(reply).toMatchObject({ kind: 'result' });
    expect(w.sent).toEqual([`navigate ${HOME}`, `page.ask -> tab 7 (${HOME})`]);
  });

  it('L2 page.ask newChat, card on the home page, tab reloading home at the click', async () => {
    const { reply } = await approvedWhileLoading(HOME, { kind: 'request', id: 'a', method: 'page.ask', params: { prompt: 'P', newChat: true }, origin: { clientId: 'a', clientName: 'A', tool: 'comet_ask', door: 'loopback' } });
    expect(reply).toMatchObject({ kind: 'result' });
  });
});
