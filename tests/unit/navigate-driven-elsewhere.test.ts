import { describe, expect, it, vi } from 'vitest';
import type { FakeTab } from '../support/fake-wxt-browser';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { panelRouter } from '../support/panel-router';

/**
 * Page tools set to a tab that is not Perplexity (comet_switch_tab with the grant) never take another Perplexity tab of
 * their own choosing (docs/tools.md). comet_open_conversation did: its navigation fell back to the person's last
 * Perplexity tab and loaded the address there, a prompt address (`?q=`, a send) too, approval off (review 15d, F1).
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false } } as Record<string, unknown>,
  granted: { value: true },
  updates: [] as [number, unknown][],
  tabs: {
    7: { id: 7, windowId: 1, title: 'My research — Perplexity', url: 'https://www.perplexity.ai/search/my-research-abc', active: true },
    3: { id: 3, windowId: 1, title: 'Tide — Wikipedia', url: 'https://en.wikipedia.org/wiki/Tide', active: false },
  } as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => {
  const made = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  (made.browser.tabs as Record<string, unknown>).update = async (id: number, props: { url?: string }) => {
    state.updates.push([id, props]);
    const tab = state.tabs[id] as FakeTab;
    if (props.url) tab.url = props.url;
    return { ...tab };
  };
  return made;
});

describe('comet_open_conversation after comet_switch_tab to another site', () => {
  it("does not navigate the person's Perplexity tab nobody named (refused, as the page tools are)", async () => {
    const pages = { state: () => undefined, whenReady: async () => {}, request: async () => ({}), forget: () => () => {}, document: () => undefined } as unknown as PageHub;
    const tabService = new TabService(pages);
    await tabService.drive(7);
    const { router } = panelRouter(pages, tabService);
    const origin = { clientId: 'a', clientName: 'Agent', tool: 'comet_switch_tab', door: 'loopback' as const };
    const replies: Envelope[] = [];
    await router.handle({ kind: 'request', id: 's1', method: 'tabs.switch', params: { tabId: '3' }, origin } as Request, (m) => replies.push(m));
    expect((replies.at(-1) as { kind: string }).kind).toBe('result');
    state.updates.length = 0;
    await router.handle(
      { kind: 'request', id: 'n1', method: 'tabs.navigate', params: { url: 'https://www.perplexity.ai/search/new?q=Summarize%20my%20mail' }, origin: { ...origin, tool: 'comet_open_conversation' } } as Request,
      (m) => replies.push(m),
    );
    const reply = replies.at(-1) as { kind: string; error?: { code: string; message: string } };
    expect(state.updates.filter(([, p]) => (p as { url?: string }).url)).toEqual([]);
    expect(state.tabs[7]?.url).toBe('https://www.perplexity.ai/search/my-research-abc');
    expect(reply.error?.code).toBe('NO_PERPLEXITY_TAB');
  });
});
