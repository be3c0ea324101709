import { ACCOUNT_JSON_READERS } from '../../selectors/account-json';
import { ACCOUNT_JSON_READER_KIND, type AddedReader, LIBRARY_JSON_READER_KIND, readerInUse, THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../../selectors/reader-shelf';
import { LIBRARY_JSON_READERS, type LibraryJsonReader } from '../../selectors/library/library-json';
import { THREAD_JSON_READERS } from '../../selectors/thread-json';
import { THREAD_PAGE_READERS } from '../../selectors/thread-page';
import type { AccountJsonReader, ThreadJsonReader, ThreadPageReader } from '../../selectors/thread-schema';
import { browser } from '../browser/ext';
import { type PageRequests, ThreadCalls } from './thread-calls';
import { ThreadTabs } from './thread-tabs';

/**
 * The thread family's tabs and calls in the service worker: chrome.tabs for the tabs, storage.local
 * for which tabs are ours, and the listeners that keep that list true (closed, taken over by the person).
 */
export function startThreadCalls(
  pages: PageRequests & { forget(tabId: number): void; connectedTabs(): number[] },
  onStep?: (threadId: string, step: string) => void,
  added: () => readonly AddedReader[] = () => [],
): { tabs: ThreadTabs; calls: ThreadCalls } {
  const KEY = 'threadTabs';
  const tabs = new ThreadTabs({
    query: () => browser.tabs.query({}),
    get: (tabId) => browser.tabs.get(tabId).catch(() => undefined),
    create: async (url) => {
      const tab = await browser.tabs.create({ url, active: false });
      // A thread tab holds a call or a task the person is waiting on: Memory Saver must not unload it.
      if (tab.id !== undefined) await browser.tabs.update(tab.id, { autoDiscardable: false }).catch(() => {});
      return tab;
    },
    remove: (tabId) => browser.tabs.remove(tabId),
    // storage.local: a reloaded extension (which empties storage.session) still knows its tabs.
    load: async () => (await browser.storage.local.get(KEY))[KEY],
    save: (value) => browser.storage.local.set({ [KEY]: value }),
  });
  browser.runtime.onStartup.addListener(() => tabs.newBrowserSession());
  browser.tabs.onRemoved.addListener((tabId, { windowId }) => tabs.forgetTab(tabId, windowId));
  browser.tabs.onActivated.addListener(({ tabId, windowId }) => tabs.activated(tabId, windowId));
  const calls = new ThreadCalls({
    tabs,
    pages,
    reload: async (tabId) => {
      pages.forget(tabId);
      await browser.tabs.reload(tabId);
    },
    navigate: async (tabId, url) => {
      pages.forget(tabId);
      await browser.tabs.update(tabId, { url });
    },
    connectedTabs: () => pages.connectedTabs(),
    ...(onStep ? { onStep } : {}),
    // The readers added as files (validated by the PackStore) win over the built-in ones.
    readers: () => ({
      page: readerInUse(THREAD_PAGE_READER_KIND, added(), THREAD_PAGE_READERS[0] as ThreadPageReader).reader,
      account: readerInUse(ACCOUNT_JSON_READER_KIND, added(), ACCOUNT_JSON_READERS[0] as AccountJsonReader).reader,
      json: readerInUse(THREAD_JSON_READER_KIND, added(), THREAD_JSON_READERS[0] as ThreadJsonReader).reader,
      library: readerInUse(LIBRARY_JSON_READER_KIND, added(), LIBRARY_JSON_READERS[0] as LibraryJsonReader).reader,
    }),
  });
  return { tabs, calls };
}
