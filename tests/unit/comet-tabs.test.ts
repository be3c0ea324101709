import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { allTools } from '../../lib/mcp/tools';
import { formatTabList } from '../../lib/mcp/tools/comet';
import type { TabInfo } from '../../lib/protocol/methods';
import { extensionsPage } from '../../lib/protocol/urls';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService, toTabInfo } from '../../lib/worker/calls/tabs';
import { FakeBrowser, fakeContext, removeFakeHomes } from '../support/fake-browser';

/** The browser's tabs as Comet shows them: its assistant pane, its new-tab page, a site its agent browses. */
const tabs: { id: number; url: string; title: string; active: boolean; lastAccessed: number }[] = [];
const created: string[] = [];
/** Tabs brought forward. */
const activated: number[] = [];

vi.mock('wxt/browser', () => ({
  browser: {
    tabs: {
      query: async () => tabs.map((t) => ({ ...t })),
      get: async (id: number) => tabs.find((t) => t.id === id) ?? Promise.reject(new Error('no tab')),
      create: async ({ url }: { url: string }) => {
        created.push(url);
        const tab = { id: 100 + created.length, url, title: 'Perplexity', active: true, lastAccessed: Date.now() };
        tabs.push(tab);
        return tab;
      },
      update: async (id: number) => {
        activated.push(id);
        return tabs.find((t) => t.id === id);
      },
    },
    windows: { update: async () => ({}) },
    storage: { session: { get: async () => ({}), set: async () => {} } },
  },
}));

const SIDECAR = { id: 1, url: 'https://www.perplexity.ai/sidecar?copilot=true', title: 'Assistant', active: false, lastAccessed: 30 };
const NEW_TAB = { id: 2, url: 'https://www.perplexity.ai/b/home', title: 'New Tab', active: true, lastAccessed: 40 };
const AGENT = { id: 3, url: 'https://shop.example/cart', title: 'Cart', active: false, lastAccessed: 20 };
const MAIN = { id: 4, url: 'https://www.perplexity.ai/search/why-abc', title: 'Why', active: false, lastAccessed: 10 };

const pages = { state: () => undefined, whenReady: async () => {} } as unknown as PageHub;

beforeEach(() => {
  tabs.splice(0, tabs.length);
  created.splice(0, created.length);
  activated.splice(0, activated.length);
});

describe("Comet's tab kinds", () => {
  it('comet_list_tabs shows Main, then the assistant pane, then the new-tab page, then the agent\'s sites', () => {
    const listed = [AGENT, NEW_TAB, SIDECAR, MAIN].map((t) => toTabInfo(t as never));
    expect(listed.map((t: TabInfo) => t.category)).toEqual(['Agent Browsing', 'New Tab', 'Sidecar', 'Main']);
    expect(formatTabList(listed)).toBe(
      [
        '=== Main (1) ===\n  [4] Why — https://www.perplexity.ai/search/why-abc',
        '=== Sidecar (1) ===\n  [1] Assistant — https://www.perplexity.ai/sidecar?copilot=true',
        '=== New Tab (1) ===\n  [2] New Tab — https://www.perplexity.ai/b/home',
        '=== Agent Browsing (1) ===\n  [3] Cart — https://shop.example/cart',
      ].join('\n\n'),
    );
  });

  it('the driven tab is the Perplexity page, never the active new-tab page or the assistant pane', async () => {
    tabs.push(SIDECAR, NEW_TAB, AGENT, MAIN);
    const service = new TabService(pages);
    expect((await service.drivenTab())?.id).toBe(MAIN.id);
    expect((await service.ensurePerplexity(1000)).created).toBe(false);
  });

  it('with only the new-tab page and the assistant pane open, comet_connect opens a Perplexity tab of its own', async () => {
    tabs.push(SIDECAR, NEW_TAB, AGENT);
    const service = new TabService(pages);
    const { created: opened, tab } = await service.ensurePerplexity(1000);
    expect(opened).toBe(true);
    expect(created).toEqual(['https://www.perplexity.ai/']);
    expect(tab.category).toBe('Main');
  });
});

