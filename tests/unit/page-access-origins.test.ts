import type { Runtime } from 'webextension-polyfill';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyPageAccess, pageAccessWords } from '../../lib/protocol/page-access';
import { observePageAccess, PageAccessWatch } from '../../lib/worker/calls/page-access';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';

/**
 * Site access is granted per origin (review of 2026-12-04, #5). Two of the three cures the
 * SITE_ACCESS_OFF text offers ("On specific sites" with https://www.perplexity.ai, allowing it from the
 * toolbar icon on the page) grant www alone; the site redirects the bare origin to www. Chromium's
 * `permissions.contains` answers true only when every origin asked for is granted (its documented
 * all-of semantics), which this fake plays.
 */
const granted = new Set<string>();
const tab = { id: 3, windowId: 1, url: 'https://www.perplexity.ai/search/old-1', status: 'complete', active: true };
let probe: { readyState: string; pageScript: boolean } = { readyState: 'complete', pageScript: false };
let onUpdate: (url: string) => void = () => {};
/** A renderer that runs no injected script (a dialog open in it, a hung page): the browser never answers. */
let hung = false;

vi.mock('wxt/browser', () => ({
  browser: {
    storage: { session: { set: async () => {}, get: async () => ({}) } },
    permissions: { contains: async ({ origins }: { origins: string[] }) => origins.every((o) => granted.has(o)) },
    scripting: { executeScript: () => (hung ? new Promise(() => {}) : Promise.resolve([{ result: { ...probe } }])) },
    tabs: {
      get: async () => ({ ...tab }),
      query: async () => [{ ...tab }],
      update: async (_id: number, { url }: { url: string }) => {
        tab.url = url;
        tab.status = 'loading';
        probe = { readyState: 'loading', pageScript: false };
        onUpdate(url);
      },
    },
  },
}));

beforeEach(() => {
  granted.clear();
  granted.add('https://www.perplexity.ai/*');
  Object.assign(tab, { url: 'https://www.perplexity.ai/search/old-1', status: 'complete' });
  probe = { readyState: 'complete', pageScript: false };
  onUpdate = () => {};
  hung = false;
});

describe('a tab that runs no script', () => {
  it('is asked for 3 s, then said unknown (never blocked), so the panel, comet_connect and doctor go on (review 13b, R13b-8)', async () => {
    vi.useFakeTimers();
    try {
      hung = true;
      const seen = observePageAccess(3);
      await vi.advanceTimersByTimeAsync(3_000);
      const verdict = classifyPageAccess(await seen);
      expect(verdict).toMatchObject({ state: 'unknown', settled: false, browserSaid: 'the tab ran no script within 3 s (a dialog open in it, or the page busy)' });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('site access: what the browser grants for the origin the tab is on decides (#5)', () => {
  it('#5: www granted alone is no "site access off" for a tab on www', async () => {
    const seen = await observePageAccess(3);
    expect(seen).toMatchObject({ siteAccess: true, origin: 'https://www.perplexity.ai/*' });
    expect(classifyPageAccess(seen).state).toBe('script-missing');
  });

  it('#5: a tab on the bare origin with only www granted is told to add the bare origin, not www again', async () => {
    tab.url = 'https://perplexity.ai/';
    const verdict = classifyPageAccess(await observePageAccess(3));
    expect(verdict).toMatchObject({ state: 'site-access-off', settled: true, withheld: 'https://perplexity.ai/*' });
    const words = pageAccessWords(verdict, { browserName: 'Chromium', tabId: 3 });
    expect(words.message).toContain('add https://perplexity.ai under “On specific sites”');
    expect(words.message).not.toContain('https://www.perplexity.ai');
    expect(words.title).toBe('Site access to perplexity.ai is off');
  });

  it('#5: a tab not on perplexity.ai yet is on its way, whatever the grants: never "site access off" in our own words', () => {
    expect(classifyPageAccess({ onPerplexity: false, siteAccess: false, probe: { ok: false, error: 'the tab is not on perplexity.ai yet' } })).toEqual({
      state: 'loading',
      settled: false,
    });
  });

  it('#5: comet_open_conversation with www granted alone waits for the next page script instead of failing (the Addendum’s [TIMEOUT])', async () => {
    const access = new PageAccessWatch(async () => 'Chromium', () => {}, observePageAccess);
    const hub = new PageHub(
      () => {},
      undefined,
      (tabId, waited) => access.check(tabId, waited),
    );
    const old = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 3 } } });
    hub.accept(old as unknown as Runtime.Port);
    old.deliver({ kind: 'event', event: 'page.ready', data: { url: tab.url, title: 'Old' } });
    const tabs = new TabService(hub);
    await tabs.drive(3);
    // The new document's page script connects a moment after the navigation, as in the browser.
    onUpdate = (url) =>
      void setTimeout(() => {
        tab.status = 'complete';
        const next = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 3 } } });
        hub.accept(next as unknown as Runtime.Port);
        next.deliver({ kind: 'event', event: 'page.ready', data: { url, title: 'New' } });
      }, 50);
    await expect(tabs.navigate('https://www.perplexity.ai/search/new-2', 5000)).resolves.toBe('https://www.perplexity.ai/search/new-2');
    expect(hub.state(3)?.url).toBe('https://www.perplexity.ai/search/new-2');
  });
});
