import { describe, expect, it, vi } from 'vitest';

/**
 * The thread family's wiring to chrome.tabs (lib/worker/threads/thread-wiring.ts), over a fake
 * browser: a thread tab holds a call or a task the person waits on, so Memory Saver may not unload it.
 */
const made: { url: string; active: boolean }[] = [];
const updates: [number, Record<string, unknown>][] = [];
const listener = () => ({ addListener: () => {} });

vi.mock('wxt/browser', () => ({
  browser: {
    tabs: {
      query: async () => [],
      get: async () => undefined,
      create: async (props: { url: string; active: boolean }) => {
        made.push(props);
        return { id: 41, url: props.url };
      },
      update: async (tabId: number, props: Record<string, unknown>) => {
        updates.push([tabId, props]);
        return { id: tabId };
      },
      remove: async () => {},
      reload: async () => {},
      onRemoved: listener(),
      onActivated: listener(),
    },
    runtime: { onStartup: listener() },
    storage: { local: { get: async () => ({}), set: async () => {} } },
  },
}));

describe('thread tabs in the browser', () => {
  it('open in the background and are kept from being discarded', async () => {
    const { startThreadCalls } = await import('../../lib/worker/threads/thread-wiring');
    const pages = { whenReady: async () => {}, state: () => undefined, request: async () => ({}), forget: () => {}, connectedTabs: () => [] };
    const { tabs } = startThreadCalls(pages);
    const { tabId: id } = await tabs.open('https://www.perplexity.ai/computer/tasks/t-1', 6, 't-1');
    expect(id).toBe(41);
    expect(made).toEqual([{ url: 'https://www.perplexity.ai/computer/tasks/t-1', active: false }]);
    expect(updates).toEqual([[41, { autoDiscardable: false }]]);
  });
});
