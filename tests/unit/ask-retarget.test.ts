import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

/**
 * One agent's prompt, whose session chose a mode, and another agent's comet_switch_tab landing while that mode is set
 * again on the page (a read, then a switch: round trips to the page). The prompt goes where its mode was set and its
 * approval pointed, or nowhere (review 8, many clients M1: it was typed into the tab switched to).
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {
    7: { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true },
    9: { id: 9, windowId: 1, title: 'A private question — Perplexity', url: 'https://www.perplexity.ai/search/private-xyz', active: false },
  } as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

/** Pages that hold the first mode read until the test lets it go. */
function pagesWithSlowModeRead() {
  const sent: string[] = [];
  let reading!: () => void;
  const readStarted = new Promise<void>((resolve) => (reading = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const tabs = state.tabs;
  const pages = {
    state: (tabId: number) => (tabs[tabId] ? { tabId, url: tabs[tabId]?.url, title: tabs[tabId]?.title } : undefined),
    whenReady: async () => {},
    forget: () => () => {},
    request: async (tabId: number, method: string, params: Record<string, unknown>) => {
      sent.push(`${method}${params.mode ? `(${params.mode})` : ''} -> tab ${tabId}`);
      if (method === 'page.mode' && params.mode === undefined) {
        reading();
        await released;
        return { mode: 'standard', acts: false };
      }
      if (method === 'page.mode') return { mode: params.mode, changed: true, verified: true };
      return { afterTurn: 0, baselineUrl: tabs[tabId]?.url, turnIndex: 1, conversationUrl: tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
    whenReplaced: async () => {},
  } as unknown as PageHub;
  return { pages, sent, readStarted, release };
}

const ask: Request = {
  kind: 'request',
  id: 'a:1',
  method: 'page.ask',
  params: { prompt: 'Draft a reply', keepMode: 'deep-research' },
  origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' },
};
const switchAway: Request = {
  kind: 'request',
  id: 'b:1',
  method: 'tabs.switch',
  params: { tabId: '9' },
  origin: { clientId: 'b', clientName: 'Agent B', tool: 'comet_switch_tab', door: 'loopback' },
};

async function askWhileAnotherSwitches(router: Router, world: ReturnType<typeof pagesWithSlowModeRead>, approve?: () => Promise<void>) {
  const replies: Envelope[] = [];
  const asked = router.handle(ask, (m) => replies.push(m));
  await approve?.();
  await world.readStarted;
  await router.handle(switchAway, (m) => replies.push(m));
  world.release();
  await asked;
  return replies.find((r) => r.kind !== 'progress' && (r as { id?: string }).id === 'a:1') as Extract<Envelope, { kind: 'error' }> | undefined;
}

describe("a tab switched under a prompt's mode", () => {
  it('with Require approval on, the approved prompt goes nowhere else: nothing is sent, and it says why', async () => {
    const world = pagesWithSlowModeRead();
    const tabs = new TabService(world.pages);
    await tabs.drive(7);
    const { router, panels } = panelRouter(world.pages, tabs);
    const reply = await askWhileAnotherSwitches(router, world, async () => {
      await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
      panels.approvals.decide(panels.approvals.pending()[0]?.id ?? '', true);
    });
    expect(world.sent).toEqual(['page.mode -> tab 7', 'page.mode(deep-research) -> tab 7']);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/approved this for tab 7.*so nothing was sent.* \(this session's mode, deep-research, had been set on the tab\.\)$/) } });
  });

  it('without approval, the mode set on one tab sends no prompt to another', async () => {
    state.stored = { settings: { requireApproval: false } };
    const world = pagesWithSlowModeRead();
    const tabs = new TabService(world.pages);
    await tabs.drive(7);
    const reply = await askWhileAnotherSwitches(new Router({ tabs, pages: world.pages, status: async () => ({}) }), world);
    expect(world.sent).toEqual(['page.mode -> tab 7', 'page.mode(deep-research) -> tab 7']);
    expect(reply).toMatchObject({
      kind: 'error',
      error: { code: 'AGENT_ERROR', message: expect.stringMatching(/^The prompt was not sent: it was to go to tab 7 .*, but while this session's mode was set again the driven tab is tab 9 .* \(this session's mode, deep-research, had been set on the tab\)\. Call comet_ask again/) },
    });
  });
});

describe('a navigation held as a prompt (`?q=`) names its tab (review 8, many clients L4)', () => {
  it('a switch to another tab before the click sends it nowhere', async () => {
    state.stored = { settings: { requireApproval: true } };
    const world = pagesWithSlowModeRead();
    const tabs = new TabService(world.pages);
    await tabs.drive(7);
    const navigate = vi.spyOn(tabs, 'navigate');
    const { router, panels } = panelRouter(world.pages, tabs);
    const replies: Envelope[] = [];
    const opened = router.handle(
      { kind: 'request', id: 'a:2', method: 'tabs.navigate', params: { url: 'https://www.perplexity.ai/search?q=private+matter' }, origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_open_conversation', door: 'loopback' } },
      (m) => replies.push(m),
    );
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    expect(panels.approvals.pending()[0]?.target).toMatch(/^tab 7: “Tides — Perplexity”/);
    await router.handle(switchAway, () => {});
    panels.approvals.decide(panels.approvals.pending()[0]?.id ?? '', true);
    await opened;
    expect(navigate).not.toHaveBeenCalled();
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/approved this for tab 7.*so nothing was sent/) } });
  });
});

describe("a tab switched under a prompt's new chat (fixes review 2 #2)", () => {
  it('with no mode chosen either, an approved new-chat prompt goes nowhere else: the new chat opens in its tab, nothing is typed in another', async () => {
    state.stored = { settings: { requireApproval: true } };
    const sent: string[] = [];
    const navigated: number[] = [];
    let loading!: () => void;
    const loadStarted = new Promise<void>((resolve) => (loading = resolve));
    let load!: () => void;
    const loaded = new Promise<void>((resolve) => (load = resolve));
    const tabsState = state.tabs;
    const pages = {
      state: (tabId: number) => (tabsState[tabId] ? { tabId, url: tabsState[tabId]?.url, title: tabsState[tabId]?.title } : undefined),
      whenReady: async (tabId: number) => {
        navigated.push(tabId);
        loading();
        await loaded;
      },
      forget: () => () => {},
      request: async (tabId: number, method: string) => {
        sent.push(`${method} -> tab ${tabId}`);
        return method === 'page.composerDraft' ? { text: '' } : { turnIndex: 0 };
      },
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
      // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
      whenReplaced: async () => {},
    } as unknown as PageHub;
    const tabs = new TabService(pages);
    await tabs.drive(7);
    const { router, panels } = panelRouter(pages, tabs);
    const replies: Envelope[] = [];
    const asked = router.handle({ ...ask, id: 'a:3', params: { prompt: 'Draft a reply', newChat: true } }, (m) => replies.push(m));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide(panels.approvals.pending()[0]?.id ?? '', true);
    await loadStarted; // tab 7 is loading the home page
    await router.handle(switchAway, () => {});
    load();
    await asked;
    expect(navigated).toEqual([7]);
    expect(sent.filter((m) => m.startsWith('page.ask'))).toEqual([]);
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
  });
});

describe("another agent's page loaded in a new chat's tab (fixes review 5 #1)", () => {
  it('the prompt does not follow it there: the new chat was home, the loaded page is another conversation', async () => {
    state.stored = { settings: { requireApproval: false } };
    state.tabs[7] = { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true };
    const sent: string[] = [];
    let document = {};
    const tabsState = state.tabs;
    const pages = {
      state: (tabId: number) => (tabsState[tabId] ? { tabId, url: tabsState[tabId]?.url, title: tabsState[tabId]?.title } : undefined),
      whenReady: async () => {},
      forget: () => () => {},
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => document,
      request: async (tabId: number, method: string, params: Record<string, unknown>) => {
        sent.push(`${method}${params.mode ? `(${params.mode})` : ''} -> tab ${tabId}`);
        if (method === 'page.mode' && params.mode === undefined) {
          // Another agent's comet_open_conversation loads its conversation in the tab while the mode is read.
          (tabsState[7] as FakeTab).url = 'https://www.perplexity.ai/search/private-xyz';
          document = {};
          return { mode: 'standard', acts: false };
        }
        if (method === 'page.mode') return { mode: params.mode, changed: true, verified: true };
        return method === 'page.composerDraft' ? { text: '' } : { turnIndex: 0 };
      },
    } as unknown as PageHub;
    const tabs = new TabService(pages);
    await tabs.drive(7);
    vi.spyOn(tabs, 'navigate').mockImplementation(async (url: string) => {
      (tabsState[7] as FakeTab).url = url;
      document = {};
      return url;
    });
    const replies: Envelope[] = [];
    await new Router({ tabs, pages, status: async () => ({}) }).handle({ ...ask, id: 'a:5', params: { prompt: 'Draft a reply', newChat: true, keepMode: 'deep-research' } }, (m) => replies.push(m));
    expect(sent.filter((m) => m.startsWith('page.ask'))).toEqual([]);
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({
      kind: 'error',
      error: { code: 'AGENT_ERROR', message: expect.stringContaining('the tab shows another conversation (https://www.perplexity.ai/search/private-xyz)') },
    });
  });
});
