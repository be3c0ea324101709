import type { Runtime } from 'webextension-polyfill';
import { RelayError } from '../../protocol/errors';
import { checkEnvelope } from '../../protocol/envelope-check';
import type { Envelope, Trace } from '../../protocol/messages';
import { type KitLoad, kitOf, type PageKit } from '../../protocol/page/page-kits';
import { PAGE_SCRIPT_GRACE_MS, type PageAccessWords } from '../../protocol/page-access';
import { type PageReady, traceClock } from '../../protocol/ports';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';

/**
 * The content scripts of Perplexity tabs, each connected by its own runtime port. Requests to a
 * page get their own ids on this hop; cancellations follow them; a page that goes away fails its
 * open requests instead of leaving them hanging. A request whose method lives in an on-demand
 * part of the page script (lib/protocol/page/page-kits.ts) first loads that part into the very
 * document behind the port, once.
 */
export interface PageState extends PageReady {
  tabId: number;
}

/** Runs a kit's script in the isolated world of one document (scripting.executeScript); resolves with its completion value. */
export type KitInjector = (target: { tabId: number; documentId?: string }, file: string) => Promise<unknown>;

/**
 * Asks the browser why `tabId` has no page script yet (lib/worker/calls/page-access.ts): a wait for a
 * page script that the browser will never let in fails at once, in the words of that cause.
 */
export type PageAccessDiagnosis = (tabId: number, waitedMs: number) => Promise<PageAccessWords>;

/** How often a wait for a page script asks the browser again. */
const DIAGNOSE_EVERY_MS = 1000;

/** The newest prompts a document remembers who asked: a card drawn before more were posted since is judged as another's. */
const ASKS_KEPT = 200;

/** What the hub knows of the document behind one port. */
interface PageDocument {
  /** The browser's id of the document whose script opened the port (Chrome 106+). */
  documentId?: string;
  /** Kits its page script holds. */
  kits: Set<string>;
  /** Kits being loaded now: concurrent calls share one injection. */
  loading: Map<string, Promise<void>>;
  /** Who asked the newest prompts (page.ask) posted to this document, in order: CallOrigin.clientId, '' for the person's own. */
  asks: string[];
  /** How many prompts were posted to it in all (asks keeps the newest ASKS_KEPT). */
  asked: number;
  /**
   * The conversation this document named for itself after a prompt of ours was posted on it while it named none (its
   * first turn's); '' while that prompt's conversation is not named yet. Gone when the page shows no conversation again
   * or that prompt failed: the person's own way back into a conversation is not a prompt's.
   */
  named?: string;
  /**
   * The prompts posted while `named` waited (''), and whether one of them was taken: it is disarmed only when none was
   * and all came to nothing (refused, cancelled).
   */
  armed?: { ids: Set<string>; taken: boolean };
  /** The URL it last reported. */
  url?: string;
}

interface OpenRequest {
  /** The port the request went out on: only that port can answer it. */
  port: Runtime.Port;
  method: string;
  onProgress(message: string): void;
  resolve(value: unknown, trace?: Trace): void;
  reject(error: RelayError): void;
}

/**
 * The page went away (a navigation, a reload, the tab closing) after it was handed a prompt, before it
 * answered: whether Perplexity took the prompt is not known from here. The router looks at the page
 * that follows (lib/worker/calls/router.ts); these words stand when it cannot tell.
 */
export class PageGoneDuringAsk extends RelayError {
  constructor(readonly tabId: number | undefined) {
    super(
      'AGENT_ERROR',
      `The Perplexity page${tabId === undefined ? '' : ` in tab ${tabId}`} went away (it navigated, reloaded or closed) after it was handed the prompt, so Perplexity may have taken it: do not send it again yet. ` +
        'Call comet_poll to see the conversation the tab shows now; ask again only if its last question is not this prompt.',
    );
  }
}

