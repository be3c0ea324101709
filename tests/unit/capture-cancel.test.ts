import type { Tabs } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';

/**
 * A comet_screenshot whose caller is gone (cancelled, or the host link dropped) while it waits its turn behind another
 * capture in the same window does not run: the person's tab is not taken from them and given back once more, for
 * nobody (review 10, crash F3).
 */
const PERPLEXITY = 'https://www.perplexity.ai/search/q-1';
const BANK = 'https://bank.example/accounts';
const win = { active: 9, painted: 9, urls: new Map<number, string>([[7, PERPLEXITY], [9, BANK]]), swaps: 0, captures: 0 };
const tick = (ms = 1) => new Promise((r) => setTimeout(r, ms));

vi.mock('wxt/browser', () => ({
  browser: {
    permissions: { contains: async () => true },
    tabs: {
      query: async () => {
        await tick();
        return [{ id: win.active, windowId: 1, active: true, url: win.urls.get(win.active) }];
      },
      update: async (id: number, { active }: { active: boolean }) => {
        await tick();
        if (active && id === 7) win.swaps++;
        if (active) win.active = id;
        setTimeout(() => (win.painted = win.active), 5);
      },
      captureVisibleTab: async () => {
        await tick(30); // a capture takes a moment
        win.captures++;
        return `data:image/png;base64,${win.urls.get(win.painted)}`;
      },
    },
    scripting: {
      executeScript: async ({ target }: { target: { tabId: number } }) => {
        await tick(10);
        if (win.active === target.tabId) win.painted = target.tabId;
        return [{ result: true }];
      },
    },
  },
}));

describe('a queued screenshot whose caller is gone', () => {
  it('brings no tab forward and captures nothing', async () => {
    const real = new TabService({} as PageHub);
    const ours = { id: 7, windowId: 1, url: PERPLEXITY } as Tabs.Tab;
    const tabs = { drivenTab: async () => ours, capture: real.capture.bind(real) } as unknown as TabService;
    const router = new Router({ tabs, pages: {} as PageHub, status: async () => ({}) });
    const replies: Envelope[] = [];
    const req = (id: string): Request => ({ kind: 'request', id, method: 'tabs.capture', params: { format: 'png' }, origin: { clientId: 'k', clientName: 'agent', door: 'loopback' } });
    const first = router.handle(req('h:k1:r1'), (m) => replies.push(m));
    const second = router.handle(req('h:k2:r1'), (m) => replies.push(m));
    await tick(5);
    router.cancel('h:k2:r1'); // the second caller gives up (or its MCP client went away) while the first capture runs
    await Promise.all([first, second]);
    await tick(50);
    expect(replies.map((r) => ('id' in r ? r.id : ''))).toEqual(['h:k1:r1']); // nobody hears the second
    // One swap and one capture: the live caller's.
    expect(win.swaps).toBe(1);
    expect(win.captures).toBe(1);
  });
});
