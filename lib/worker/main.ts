import type { Runtime } from 'webextension-polyfill';
import { type HostForm, PROTOCOL_VERSION, sameHostForm, withCliForm } from '../protocol/identity';
import type { Envelope, Hello } from '../protocol/messages';
import type { AttachedClient, BrowserStatus } from '../protocol/methods';
import { PACKS_CHANGED_EVENT } from '../protocol/packs';
import { ActionIndicator } from './link/action-state';
import { browser, chromeExtras, lastErrorMessage } from './browser/ext';
import { detectBrowser, loadHostForm, loadProfile, saveHostForm } from './browser/identity';
import { NativeLink, RECONNECT_ALARM } from './link/native-link';
import { otherTabsAllowed } from './calls/other-tabs';
import { PackStore } from './packs';
import { PageHub } from './calls/pages';
import { PanelService } from './panel/panel-service';
import { admitPort } from './calls/port-guard';
import { Router } from './calls/router';
import { keepStorageTrusted, saveProfileLabel } from './browser/settings';
import { localValue, sessionValue } from './browser/session-store';
import { DoorThreads } from './threads/door-threads';
import { TabService } from './calls/tabs';
import { PageAccessWatch } from './calls/page-access';
import { PAGE_SCRIPT_GRACE_MS } from '../protocol/page-access';
import { categorizeTab } from '../protocol/urls';
import { startThreadCalls } from './threads/thread-wiring';
import { THREAD_JSON_READER_KIND, readerInUse } from '../selectors/reader-shelf';
import { THREAD_JSON_READERS } from '../selectors/thread-json';
import type { ThreadJsonReader } from '../selectors/thread-schema';
import { JsonAnswers } from './threads/json-answer';
import { Repairs } from './calls/repairs';

/**
 * Runs an on-demand part of the page script (lib/protocol/page/page-kits.ts) in the isolated world of one
 * document, the world our content script runs in (executeScript's default world).
 */
async function injectKit(target: { tabId: number; documentId?: string }, file: string): Promise<unknown> {
  const [injection] = await browser.scripting.executeScript({
    target: target.documentId ? ({ tabId: target.tabId, documentIds: [target.documentId] } as { tabId: number }) : { tabId: target.tabId, frameIds: [0] },
    // The kit table names files WXT builds from entrypoints/page-*.ts (tests/e2e load them for real).
    files: [file as never],
  });
  return injection?.result;
}

/**
 * Wires the service worker: native link ⇄ router ⇄ pages, and the side panel hub. Listeners are
 * registered synchronously at start-up (MV3 requires it to be woken by them); identity is loaded
 * once and awaited where needed.
 */
