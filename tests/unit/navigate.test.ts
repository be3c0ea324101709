import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';

/**
 * tabs.navigate (comet_open_conversation, comet_ask's new chat): a caller gone before the tab moves moves nobody's
 * tab (review of 2026-12-02, #21), and a navigation that never replaced the page leaves that page known, not a tab
 * whose every call fails until it reloads (#14).
 */
const tab = { id: 3, windowId: 1, url: 'https://www.perplexity.ai/search/old-1', active: true };
const updates: string[] = [];

vi.mock('wxt/browser', () => ({
  browser: {
    storage: { session: { set: async () => {}, get: async () => ({}) } },
    tabs: {
      get: async () => ({ ...tab }),
      query: async () => [{ ...tab }],
      // The page asks to stay (or the address answers with no page): the tab keeps its document and its URL.
      update: async (_id: number, { url }: { url: string }) => void updates.push(url),
    },
  },
}));

function world() {
  updates.length = 0;
  const hub = new PageHub(() => {});
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 3 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: tab.url, title: 'Old' } });
  const tabs = new TabService(hub);
  return { hub, tabs };
}

describe('tabs.navigate', () => {
  it('a call cancelled while the tab was being found does not navigate it', async () => {
    const { tabs } = world();
    await tabs.drive(3);
    const controller = new AbortController();
    controller.abort();
    await expect(tabs.navigate('https://www.perplexity.ai/search/new-2', 1000, controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(updates).toEqual([]);
  });

  it('a navigation that did not replace the page: says so, and the page is known again', async () => {
    const { hub, tabs } = world();
    await tabs.drive(3);
    await expect(tabs.navigate('https://www.perplexity.ai/search/new-2', 50)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringContaining('The tab did not leave https://www.perplexity.ai/search/old-1'),
    });
    expect(updates).toEqual(['https://www.perplexity.ai/search/new-2']);
    // Before: the worker had forgotten the still-connected page, and every later call failed.
    expect(hub.state(3)?.url).toBe(tab.url);
  });
});
