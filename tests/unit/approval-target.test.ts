import { describe, expect, it, vi } from 'vitest';
import type { FakeTab } from '../support/fake-wxt-browser';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { panelRouter } from '../support/panel-router';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

/**
 * A held prompt is approved for the tab its card names, in the conversation the card shows (review 2026-12-05,
 * worker #2): another session's comet_switch_tab (an act, never held) or the person going to another thread while
 * the card waits must not send it elsewhere. The real PanelService (approvals, policy), Router and TabService; the
 * browser and the pages are played here.
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {
    7: { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true },
    9: { id: 9, windowId: 1, title: 'My medical question — Perplexity', url: 'https://www.perplexity.ai/search/medical-xyz', active: false },
    11: { id: 11, windowId: 1, title: 'Perplexity', url: 'https://www.perplexity.ai/', active: false },
  } as Record<number, FakeTab>,
}));
const { tabs } = state;
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));


async function world(first: number) {
  const sentTo: { tabId: number; method: string; prompt?: unknown }[] = [];
  const pages = {
    state: (tabId: number) => (tabs[tabId] ? { tabId, url: tabs[tabId]!.url, title: tabs[tabId]!.title } : undefined),
    whenReady: async () => {},
    request: async (tabId: number, method: string, params: { prompt?: unknown }) => {
      sentTo.push({ tabId, method, prompt: params.prompt });
      return { afterTurn: 0, baselineUrl: tabs[tabId]!.url, turnIndex: 1, conversationUrl: tabs[tabId]!.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
    askCount: () => 0,
    asksSince: () => [],
    // A prompt posted on the home page before the card named this conversation late (PageHub.namedBy).
    namedBy: () => 'https://www.perplexity.ai/search/first-question-abc',
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
  } as unknown as PageHub;
  const tabService = new TabService(pages);
  await tabService.drive(first);
  const { router, panels } = panelRouter(pages, tabService);
  const replies: Envelope[] = [];
  const ask: Request = { kind: 'request', id: 'A:1', method: 'page.ask', params: { prompt: 'Draft a reply to my landlord' }, origin: { clientId: 'a', clientName: 'Session A', tool: 'comet_ask', door: 'loopback' } };
  const asked = router.handle(ask, (m) => replies.push(m));
  await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
  const card = panels.approvals.pending()[0]!;
  const approve = async () => {
    panels.approvals.decide(card.id, true);
    await asked;
    return replies.find((r) => (r as { id?: string }).id === 'A:1' && r.kind !== 'progress') as { kind: string; error?: { code: string; message: string } };
  };
  return { router, card, approve, replies, sentTo, asks: () => sentTo.filter((s) => s.method === 'page.ask') };
}

describe('an approved prompt goes where its card said, or nowhere', () => {
  it('another session switches the driven tab while the card waits: nothing is sent, and the error names both tabs', async () => {
    const w = await world(7);
    expect(w.card.target).toContain('tab 7');
    const switchB: Request = { kind: 'request', id: 'B:1', method: 'tabs.switch', params: { tabId: '9' }, origin: { clientId: 'b', clientName: 'Session B', tool: 'comet_switch_tab', door: 'loopback' } };
    await w.router.handle(switchB, (m) => w.replies.push(m));
    const reply = await w.approve();
    expect(w.asks()).toEqual([]);
    expect(reply.error?.code).toBe('PERMISSION_DENIED');
    expect(reply.error?.message).toMatch(/approved this for tab 7: “Tides — Perplexity” \(https:\/\/www\.perplexity\.ai\/search\/tides-abc\), but the driven tab is now tab 9 .*nothing was sent/);
  });

  it('the tab went to another conversation while the card waited: refused', async () => {
    const w = await world(7);
    tabs[7]!.url = 'https://www.perplexity.ai/search/other-thread-qqq';
    try {
      const reply = await w.approve();
      expect(w.asks()).toEqual([]);
      expect(reply.error?.message).toMatch(/nothing was sent/);
    } finally {
      tabs[7]!.url = 'https://www.perplexity.ai/search/tides-abc';
    }
  });

  it('the same tab and conversation: sent there; a card shown on the home page holds for the thread that page became', async () => {
    const same = await world(7);
    expect((await same.approve()).kind).toBe('result');
    expect(same.asks()).toEqual([{ tabId: 7, method: 'page.ask', prompt: 'Draft a reply to my landlord' }]);
    const home = await world(11);
    tabs[11]!.url = 'https://www.perplexity.ai/search/first-question-abc';
    try {
      expect((await home.approve()).kind).toBe('result');
      expect(home.asks().map((a) => a.tabId)).toEqual([11]);
    } finally {
      tabs[11]!.url = 'https://www.perplexity.ai/';
    }
  });
});