export function startWorker(): void {
  void keepStorageTrusted();
  let identity = (async () => {
    const browserInfo = await detectBrowser();
    return { browser: browserInfo, profile: await loadProfile(browserInfo.name) };
  })();
  let clients: AttachedClient[] = [];

  // Why a Perplexity tab has no page script, as the browser answers (policy block, site access off, …):
  // tool waits fail on it at once, and the toolbar icon and the side panel say it.
  const access = new PageAccessWatch(
    async () => (await identity).browser.name,
    () => {
      toolbar.showAccess(access.current());
      panels.push();
    },
    undefined,
    undefined,
    () => link.current.form,
  );
  const pages: PageHub = new PageHub(
    (tabId) => {
      if (pages.state(tabId)) access.connected(tabId);
      panels.onPageChange();
    },
    injectKit,
    (tabId, waitedMs) => access.check(tabId, waitedMs),
  );
  const threads = startThreadCalls(
    pages,
    (threadId, step) => panels.onThreadStep(threadId, step),
    () => packs.added(),
  );
  const packs = new PackStore({ broadcast: (message) => pages.broadcast(message), onChange: (itemsChanged) => panels.onPacksChanged(itemsChanged), store: sessionValue('packs') });
  void packs.restore();
  const tabs = new TabService(pages, (tabId) => threads.tabs.isOwned(tabId));
  // Kept across browser restarts and updates: an Agent API task outlives both, and its caller must still reach it.
  const publicThreads = new DoorThreads(localValue('publicThreads'));
  // Calls wait for this: a public-door call on its own thread must not be judged before the worker knows it.
  const restored = Promise.all([tabs.restore().catch(() => {}), publicThreads.load()]);

  const status = async (): Promise<BrowserStatus> => {
    const { browser: browserInfo, profile } = await identity;
    await restored;
    const tab = await tabs.drivenTab();
    const page = tab?.id !== undefined ? pages.state(tab.id) : undefined;
    // A Perplexity tab without our page script: ask the browser why (doctor and the panel show it).
    const pageAccess = tab?.id !== undefined && !page && categorizeTab(tab.url ?? '') === 'Main' ? await access.check(tab.id).catch(() => null) : null;
    return {
      profile,
      browser: browserInfo,
      extensionVersion: browser.runtime.getManifest().version,
      perplexityTab:
        tab?.id !== undefined && page
          ? {
              tabId: String(tab.id),
              url: page.url,
              title: page.title,
              selectorSet: page.selectorSet,
              ...(page.selectorSet && page.selectorSource ? { selectorSource: page.selectorSource } : {}),
            }
          : null,
      tabCount: (await browser.tabs.query({})).length,
      tabAccess: await otherTabsAllowed(),
      pageAccess,
    };
  };

  const toolbar = new ActionIndicator(browser.action);

  // The same reader for repairs (issue 24); the panel hears when a tab's repair is made.
  const repairs = new Repairs(
    () => readerInUse(THREAD_JSON_READER_KIND, packs.added(), THREAD_JSON_READERS[0] as ThreadJsonReader).reader,
    Date.now,
    () => panels.push(),
  );
  const router: Router = new Router({
    tabs,
    pages,
    threads: threads.calls,
    publicThreads,
    // The thread JSON reader in use (an added one wins over the built-in one), as the thread tabs use it.
    answers: new JsonAnswers(() => readerInUse(THREAD_JSON_READER_KIND, packs.added(), THREAD_JSON_READERS[0] as ThreadJsonReader).reader),
    repairs,
    status,
    // An error's commands said in the host's form in the activity feed too, as in the reply (worker review F5).
    onCall: (event) => panels.onCall(event.phase === 'end' && event.error ? { ...event, error: withCliForm(event.error, link.current.form) } : event),
    authorize: (...args) => panels.authorize(...args),
    authorizeTarget: (...args) => panels.authorizeTarget(...args),
    recheck: (...args) => panels.recheck(...args),
    refuseIfDenied: (...args) => panels.refuseIfDenied(...args),
  });

  // The host's command form as last saved; the one kept from an earlier run speaks until a host names its own.
  let hostForm: HostForm | undefined;
  /** The form storage already holds (loaded at start, or saved since): not written again. */
  let savedForm: HostForm | undefined;
  const link = new NativeLink(
    {
      connectNative: (name) => browser.runtime.connectNative(name),
      lastError: lastErrorMessage,
      scheduleAlarm: (name, minutes) => void browser.alarms.create(name, { delayInMinutes: minutes }),
      clearAlarm: (name) => void browser.alarms.clear(name),
    },
    async (): Promise<Hello> => {
      const { browser: browserInfo, profile } = await identity;
      return {
        kind: 'hello',
        role: 'extension',
        protocolVersion: PROTOCOL_VERSION,
        version: browser.runtime.getManifest().version,
        profile,
        browser: browserInfo,
      };
    },
    {
      onMessage: (message) => onHostMessage(message),
      onStatus: (linkStatus) => {
        if (!sameHostForm(linkStatus.form, hostForm)) {
          // The host named its command form (or storage gave the last one): keep it, and say the page's problem in it.
          hostForm = linkStatus.form;
          if (hostForm && !sameHostForm(hostForm, savedForm)) {
            savedForm = hostForm;
            void saveHostForm(hostForm).catch(() => {});
          }
          void access.retell().catch(() => {});
        }
        if (linkStatus.state !== 'connected') {
          clients = [];
          // Every caller was on the host that went away: stop their calls (held approvals included).
          router.abortAll(`the link to the comet-relay host dropped (${linkStatus.detail ?? linkStatus.state})`);
        }
        toolbar.show(linkStatus);
        panels.push();
      },
    },
  );

  void loadHostForm().then((form) => {
    if (!form) return;
    // A host that answered before storage did has saved its own form since this read began (day-7 review F9).
    savedForm ??= form;
    link.rememberForm(form);
  });

  const onHostMessage = (message: Envelope) => {
    switch (message.kind) {
      case 'request':
        // Registered at once (a cancel right behind it must find it), run once tabs are restored.
        // An error's commands said where the host's form was not at hand are said in it here (withCliForm).
        void router.handle(message, (reply) => link.send(reply.kind === 'error' ? { ...reply, error: { ...reply.error, message: withCliForm(reply.error.message, link.current.form) } } : reply), restored);
        return;
      case 'cancel':
        router.cancel(message.id);
        return;
      case 'event':
        if (message.event === 'host.clients') {
          clients = (message.data as { clients: AttachedClient[] }).clients;
          panels.push();
        } else if (message.event === PACKS_CHANGED_EVENT) {
          packs.receive(message.data);
        }
        return;
      default:
        return;
    }
  };

  const panels: PanelService = new PanelService({
    router: () => router,
    tabs,
    pages,
    status,
    identity: () => identity,
    renameProfile: async (label) => {
      const current = await identity;
      const profile = await saveProfileLabel(current.profile, label);
      identity = Promise.resolve({ ...current, profile });
      link.restart(); // the host keeps the label it got in the handshake
    },
    link: () => link.current,
    restartLink: () => link.restart(),
    clients: () => clients,
    packs: () => packs.summary(),
    showWaiting: (waiting) => toolbar.showWaiting(waiting),
    repair: () => {
      const tabId = tabs.connectedDrivenTab()?.id;
      return tabId === undefined ? null : repairs.of(tabId);
    },
    undoRepair: async () => {
      const tabId = tabs.connectedDrivenTab()?.id;
      if (tabId === undefined || !repairs.of(tabId)) return false;
      const { undone } = (await pages.request(tabId, 'page.repairUndo', {}, new AbortController().signal, () => {})) as { undone: boolean };
      repairs.forget(tabId);
      return undone;
    },
  });

  browser.runtime.onConnect.addListener((port: Runtime.Port) => {
    const role = admitPort(port.name, port.sender, { id: browser.runtime.id, origin: browser.runtime.getURL('/') });
    if (role === 'page') {
      pages.accept(port);
      // Before any request can reach it, the page learns the added selector sets.
      const tabId = port.sender?.tab?.id;
      if (tabId !== undefined) pages.send(tabId, packs.message());
    } else if (role === 'panel') panels.accept(port);
    else port.disconnect();
  });
  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === RECONNECT_ALARM) link.start();
  });
  browser.runtime.onStartup.addListener(() => link.start());
  browser.runtime.onInstalled.addListener(() => link.start());
  browser.tabs.onRemoved.addListener((tabId) => {
    access.clear(tabId);
    repairs.forget(tabId); // its repair goes with it (review 8, long-run #5)
    panels.onPageChange();
  });
  // A Perplexity tab that finished loading and still has no page script a grace later: ask why now,
  // so the icon and the panel say it before any agent calls.
  browser.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.status !== 'complete' || categorizeTab(tab.url ?? '') !== 'Main') return;
    setTimeout(() => {
      if (!pages.state(tabId)) void access.check(tabId).catch(() => {});
    }, PAGE_SCRIPT_GRACE_MS + 500);
  });
  void chromeExtras.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
  link.start();
}