export class PageHub {
  private readonly ports = new Map<number, Runtime.Port>();
  private readonly states = new Map<number, PageState>();
  private readonly open = new Map<string, OpenRequest>();
  private readonly waiters = new Set<{ tabId: number; resolve(): void }>();
  /** nextReady's waiters also wake when the tab's page goes: whenReplaced then waits for the next one as any wait does. */
  private readonly goneWaiters = new Set<{ tabId: number; resolve(): void }>();
  private readonly documents = new WeakMap<Runtime.Port, PageDocument>();
  private sequence = 0;

  constructor(
    private readonly onChange: (tabId: number) => void,
    private readonly inject?: KitInjector,
    private readonly diagnose?: PageAccessDiagnosis,
  ) {}

  accept(port: Runtime.Port): void {
    const tabId = port.sender?.tab?.id;
    if (tabId === undefined) {
      port.disconnect();
      return;
    }
    const replaced = this.ports.get(tabId);
    if (replaced) {
      // Disconnecting our own end fires no onDisconnect here: fail its open requests ourselves.
      replaced.disconnect();
      this.failOpen(replaced, 'The Perplexity page reloaded or reconnected during the call. Call again.');
      // What the replaced page said last is not the new page's word: it is ready when it says so.
      this.states.delete(tabId);
    }
    this.ports.set(tabId, port);
    const documentId = (port.sender as { documentId?: unknown } | undefined)?.documentId;
    this.documents.set(port, { ...(typeof documentId === 'string' ? { documentId } : {}), kits: new Set(), loading: new Map(), asks: [], asked: 0 });
    port.onMessage.addListener((raw: unknown) => this.receive(tabId, port, raw));
    port.onDisconnect.addListener(() => {
      this.failOpen(port, 'The Perplexity page was closed or reloaded during the call. Call again.');
      if (this.ports.get(tabId) !== port) return;
      this.ports.delete(tabId);
      this.states.delete(tabId);
      for (const waiter of [...this.goneWaiters]) if (waiter.tabId === tabId) waiter.resolve();
      this.onChange(tabId);
    });
  }

  /**
   * Rejects every request still waiting on `port`, which will never answer them. A page that goes
   * away holding a `page.ask` may have submitted it first (a hard navigation after the submit): that
   * one is never told "call again", which would send the prompt twice (review of 2026-12-04, #17).
   */
  private failOpen(port: Runtime.Port, message: string): void {
    for (const [id, request] of this.open) {
      if (request.port !== port) continue;
      this.open.delete(id);
      request.reject(request.method === 'page.ask' ? new PageGoneDuringAsk(port.sender?.tab?.id) : new RelayError('NO_PERPLEXITY_TAB', message));
    }
  }

  /**
   * Before a full navigation: the old page's state must not answer for the new one. Returns how to take that back
   * when the document was not replaced after all ("Stay on page", a URL answered without a page): the page still
   * connected on the same port is known again, instead of failing every call until it reloads.
   */
  forget(tabId: number): () => void {
    const state = this.states.get(tabId);
    const port = this.ports.get(tabId);
    this.states.delete(tabId);
    return () => {
      if (state && port && this.ports.get(tabId) === port && !this.states.has(tabId)) this.states.set(tabId, state);
    };
  }

