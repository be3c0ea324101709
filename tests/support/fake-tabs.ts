import { ThreadCalls, type ThreadCallDeps } from '../../lib/worker/threads/thread-calls';
import { type TabLike, ThreadTabs, type TabsApi } from '../../lib/worker/threads/thread-tabs';

/**
 * The browser's tabs and storage.session in memory, as the worker's thread tabs use them
 * (chrome.tabs in the worker): tabs it opens get ids from 100 up and open in the background;
 * `opened` lists every URL a tab was opened at (closed or not), `saved()` what was last stored.
 */
export function fakeTabs(initial: TabLike[] = [], stored?: unknown) {
  const tabs: TabLike[] = [...initial];
  let next = 100;
  let saved = stored;
  const opened: string[] = [];
  /** How often the worker asked the browser for its whole tab list. */
  const calls = { query: 0 };
  const api: TabsApi = {
    query: async () => {
      calls.query += 1;
      return tabs.map((t) => ({ ...t }));
    },
    get: async (id) => tabs.find((t) => t.id === id),
    create: async (url) => {
      opened.push(url);
      const tab = { id: next++, url, active: false };
      tabs.push(tab);
      return tab;
    },
    remove: async (id) => {
      const i = tabs.findIndex((t) => t.id === id);
      if (i >= 0) tabs.splice(i, 1);
    },
    load: async () => saved,
    save: async (value) => {
      saved = value;
    },
  };
  return { api, tabs, opened, calls, saved: () => saved };
}

/** What a thread tab's page answers a worker request with, scripted per test. */
export type PageScript = (tabId: number, method: string, params: Record<string, unknown>, signal?: AbortSignal) => Promise<unknown>;

/**
 * The worker's thread calls over fake tabs, each page answering from `page`: every request is
 * recorded in `requests` and every navigation in `navigations`. Tabs with our page script are
 * none unless `connected` says which; pages are ready at once unless `whenReady` says otherwise.
 */
export function fakeThreadCalls(
  page: PageScript,
  options: {
    initial?: TabLike[];
    connected?: () => number[];
    whenReady?: ThreadCallDeps['pages']['whenReady'];
    reload?: ThreadCallDeps['reload'];
    readers?: ThreadCallDeps['readers'];
  } = {},
) {
  const browser = fakeTabs(options.initial);
  const threadTabs = new ThreadTabs(browser.api);
  const requests: { tabId: number; method: string }[] = [];
  const navigations: string[] = [];
  const calls = new ThreadCalls({
    tabs: threadTabs,
    pages: {
      whenReady: options.whenReady ?? (async () => {}),
      state: (tabId) => ({ url: browser.tabs.find((t) => t.id === tabId)?.url ?? '' }),
      request: async (tabId, method, params, signal) => {
        requests.push({ tabId, method });
        return page(tabId, method, params as Record<string, unknown>, signal);
      },
    },
    navigate: async (_tabId, url) => {
      navigations.push(url);
    },
    connectedTabs: options.connected ?? (() => []),
    ...(options.reload ? { reload: options.reload } : {}),
    ...(options.readers ? { readers: options.readers } : {}),
  });
  return { calls, tabs: browser.tabs, browserCalls: browser.calls, threadTabs, requests, navigations };
}
