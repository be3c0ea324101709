import { browser } from 'wxt/browser';
import { RelayError } from '../protocol/error/relay-error';
import type { Envelope, Trace } from '../protocol/messages';
import { type PacksApply, PAGE_PORT, type PageReady, SELECTOR_SET_KIND, traceClock } from '../protocol/ports';
import { SelectorCatalog } from '../selectors/catalog';
import { ASK_STREAM_READER_KIND, THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../selectors/reader-shelf';
import type { AskStreamReader } from '../selectors/stream/stream-schema';
import { lazyDriver, pageHandlers, recognisedSet } from './handlers';
import { offerKitHook } from './kit-registry';
import { applyPacks, readerApplier, selectorSetApplier } from './packs';
import { threadReaders } from './checkpoints/thread-readers';
import { TapChannel } from './stream/tap-channel';

/**
 * The content script's side of the page port: says which page this is (and which kits it holds),
 * runs the worker's requests through the page handlers with cancellation and progress, and
 * reports navigation. Kits the worker injects add their methods (kits.ts). Nothing here runs
 * while nobody asks, apart from the SPA navigation hook.
 */
export function startPageAgent(catalog = new SelectorCatalog()): void {
  const driver = lazyDriver(window, catalog);
  const handlers = new Map(Object.entries(pageHandlers(window, catalog, driver)));
  // The page's own ask streams, as the main-world tap sees them (lib/page/stream/tap.ts): kept raw until the ask kit reads them.
  const tap = new TapChannel();
  tap.connect(window);
  const kits = offerKitHook(globalThis, { win: window, driver, catalog, readers: threadReaders, tap }, (more) => {
    for (const [method, handler] of Object.entries(more)) handlers.set(method, handler);
  });
  let port: ReturnType<typeof browser.runtime.connect> | undefined;
  const running = new Map<string, AbortController>();
  let lastUrl = location.href;
  const appliers = {
    [SELECTOR_SET_KIND]: selectorSetApplier(catalog),
    [THREAD_PAGE_READER_KIND]: readerApplier(threadReaders, THREAD_PAGE_READER_KIND),
    [THREAD_JSON_READER_KIND]: (packs: Parameters<ReturnType<typeof readerApplier>>[0], event?: PacksApply) => {
      if (event?.readers) threadReaders.setBuiltIns(event.readers);
      readerApplier(threadReaders, THREAD_JSON_READER_KIND)(packs);
    },
    [ASK_STREAM_READER_KIND]: (packs: Parameters<ReturnType<typeof readerApplier>>[0]) => {
      readerApplier(threadReaders, ASK_STREAM_READER_KIND)(packs);
      // The tap watches the added reader's endpoints, or the built-in ones again once it is removed.
      tap.watch((packs[0]?.item as AskStreamReader | undefined)?.endpoints);
    },
  };

  const ready = (): PageReady => {
    const recognised = recognisedSet(window, catalog);
    return { url: location.href, title: document.title, selectorSet: recognised?.name ?? null, selectorSource: recognised?.source, kits: kits() };
  };
  const send = (message: Envelope) => {
    try {
      port?.postMessage(message);
    } catch {
      port = undefined; // the worker went away; the next navigation or request reconnects
    }
  };

  const connect = () => {
    try {
      port = browser.runtime.connect({ name: PAGE_PORT });
    } catch {
      return; // extension reloaded or removed: this script is orphaned and stays quiet
    }
    port.onMessage.addListener((raw: unknown) => void onMessage(raw as Envelope));
    port.onDisconnect.addListener(() => {
      port = undefined;
      for (const controller of running.values()) controller.abort();
      running.clear();
      // The worker restarts on demand; reconnect once so it knows this tab again.
      setTimeout(connect, 250);
    });
    send({ kind: 'event', event: 'page.ready', data: ready() });
  };

  const onMessage = async (message: Envelope) => {
    if (message.kind === 'cancel') {
      running.get(message.id)?.abort();
      return;
    }
    if (message.kind === 'event') {
      // New selector sets and thread readers (the worker validated them): used from the next call
      // on, and the worker hears at once which set the page now matches.
      if (applyPacks(appliers, message)) send({ kind: 'event', event: 'page.ready', data: ready() });
      return;
    }
    if (message.kind !== 'request') return;
    // Ids are the worker's, numbered again after each of its restarts: a call of the last worker's that ends late
    // neither removes nor speaks for this one's of the same id (review 8, long-run #1).
    const controller = new AbortController();
    const { signal } = controller;
    running.set(message.id, controller);
    const started = message.trace ? performance.now() : 0;
    const traced: Trace | undefined = message.trace ? {} : undefined;
    try {
      const handler = handlers.get(message.method);
      if (!handler) throw missing(message.method);
      const result = await handler(message.params as never, {
        signal,
        progress: (text) => signal.aborted || send({ kind: 'progress', id: message.id, message: text }),
        trace: traced,
      });
      const trace = traced ? { trace: { ...traced, page: performance.now() - started, pageSentAt: traceClock() } } : {};
      if (!signal.aborted) send({ kind: 'result', id: message.id, result, ...trace });
    } catch (error) {
      if (!signal.aborted) send({ kind: 'error', id: message.id, error: RelayError.from(error, 'EVALUATION_FAILED').toPayload() });
    } finally {
      if (running.get(message.id) === controller) running.delete(message.id);
    }
  };

  // Perplexity is a single-page app: history changes do not reload this script.
  const onNavigate = () => {
    if (location.href === lastUrl) return;
    lastUrl = location.href;
    send({ kind: 'event', event: 'page.navigated', data: ready() });
  };
  window.addEventListener('popstate', onNavigate);
  window.navigation?.addEventListener?.('currententrychange', onNavigate);
  connect();
}

/**
 * A method this page cannot answer: not ours, or one whose kit is not loaded here (the worker loads
 * it before such a call, so this means the page was replaced meanwhile). The kit table stays out of
 * the page script: it would only serve this message.
 */
function missing(method: string): RelayError {
  return new RelayError('EVALUATION_FAILED', `The page script has no method "${method}" (not loaded in this page, or not one of ours); call again.`);
}

declare global {
  interface Window {
    navigation?: { addEventListener?(type: string, listener: () => void): void };
  }
}
