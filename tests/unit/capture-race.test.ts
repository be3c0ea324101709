import type { Tabs } from 'webextension-polyfill';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';

/**
 * One browser window as captureVisibleTab sees it: the tab in front, and the frame it last painted (a tab brought
 * forward paints a moment later). Every browser call yields, as the real ones do, so captures can interleave.
 */
const PERPLEXITY = 'https://www.perplexity.ai/search/q-1';
const BANK = 'https://bank.example/accounts';
const win = { active: 9, painted: 9, urls: new Map<number, string>(), paintsOnSwitch: true };
const tick = () => new Promise((r) => setTimeout(r, 1));

vi.mock('wxt/browser', () => ({
  browser: {
    tabs: {
      query: async () => {
        await tick();
        return [{ id: win.active, windowId: 1, active: true, url: win.urls.get(win.active) }];
      },
      update: async (id: number, { active }: { active: boolean }) => {
        await tick();
        if (active) win.active = id;
        // A real window paints the new tab on its next frame, not at once.
        if (win.paintsOnSwitch) setTimeout(() => (win.painted = win.active), 5);
      },
      captureVisibleTab: async () => {
        await tick();
        return `data:image/png;base64,${win.urls.get(win.painted)}`;
      },
    },
    scripting: {
      // Two animation frames in the tab: by then it has painted.
      executeScript: async ({ target }: { target: { tabId: number } }) => {
        await new Promise((r) => setTimeout(r, 10));
        if (win.active === target.tabId) win.painted = target.tabId;
        return [{ result: true }];
      },
    },
  },
}));

const service = () => new TabService({} as PageHub);
const ours = { id: 7, windowId: 1, url: PERPLEXITY } as Tabs.Tab;

beforeEach(() => {
  Object.assign(win, { active: 9, painted: 9, paintsOnSwitch: true });
  win.urls = new Map([
    [7, PERPLEXITY],
    [9, BANK],
  ]);
});

describe('a screenshot is of the tab the call resolved, never of the tab the person looks at', () => {
  it('two captures at once in one window both return the Perplexity tab', async () => {
    const tabs = service();
    const shots = await Promise.all([tabs.capture(ours, 'png'), tabs.capture(ours, 'png'), tabs.capture(ours, 'png')]);
    expect(shots.map((s) => s.data)).toEqual([PERPLEXITY, PERPLEXITY, PERPLEXITY]);
    // And the person's tab is in front again afterwards.
    expect(win.active).toBe(9);
  });

  it('the capture right after bringing the tab forward waits for its frame', async () => {
    win.paintsOnSwitch = false; // only a frame the tab draws shows it
    const shot = await service().capture(ours, 'png');
    expect(shot.data).toBe(PERPLEXITY);
  });

  it('a window that stops showing the tab during the capture returns nothing', async () => {
    const tabs = service();
    const pending = tabs.capture(ours, 'png');
    // The person clicks their bank tab while the capture is under way.
    setTimeout(() => {
      win.active = 9;
      win.painted = 9;
    }, 14);
    await expect(pending).rejects.toMatchObject({ code: 'TAB_NOT_FOUND', message: expect.stringContaining('no screenshot was returned') });
  });
});