  /**
   * Waits until the tab's page is another document than `page`, ready: after a navigation the page being left may still
   * speak (its own late address change, a pack push) and so look ready, and a new chat's prompt was posted to it (review
   * 10, router F5). Throws, with nothing sent, when no new page came within `timeoutMs`.
   */
  async whenReplaced(tabId: number, page: object | undefined, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.ports.get(tabId) === page) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new RelayError('TIMEOUT', `The new page in tab ${tabId} did not load within ${timeoutMs} ms; the page it was leaving still answers there. Nothing was sent; call again.`);
      }
      await this.nextReady(tabId, left, signal);
    }
    // The old page is gone: the new one is waited for as any page is, in the browser's words when it does not come.
    await this.whenReady(tabId, Math.max(1, deadline - Date.now()), signal);
  }

  /** The tab's next page.ready or page.navigated, or `ms` passing; a cancel throws. */
  private nextReady(tabId: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new RelayError('CANCELLED', 'The call was cancelled.'));
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        this.goneWaiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter = {
        tabId,
        resolve: () => {
          done();
          resolve();
        },
      };
      const onAbort = () => {
        done();
        reject(new RelayError('CANCELLED', 'The call was cancelled.'));
      };
      const timer = setTimeout(waiter.resolve, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      this.goneWaiters.add(waiter);
    });
  }

  state(tabId: number): PageState | undefined {
    return this.states.get(tabId);
  }

  /**
   * The document the tab's page script runs in, as a token: the same while the page only changes its address itself
   * (a conversation named after its first turn), another after a navigation loaded a new page.
   */
  document(tabId: number): object | undefined {
    return this.ports.get(tabId);
  }

  /** How many prompts were posted to the document `page` (a token from document()). */
  askCount(page: object | undefined): number {
    return (page && this.documents.get(page as Runtime.Port)?.asked) ?? 0;
  }

  /** Who asked the prompts posted to `page` after the first `count`, in order; undefined when it no longer remembers them all. */
  asksSince(page: object | undefined, count: number): readonly string[] | undefined {
    const doc = page ? this.documents.get(page as Runtime.Port) : undefined;
    if (!doc) return [];
    const from = count - (doc.asked - doc.asks.length);
    return from < 0 ? undefined : doc.asks.slice(from);
  }

  /** The conversation the document `page` named for itself after a prompt was posted on it (undefined: none). */
  namedBy(page: object | undefined): string | undefined {
    return page ? this.documents.get(page as Runtime.Port)?.named : undefined;
  }

  connectedTabs(): number[] {
    return [...this.ports.keys()];
  }

  /** A push to one page (a page that just went away misses it, which is fine: it is gone). */
  send(tabId: number, message: Envelope): void {
    try {
      this.ports.get(tabId)?.postMessage(message);
    } catch {
      // disconnected meanwhile; its onDisconnect cleans up
    }
  }

  /** A push to every connected page. */
  broadcast(message: Envelope): void {
    for (const tabId of this.ports.keys()) this.send(tabId, message);
  }

  /**
   * Resolves once the tab's content script has said it is ready. Meanwhile the browser is asked why
   * it is not (when the hub has a diagnosis): a cause waiting cannot cure (a policy block, site access
   * off, a loaded page without our script seen twice a grace apart) fails the wait at once; otherwise
   * it fails after `timeoutMs` in the words of the last answer.
   */
  async whenReady(tabId: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.states.has(tabId)) return;
    if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      let done = false;
      let poll: ReturnType<typeof setTimeout> | undefined;
      let missingSince: number | undefined;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        clearTimeout(poll);
        this.waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: RelayError) => {
        if (done) return;
        finish();
        reject(error);
      };
      // A cancelled call stops waiting at once: no tab work after its caller is gone.
      const onAbort = () => fail(new RelayError('CANCELLED', 'The call was cancelled.'));
      const waiter = {
        tabId,
        resolve: () => {
          if (done) return;
          finish();
          resolve();
        },
      };
      const timedOut = () => new RelayError('NO_PERPLEXITY_TAB', `The Perplexity page in tab ${tabId} did not load its comet-relay script within ${timeoutMs} ms. Reload the tab.`);
      const timer = setTimeout(() => {
        if (!this.diagnose) return fail(timedOut());
        // The last word is the browser's, asked now: why the page script is still not there.
        this.diagnose(tabId, timeoutMs).then(
          (words) => fail(new RelayError(words.code, words.message)),
          () => fail(timedOut()),
        );
      }, timeoutMs);
      const ask = async () => {
        if (done || !this.diagnose) return;
        const words = await this.diagnose(tabId, Date.now() - started).catch(() => undefined);
        if (done) return;
        if (words?.state === 'script-missing') missingSince ??= Date.now();
        else missingSince = undefined;
        const missingLong = missingSince !== undefined && Date.now() - missingSince >= PAGE_SCRIPT_GRACE_MS;
        if (words && (words.settled || missingLong)) return fail(new RelayError(words.code, words.message));
        poll = setTimeout(() => void ask(), DIAGNOSE_EVERY_MS);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      void ask();
    });
  }

  /**
   * `trace`, when given, receives the page's own time and this port's round trip (`port`), in ms, and
   * (`kit`) how long this call waited for its kit to load into the page, when it did.
   */
  async request(tabId: number, method: string, params: unknown, signal: AbortSignal, onProgress: (message: string) => void, trace?: Trace, asker = ''): Promise<unknown> {
    const port = this.ports.get(tabId);
    if (!port) throw new RelayError('NO_PERPLEXITY_TAB', `Tab ${tabId} has no comet-relay page script. Open or reload a perplexity.ai tab.`);
    const kit = kitOf(method);
    if (kit) {
      // Nothing is loaded for a call already cancelled either.
      if (signal.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
      const loadStarted = trace ? performance.now() : 0;
      if ((await this.ensureKit(tabId, port, kit)) && trace) trace.kit = performance.now() - loadStarted;
      if (this.ports.get(tabId) !== port) {
        throw new RelayError('NO_PERPLEXITY_TAB', `The Perplexity page in tab ${tabId} reloaded while comet-relay loaded its ${kit.what} into it; nothing was sent to it. Call again.`);
      }
    }
    // Cancelled while the worker looked for the tab or waited for its script: never start it.
    if (signal.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
    return this.post(port, method, params, signal, onProgress, trace, asker);
  }

  /**
   * Loads a kit into the document behind `port` unless its page script holds it already. The
   * injection targets that document by id, so it can never land in the page that replaced it
   * (that one gets its own when asked); one injection serves every call waiting for it. True when
   * the call waited for a load.
   */
  private async ensureKit(tabId: number, port: Runtime.Port, kit: PageKit): Promise<boolean> {
    const doc = this.documents.get(port);
    if (!doc || doc.kits.has(kit.name)) return false;
    let loading = doc.loading.get(kit.name);
    if (!loading) {
      loading = this.loadKit(tabId, doc, kit).finally(() => doc.loading.delete(kit.name));
      doc.loading.set(kit.name, loading);
    }
    await loading;
    return true;
  }

  private async loadKit(tabId: number, doc: PageDocument, kit: PageKit): Promise<void> {
    const where = `its ${kit.what} (${kit.file}) into the Perplexity page in tab ${tabId}`;
    if (!this.inject) throw new RelayError('INTERNAL', `comet-relay cannot load ${where}: this worker has no script injector.`);
    let outcome: unknown;
    try {
      outcome = await this.inject({ tabId, ...(doc.documentId ? { documentId: doc.documentId } : {}) }, kit.file);
    } catch (error) {
      throw new RelayError(
        'NO_PERPLEXITY_TAB',
        `comet-relay could not load ${where}: ${(error as Error).message}. The page was probably reloaded or closed meanwhile; nothing was sent to it: call again.`,
      );
    }
    const load = outcome as Partial<KitLoad> | undefined;
    if (load?.kit === kit.name && (load.status === 'registered' || load.status === 'already')) {
      doc.kits.add(kit.name);
      return;
    }
    const why =
      load?.status === 'no-page-script'
        ? 'the page has no comet-relay page script any more (it is being reloaded)'
        : load?.status === 'version-mismatch'
          ? 'the page still runs the page script of an earlier version of the extension; reload the tab'
          : `the script reported ${JSON.stringify(outcome ?? null)}`;
    throw new RelayError('NO_PERPLEXITY_TAB', `comet-relay could not load ${where}: ${why}. Nothing was sent to the page; call again.`);
  }

  private post(port: Runtime.Port, method: string, params: unknown, signal: AbortSignal, onProgress: (message: string) => void, trace?: Trace, asker = ''): Promise<unknown> {
    const id = `p${++this.sequence}`;
    const started = trace ? performance.now() : 0;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        finish();
        this.settleArmed(port, id, false);
        reject(new RelayError('CANCELLED', 'The call was cancelled.'));
        try {
          port.postMessage({ kind: 'cancel', id } satisfies Envelope);
        } catch {
          // The page went with its port: nothing left to stop (worker review F6).
        }
      };
      const finish = () => {
        this.open.delete(id);
        signal.removeEventListener('abort', onAbort);
      };
      this.open.set(id, {
        port,
        method,
        onProgress,
        resolve: (value, pageTrace) => {
          finish();
          if (trace) Object.assign(trace, pageTrace, { port: performance.now() - started, workerGotAt: traceClock() });
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        port.postMessage({ kind: 'request', id, method, params, ...(trace ? { trace: true as const } : {}) } satisfies Envelope);
        // Counted once it is on its way, and only then: a prompt refused before this names no conversation here.
        if (method === 'page.ask') {
          const doc = this.documents.get(port);
          if (doc) {
            doc.asked += 1;
            doc.asks.push(asker);
            if (doc.asks.length > ASKS_KEPT) doc.asks.shift();
            // Posted on a page of no conversation: the first conversation it names next is this prompt's.
            if (!threadIdOfUrl(doc.url)) {
              if (doc.named !== '' || !doc.armed) doc.armed = { ids: new Set(), taken: false };
              doc.named = '';
              doc.armed.ids.add(id);
            }
          }
        }
      } catch {
        // The page's port closed a moment ago (a reload, a navigation): nothing was sent, and the call says so.
        finish();
        reject(new RelayError('NO_PERPLEXITY_TAB', `The Perplexity tab's page went away before ${method} reached it (a reload or a navigation). Nothing was sent to the page; call again.`));
      }
    });
  }

  /**
   * A prompt that armed its document's `named` has its outcome: taken (a result, or an error that says so) or nothing
   * (refused, cancelled). Once none of the armed prompts is left and none was taken, no conversation is theirs, even one
   * the page named meanwhile (a sidebar click); one taken keeps it (review 10, router rounds 3 and 4).
   */
  private settleArmed(port: Runtime.Port, id: string, taken: boolean): void {
    const doc = this.documents.get(port);
    const armed = doc?.armed;
    if (!doc || !armed?.ids.delete(id)) return;
    armed.taken ||= taken;
    if (armed.ids.size > 0 || armed.taken) return;
    doc.named = undefined;
    doc.armed = undefined;
  }

  private receive(tabId: number, port: Runtime.Port, raw: unknown): void {
    const parsed = checkEnvelope(raw);
    if (!parsed.ok) return;
    const message = parsed.envelope;
    // A reply answers only a request that went out on the same port; anything else is dropped.
    const request = 'id' in message ? this.open.get(message.id) : undefined;
    const mine = request?.port === port ? request : undefined;
    switch (message.kind) {
      case 'result':
        this.settleArmed(port, message.id, true);
        mine?.resolve(message.result, message.trace);
        return;
      case 'error':
        // A prompt the page did not take names no conversation; one it says it took (a timeout after the submit) may.
        this.settleArmed(port, message.id, Boolean(message.error.data?.taken));
        mine?.reject(new RelayError(message.error.code, message.error.message, message.error.data));
        return;
      case 'progress':
        mine?.onProgress(message.message);
        return;
      case 'event':
        if (message.event === 'page.ready' || message.event === 'page.navigated') {
          const doc = this.documents.get(port);
          const url = (message.data as PageReady).url;
          if (doc) {
            if (doc.named === '' && threadIdOfUrl(url)) doc.named = url;
            // Back on a page of no conversation ("New thread" in the page): what it names from now on is no prompt's.
            else if (doc.named && !threadIdOfUrl(url)) {
              doc.named = undefined;
              doc.armed = undefined;
            }
            doc.url = url;
          }
          // A port the tab has replaced speaks for a page that is gone.
          if (this.ports.get(tabId) !== port) {
            this.onChange(tabId);
            return;
          }
          this.states.set(tabId, { tabId, ...(message.data as PageReady) });
          // A worker that restarted learns what this document already holds.
          const kits = (message.data as PageReady).kits;
          if (Array.isArray(kits)) for (const k of kits) if (typeof k === 'string') this.documents.get(port)?.kits.add(k);
          for (const waiter of [...this.waiters]) {
            if (waiter.tabId !== tabId) continue;
            this.waiters.delete(waiter);
            waiter.resolve();
          }
        }
        this.onChange(tabId);
        return;
      default:
        return;
    }
  }
}