describe('comet_switch_tab and the tabs page tools never act on (review 15b, F2)', () => {
  it.each([
    ['the assistant pane', SIDECAR, /^Tab 1 is Comet's assistant pane \(Sidecar in comet_list_tabs\), where page tools do not act, so it was not switched to\. Call comet_switch_tab with a tab comet_list_tabs lists under Main, or comet_connect/],
    ['the new-tab page', NEW_TAB, /^Tab 2 is Comet's new-tab page \(New Tab in comet_list_tabs\), where page tools do not act/],
  ])('refuses %s, naming what it is and which tab to pick; the driven tab stays', async (_name, tab, words) => {
    tabs.push(SIDECAR, NEW_TAB, AGENT, MAIN);
    const service = new TabService(pages);
    await service.drive(MAIN.id);
    await expect(service.switchTo(String(tab.id))).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringMatching(words) });
    expect(activated).toEqual([]);
    await expect(service.pageTab()).resolves.toBe(MAIN.id);
  });

  it('after a switch to a site, page tools say the driven tab is not a Perplexity page, not that none is open, and keep its URL', async () => {
    tabs.push(SIDECAR, NEW_TAB, AGENT, MAIN);
    const service = new TabService(pages);
    await service.drive(MAIN.id);
    await service.switchTo(String(AGENT.id));
    const error = await service.pageTab().catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'NO_PERPLEXITY_TAB' });
    expect((error as Error).message).toBe(
      'Page tools are set to tab 3, which is not a Perplexity page. Call comet_switch_tab with a tab comet_list_tabs lists under Main, or comet_connect (it picks a Perplexity tab, or opens one).',
    );
    expect((error as Error).message).not.toContain('shop.example');
    // A driven tab the person took to Comet's new-tab page is named as what it is.
    await service.drive(NEW_TAB.id);
    await expect(service.pageTab()).rejects.toThrow(/^Page tools are set to tab 2, which is Comet's new-tab page \(New Tab in comet_list_tabs\): they do not act there\. Call comet_switch_tab/);
    // No Perplexity tab at all is said as before.
    tabs.splice(0, tabs.length, AGENT);
    await expect(new TabService(pages).pageTab()).rejects.toThrow(/^No Perplexity tab is open in this browser/);
  });

  it('a title that the assistant pane shares with a Perplexity page goes to the page', async () => {
    const listed = [{ ...SIDECAR, title: 'Perplexity' }, { ...MAIN, title: 'Why — Perplexity' }].map((t) => toTabInfo(t as never));
    const browser = new FakeBrowser().on('tabs.list', { tabs: listed }).on('tabs.switch', ({ tabId }) => ({ tab: listed.find((t) => t.id === tabId) as TabInfo }));
    const switchTab = allTools.find((t) => t.name === 'comet_switch_tab');
    const { context } = fakeContext(browser);
    const result = (await switchTab?.handler({ title: 'Perplexity' }, context as never)) as { content: { text: string }[] };
    expect(browser.calls.find((c) => c.method === 'tabs.switch')?.params).toEqual({ tabId: '4' });
    expect(result.content[0]?.text).toBe('Switched to tab [4] Why — Perplexity — https://www.perplexity.ai/search/why-abc');
  });
});

describe('the extensions page each browser names', () => {
  it.each([
    ['Comet', 'comet://extensions'],
    ['Brave', 'brave://extensions'],
    ['Microsoft Edge', 'edge://extensions'],
    ['Chrome', 'chrome://extensions'],
    [undefined, 'chrome://extensions'],
  ])('%s → %s', (browser, page) => {
    expect(extensionsPage(browser)).toBe(page);
  });
});

describe('comet_connect after starting Comet itself', () => {
  afterAll(removeFakeHomes);

  it("says what was done to Comet's Local State before the start", async () => {
    class StartingBrowser extends FakeBrowser {
      override async ensureBrowser() {
        return { launched: true, note: "Set Comet's switch to true before starting Comet (backup: x); Comet resets it at each start." };
      }
    }
    const tab = toTabInfo(MAIN as never);
    const browser = new StartingBrowser()
      .on('tabs.ensurePerplexity', { tab, created: false })
      .on('browser.status', {
        profile: { id: 'p1', label: 'Default' },
        browser: { name: 'Comet', version: '142.0', userAgent: 'x' },
        extensionVersion: '0.1.0',
        perplexityTab: null,
        tabCount: 1,
      } as never)
      .on('page.probe', { name: 'generation-b', probe: { chosen: 'generation-b', confident: true, chromeMajor: 142, url: MAIN.url, candidates: [] } });
    const connect = allTools.find((t) => t.name === 'comet_connect');
    const { context } = fakeContext(browser);
    const result = (await connect?.handler({}, context as never)) as { content: { text: string }[] };
    expect(result.content[0]?.text).toMatch(/^Connected to Comet on profile "Default"[\s\S]*\nSet Comet's switch to true before starting Comet \(backup: x\); Comet resets it at each start\.$/);
  });

  it('names an added selector set by its file, not its folder: the text also goes out through the public door (review 10, door L3)', async () => {
    const browser = new FakeBrowser()
      .on('tabs.ensurePerplexity', { tab: toTabInfo(MAIN as never), created: false })
      .on('browser.status', { profile: { id: 'p', label: 'Default' }, browser: { name: 'Chromium', version: '156', userAgent: 'x' }, extensionVersion: '0.1.0', perplexityTab: null, tabCount: 1 } as never)
      .on('page.probe', { name: 'gen-b-2026-12', source: '/home/alice/.local/state/comet-relay/selectors/selector-set.gen-b-2026-12.json', probe: { chosen: 'gen-b-2026-12', confident: true, chromeMajor: 156, url: MAIN.url, candidates: [] } } as never);
    const connect = allTools.find((t) => t.name === 'comet_connect');
    const { context } = fakeContext(browser);
    const result = (await connect?.handler({}, context as never)) as { content: { text: string }[] };
    expect(result.content[0]?.text).toContain('Selector set: gen-b-2026-12 (added from selector-set.gen-b-2026-12.json)');
    expect(result.content[0]?.text).not.toContain('/home/alice');
  });
});
