import { describe, expect, it, vi } from 'vitest';
import type { FakeTab } from '../support/fake-wxt-browser';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { panelRouter } from '../support/panel-router';

/**
 * tabs.switch to a tab that is not Perplexity answers with that tab's title and URL, which tabs.list withholds
 * without the person's "other tabs" grant: it needs that grant too (review 2026-12-05, worker #6), whoever calls
 * on the host socket. The real PanelService, Router and TabService; the browser is played here.
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  granted: { value: false },
  tabs: {
    7: { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true },
    3: { id: 3, windowId: 1, title: 'Statement March — MyBank', url: 'https://bank.example/accounts/123456/statements?month=3', active: false },
  } as Record<number, FakeTab>,
}));
const { granted } = state;
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

describe('switching to a tab that is not Perplexity', () => {
  async function world() {
    const pages = { state: () => undefined, whenReady: async () => {}, request: async () => ({}) } as unknown as PageHub;
    const tabService = new TabService(pages);
    await tabService.drive(7);
    const { router } = panelRouter(pages, tabService);
    const origin = { clientId: 'a', clientName: 'Agent', tool: 'x', door: 'loopback' as const };
    const replies: Envelope[] = [];
    await router.handle({ kind: 'request', id: 's1', method: 'tabs.switch', params: { tabId: '3' }, origin } as Request, (m) => replies.push(m));
    return { router, origin, reply: replies.at(-1) as { kind: string; error?: { code: string; message: string }; result?: { tab: { url: string } } }, driven: (await tabService.drivenTab())?.id };
  }

  it('without the grant: refused, naming the grant, and nothing of the tab is handed out or driven', async () => {
    granted.value = false;
    const { reply, driven } = await world();
    expect(reply.kind).toBe('error');
    expect(reply.error?.code).toBe('PERMISSION_DENIED');
    expect(reply.error?.message).toMatch(/^Reading tabs other than Perplexity is off/);
    expect(JSON.stringify(reply)).not.toContain('123456');
    expect(driven).toBe(7);
  });

  it('with the grant: switched, as before', async () => {
    granted.value = true;
    const { reply, driven } = await world();
    expect(reply.kind).toBe('result');
    expect(reply.result?.tab.url).toContain('bank.example');
    expect(driven).toBe(3);
  });

  it('with the grant, then a prompt under Require approval: refused before any card, naming the driven tab, not its URL (review 15b, F2)', async () => {
    granted.value = true;
    const { router, origin } = await world();
    const replies: Envelope[] = [];
    await router.handle({ kind: 'request', id: 's2', method: 'page.ask', params: { prompt: 'Hi' }, origin } as Request, (m) => replies.push(m));
    const reply = replies.at(-1) as { kind: string; error?: { code: string; message: string } };
    expect(reply.error?.code).toBe('NO_PERPLEXITY_TAB');
    expect(reply.error?.message).toMatch(/^Page tools are set to tab 3, which is not a Perplexity page\. Call comet_switch_tab with a tab comet_list_tabs lists under Main/);
    expect(JSON.stringify(reply)).not.toContain('123456');
  });
});
