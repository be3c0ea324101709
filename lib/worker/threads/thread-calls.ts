import { RelayError } from '../../protocol/errors';
import type { ProgressSink, Trace } from '../../protocol/messages';
import type { ThreadReading } from '../../page/checkpoints/thread-model';
import { ACCOUNT_JSON_READERS } from '../../selectors/account-json';
import type { AccountJsonReader, ThreadJsonReader, ThreadPageReader } from '../../selectors/thread-schema';
import { THREAD_JSON_READERS } from '../../selectors/thread-json';
import { THREAD_PAGE_READERS } from '../../selectors/thread-page';
import { assetLinks, pageAfter, pageQuery, pagesCut, parseThreadBody, readThreadJson, threadIdentity } from '../../page/threads/thread-json-reader';
import { checkPerplexityUrl, PERPLEXITY_HOME } from '../../protocol/urls';
import {
  accountBody,
  assetsOf,
  checkpointFrom,
  downloadFrom,
  type ModeLimit,
  modeLimitsFrom,
  modelsFrom,
  pageAssets,
  projectsFrom,
  threadPathFrom,
  transcriptFrom,
} from './thread-results';
import { checkThreadId, conversationIdOf, sameThreadId, showsThread, threadIdOfUrl, threadMovedError } from '../../protocol/threads/thread-ids';
import type { Lease, ThreadTabs } from './thread-tabs';
import { cliHint } from '../../protocol/identity';
import { exportThread, type Fetched, type LibraryFetch, listLibrary } from './library';
import { LIBRARY_JSON_READERS, type LibraryJsonReader } from '../../selectors/library/library-json';

/**
 * A perplexity.ai page from a path a reader gave (readers can be files a person added). Whatever the
 * reader says, a thread tab is never opened or navigated off perplexity.ai.
 */
function readerPage(path: string, field: string): string {
  let url: string;
  try {
    url = new URL(path, PERPLEXITY_HOME).href;
  } catch {
    url = path;
  }
  const check = checkPerplexityUrl(url);
  if (check.ok) return check.url;
  throw new RelayError(
    'CONFIG_ERROR',
    `${field} leads to ${url}, and ${check.reason}: thread tabs open on perplexity.ai only. Fix or remove the reader added as a file (${cliHint('selectors list', undefined)}).`,
  );
}

/**
 * Routes the `threads.*` and `account.*` methods: each thread call goes to the tab that shows the
 * thread (found by URL, or opened in the background), never to the tab the comet_* tools drive.
 * Calls on different threads run at the same time; on one thread, acting calls run one at a time
 * (ThreadTabs.serialise). Unknown threads fail with an error naming the thread_id.
 */
export interface PageRequests {
  /** Resolves once the tab's page script is ready; rejects with CANCELLED as soon as `signal` aborts. */
  whenReady(tabId: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  state(tabId: number): { url: string } | undefined;
  request(tabId: number, method: string, params: unknown, signal: AbortSignal, onProgress: (message: string) => void, trace?: Trace): Promise<unknown>;
}

export interface ThreadCallDeps {
  tabs: ThreadTabs;
  pages: PageRequests;
  /** Loads a tab again: one Chromium discarded or froze (Memory Saver) has no page script to answer. */
  reload?(tabId: number): Promise<void>;
  /** Loads a URL in a tab of ours (a thread found at another path). */
  navigate(tabId: number, url: string): Promise<void>;
  /** Tabs with our page script, any of them (account reads need only the origin). */
  connectedTabs(): number[];
  /** Each step a thread's wait streams (the side panel shows it live). */
  onStep?(threadId: string, step: string): void;
  /** The readers in use (built-in, or added as files), asked at each call. Default: the built-in ones. */
  readers?(): { page: ThreadPageReader; account: AccountJsonReader; json?: ThreadJsonReader; library?: LibraryJsonReader };
}

const READY_MS = 20_000;

/** A tab's reading with why the JSON did not answer through another tab, when the page answered instead. */
function withProblem(result: unknown, problem: string): unknown {
  const r = result as { reading?: ThreadReading; problem?: string } | undefined;
  if (r?.reading?.source !== 'page' || r.problem) return result;
  return { ...r, problem };
}
const ACTING = new Set(['threads.send', 'threads.respond']);
/**
 * Reads a thread's JSON answers whole: they go through any Perplexity tab already open (a
 * same-origin fetch), so reading many threads opens no tab (each real one costs a renderer of a
 * few hundred MB). Waits and state stay in the thread's tab: they follow the page live.
 */
const JSON_READS = new Set(['threads.read', 'threads.assets', 'threads.assetDownload']);

/** A read answered from the JSON through another tab, or why it could not be (the thread's tab answers then). */
type JsonRead = { ok: true; result: unknown } | { ok: false; problem: string };

type Params = Record<string, unknown>;

export class ThreadCalls {
  constructor(private readonly deps: ThreadCallDeps) {}

  private get reader(): ThreadPageReader {
    return this.deps.readers?.().page ?? (THREAD_PAGE_READERS[0] as ThreadPageReader);
  }

  private get account(): AccountJsonReader {
    return this.deps.readers?.().account ?? (ACCOUNT_JSON_READERS[0] as AccountJsonReader);
  }

  private get threadJson(): ThreadJsonReader {
    return this.deps.readers?.().json ?? (THREAD_JSON_READERS[0] as ThreadJsonReader);
  }

  private get libraryJson(): LibraryJsonReader {
    return this.deps.readers?.().library ?? (LIBRARY_JSON_READERS[0] as LibraryJsonReader);
  }

  handles(method: string): boolean {
    return method.startsWith('threads.') || method.startsWith('account.') || method.startsWith('library.');
  }

  /**
   * `trace` (the bench's profile) receives the page's and the port's times of a read by JSON.
   * `byPerson`: the person acts from the side panel, so their own tab that shows the thread may
   * take it (an agent's acting calls go only to tabs of ours, never into the person's).
   */
  async call(
    method: string,
    params: Params,
    signal: AbortSignal,
    progress: ProgressSink,
    trace?: Trace,
    byPerson = false,
    /** The person's policy again once an acting call has its turn on its thread (Read-only turned on meanwhile refuses it). */
    stillAllowed?: () => Promise<void>,
  ): Promise<unknown> {
    const cap = typeof params.tabCap === 'number' ? params.tabCap : 6;
    const { tabCap: _cap, ...forPage } = params;
    if (method === 'threads.start') return this.start(forPage, cap, signal, progress, stillAllowed);
    if (method === 'library.list' || method === 'library.thread') return this.library(method, forPage, cap, signal, trace);
    if (method === 'account.models') return modelsFrom(await this.accountJson(this.account.models.path, this.account.models.query ?? {}, 'the Computer models', cap, signal), this.account);
    if (method === 'account.projects') {
      const p = this.account.projects;
      const query = { [p.searchParam]: String(params.searchTerm ?? ''), [p.cursorParam]: String(params.cursor ?? '') };
      return projectsFrom(await this.accountJson(p.path, query, 'the Projects', cap, signal), this.account, PERPLEXITY_HOME);
    }
    const threadId = String(params.threadId ?? '');
    checkThreadId(threadId);
    const acts = ACTING.has(method);
    let jsonProblem: string | undefined;
    const result = await this.deps.tabs.serialise(threadId, acts, async () => {
      if (signal.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
      // A live page that shows the thread reads it best (it knows the page too); without one, the JSON through any tab.
      if (JSON_READS.has(method) && !this.shownInPage(threadId)) {
        const read = await this.readJson(method, threadId, cap, signal, trace);
        if (read.ok) return read.result;
        jsonProblem = read.problem;
      }
      // The person's policy once the act has its turn (before a tab is opened for it), and again when it goes, after its
      // tab (which may have had to load): Read-only or Require approval turned on meanwhile refuses it (review 10, router F4).
      if (acts) await stillAllowed?.();
      const lease = await this.tabFor(threadId, cap, acts && !byPerson, signal);
      const { tabId } = lease;
      try {
        if (acts) await stillAllowed?.();
        const tap = (message: string) => {
          this.deps.onStep?.(threadId, message);
          progress(message);
        };
        const answered = await this.deps.tabs.use(tabId, () => this.deps.pages.request(tabId, method, forPage, signal, tap));
        return jsonProblem ? withProblem(answered, jsonProblem) : answered;
      } finally {
        lease.release();
      }
    });
    // Bound to the thread asked for to the end: a reading of another conversation is never its answer.
    const reading = (result as { reading?: ThreadReading } | undefined)?.reading;
    if (reading && !sameThreadId(reading.threadId, threadId)) throw threadMovedError(threadId, reading.url, reading.threadId);
    switch (method) {
      case 'threads.wait':
      case 'threads.state':
        return checkpointFrom(result);
      case 'threads.read':
        return transcriptFrom(result, threadId, Number(params.maxChars ?? 100_000));
      case 'threads.assets':
        return pageAssets(assetsOf((result as { reading: ThreadReading }).reading), params as { entryId?: string; cursor?: string });
      case 'threads.assetDownload':
        return downloadFrom(result, threadId, String(params.assetId ?? ''));
      default:
        return result;
    }
  }

  /**
   * The library (lib/worker/threads/library.ts), fetched by any Perplexity tab: one of ours first, a
   * background one at home when none is open; never a navigation of the person's tab.
   */
  private async library(method: 'library.list' | 'library.thread', params: Params, cap: number, signal: AbortSignal, trace?: Trace): Promise<unknown> {
    const tabId = await this.anyTab(cap, signal);
    // The list's POST is the panel kit's (loaded into that tab when first asked); every GET is the page script's.
    const fetch: LibraryFetch = async ({ method, ...request }) =>
      (await this.deps.tabs.use(tabId, () => this.deps.pages.request(tabId, method === 'POST' ? 'library.post' : 'threads.fetch', request, signal, () => {}, trace))) as Fetched;
    const readers = { library: this.libraryJson, thread: this.threadJson };
    if (method === 'library.thread') return exportThread(String(params.thread ?? ''), fetch, readers, signal);
    const p = params as { query?: string; space?: string; limit: number; offset: number; since?: string };
    return listLibrary(p, fetch, readers);
  }

  /**
   * What the account's rate-limit status says of `mode`, fetched by `tabId` (the tab about to switch to it): undefined,
   * with no request made, for a mode the account reader maps no entry to, and when the body says nothing of it.
   */
  async modeLimit(tabId: number, mode: string, signal: AbortSignal): Promise<ModeLimit | undefined> {
    const limits = this.account.modeLimits;
    if (!limits?.modes[mode]) return undefined;
    return modeLimitsFrom(await this.accountJsonIn(tabId, limits.path, {}, "the account's mode limits", signal), this.account).modes[mode];
  }

  /** The account's JSON, fetched by any Perplexity tab (a background one of ours when none is open). */
  private async accountJson(path: string, query: Record<string, string>, what: string, cap: number, signal: AbortSignal): Promise<unknown> {
    const tabId = await this.anyTab(cap, signal);
    return this.deps.tabs.use(tabId, () => this.accountJsonIn(tabId, path, query, what, signal));
  }

  /** The account's JSON, fetched by `tabId` with the reader's headers. */
  private async accountJsonIn(tabId: number, path: string, query: Record<string, string>, what: string, signal: AbortSignal): Promise<unknown> {
    return accountBody(await this.deps.pages.request(tabId, 'threads.fetch', { path, query, headers: this.account.headers }, signal, () => {}), what, this.account);
  }

  /**
   * A thread read from its JSON, fetched by any Perplexity tab (one of ours at home when none is
   * open), shaped as the thread's own tab answers. Whatever the JSON cannot answer (no such id at
   * that endpoint, an empty or drifted body, a failed fetch) is said, and the thread's tab reads instead.
   */
  private async readJson(method: string, threadId: string, cap: number, signal: AbortSignal, trace?: Trace): Promise<JsonRead> {
    const r = this.threadJson;
    const tabId = await this.anyTab(cap, signal);
    const pages: unknown[] = [];
    const followed: string[] = [];
    let cursor: string | undefined;
    let next: string | null | undefined;
    for (let page = 0; page < r.request.maxPages; page++) {
      const query = pageQuery(r, cursor);
      if (cursor) followed.push(cursor);
      let fetched: { status: number; body: string };
      try {
        fetched = (await this.deps.tabs.use(tabId, () =>
          this.deps.pages.request(tabId, 'threads.fetch', { path: r.request.path.replace('{id}', encodeURIComponent(threadId)), query, headers: r.request.headers }, signal, () => {}, trace),
        )) as { status: number; body: string };
      } catch (error) {
        const e = RelayError.from(error);
        if (e.code === 'CANCELLED' || signal.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
        return { ok: false, problem: `the thread JSON could not be fetched through another Perplexity tab (${e.message})` };
      }
      const parsed = parseThreadBody(fetched.status, fetched.body, r, page);
      if (!parsed.ok) return { ok: false, problem: parsed.problem.message };
      pages.push(parsed.value);
      next = pageAfter(parsed.value, r.thread, followed);
      if (!next) break;
      cursor = next;
    }
    const cut = pagesCut(next, r);
    if (cut) return { ok: false, problem: cut.message };
    const reading = readThreadJson(pages, r, { threadId, url: this.threadUrl(pages[0], threadId) });
    if (method !== 'threads.assetDownload') return { ok: true, result: { reading } };
    const links = Object.fromEntries(pages.flatMap((p) => [...assetLinks(p, r)]));
    return { ok: true, result: { reading, links } };
  }

  /** The thread's page, from what its JSON says it is (the recent threads' paths by kind). */
  private threadUrl(body: unknown, threadId: string): string {
    const { uuid, slug, kind } = threadIdentity(body, this.threadJson);
    const paths = this.account.listRecent.threadPath;
    const template = paths[kind ?? ''] ?? paths.search ?? '/search/{slug}';
    const path = template.replace('{uuid}', encodeURIComponent(uuid ?? threadId)).replace('{slug}', encodeURIComponent(slug ?? threadId));
    // A reader added as a file may place it anywhere: the address given back is perplexity.ai's, whatever it says.
    const check = checkPerplexityUrl(new URL(path, PERPLEXITY_HOME).href);
    return check.ok ? check.url : new URL(`/computer/tasks/${encodeURIComponent(threadId)}`, PERPLEXITY_HOME).href;
  }

  /** A new thread: a background tab at home (or the Project's page), set up and submitted there. */
  private async start(params: Params, cap: number, signal: AbortSignal, progress: ProgressSink, stillAllowed?: () => Promise<void>): Promise<unknown> {
    const project = typeof params.projectUuid === 'string' ? params.projectUuid : undefined;
    if (project !== undefined) checkThreadId(project, 'project_uuid', 'projects_list');
    const url = project ? readerPage(this.reader.projectPath.replace('{uuid}', encodeURIComponent(project)), `${this.reader.name} projectPath`) : PERPLEXITY_HOME;
    // Held to the end: between its page's load, the mode switch and the submit, the cap must not close it.
    const lease = await this.deps.tabs.open(url, cap);
    const { tabId } = lease;
    let asked = false;
    try {
      await this.deps.pages.whenReady(tabId, READY_MS, signal);
      // Computer mode first, through the mode kit (loaded on demand): the threads kit, in every tab the thread tools
      // open, need not carry the mode's code for this one switch (2.85 kB gzip, measured 2026-12-05).
      await this.deps.tabs.use(tabId, () => this.deps.pages.request(tabId, 'page.mode', { mode: 'computer' }, signal, () => {}));
      // The tab's load and the mode switch took a while: the person's policy as it is now (review 10, router F4).
      await stillAllowed?.();
      asked = true;
      const result = (await this.deps.tabs.use(tabId, () => this.deps.pages.request(tabId, 'threads.start', params, signal, progress))) as
        | { threadId: string }
        | { notSent: true };
      // Refused before sending (credits, no access): no thread, so no tab to keep.
      if ('notSent' in result) await this.deps.tabs.discard(tabId);
      else this.deps.tabs.assign(tabId, result.threadId);
      return result;
    } catch (error) {
      const e = RelayError.from(error);
      // The tab's address names the new task: the prompt went out, and this is its thread. The tab is bound to it and
      // the caller gets its id, to wait on and read; the public door counts it as its own (review 15a, F2).
      const shown = this.deps.pages.state(tabId)?.url ?? '';
      // `/search/new` asks a new question and names no thread (review 15d, N2).
      const threadId = asked && conversationIdOf(shown) !== undefined ? threadIdOfUrl(shown) : undefined;
      if (threadId) {
        this.deps.tabs.assign(tabId, threadId);
        if (e.code === 'CANCELLED') throw e;
        const note = `The prompt went out and started thread_id "${threadId}", but comet-relay's call to its page failed after that (${e.message}); do not send the prompt again.`;
        return { threadId, url: shown, turn: 0, note };
      }
      // A prompt that went out started a task (credits): its tab stays, and the caller is told not to resend.
      if (asked && (await this.submittedIn(tabId))) {
        if (e.code === 'CANCELLED') throw e;
        // Not the side panel: it drops the card of a start that failed.
        throw new RelayError(
          'AGENT_ERROR',
          `The prompt was submitted in a background Perplexity tab, but comet-relay could not learn its thread_id (${e.message}). ` +
            "Do not send it again: the task is running; find it in Perplexity's history (the tab stays open).",
        );
      }
      await this.deps.tabs.discard(tabId);
      // A Project's page the page script cannot work in: most likely no such Project (the miss says what was looked for).
      if (project && e.code === 'SELECTOR_MISS') {
        throw new RelayError('INVALID_PARAMS', `project_uuid "${project}" matches no Project of this account, or its page ${url} is not one comet-relay can start a task on (${e.message}); projects_list lists them.`);
      }
      throw e;
    } finally {
      lease.release();
    }
  }

  /**
   * Whether the start in this tab submitted its prompt, its tab showing no thread: the page says it
   * sent; when the page cannot say (it hangs, the call was cut off), it counts as sent — a tab left
   * open costs less than a second task.
   */
  private async submittedIn(tabId: number): Promise<boolean> {
    try {
      const said = (await this.deps.pages.request(tabId, 'threads.submitted', {}, AbortSignal.timeout(3000), () => {})) as { submitted?: boolean };
      return said.submitted !== false;
    } catch {
      return true;
    }
  }

  /**
   * The tab for a thread: one that shows it (ours first; acting calls only in ours), else a new one of ours. It comes
   * held while it loads, for the caller to release when done with it.
   */
  private async tabFor(threadId: string, cap: number, acts: boolean, signal: AbortSignal): Promise<Lease> {
    const { tabs, pages } = this.deps;
    for (const tab of await tabs.showing(threadId)) {
      const id = tab.id as number;
      if (acts && !tabs.isOwned(id)) continue;
      const lease = tabs.hold(id);
      try {
        // A discarded or frozen tab keeps its URL but runs no script: bring it back instead of waiting 20 s for nothing.
        if ((tab.discarded || tab.frozen) && this.deps.reload) await this.deps.reload(id);
        await pages.whenReady(id, READY_MS, signal);
        return lease;
      } catch (error) {
        lease.release();
        throw error;
      }
    }
    const url = new URL(`/computer/tasks/${encodeURIComponent(threadId)}`, PERPLEXITY_HOME).href;
    const lease = await tabs.open(url, cap, threadId);
    const { tabId } = lease;
    try {
      await pages.whenReady(tabId, READY_MS, signal);
      const where = (await pages.request(tabId, 'threads.locate', { threadId }, signal, () => {})) as { found: boolean };
      // Not a task id: the recent threads may know it by uuid or slug, and which page shows it.
      const path = where.found ? undefined : await this.pathOf(tabId, threadId, signal);
      if (path && path !== new URL(url).pathname) {
        await this.deps.navigate(tabId, readerPage(path, `${this.account.name} listRecent.threadPath`));
        await pages.whenReady(tabId, READY_MS, signal);
      } else if (!where.found) {
        throw new RelayError('THREAD_NOT_FOUND', `thread_id "${threadId}" matches no Perplexity thread of this account (not at ${url}, not among the recent threads).`);
      }
      return lease;
    } catch (error) {
      lease.release();
      await tabs.discard(tabId);
      throw error;
    }
  }

  /**
   * Whether a tab with our page script shows the thread now, from what each page last told the
   * hub (its URL at load and at every in-page navigation), so choosing where to read asks the
   * browser nothing. A tab that shows it without a live script (loading, discarded, frozen) is
   * passed over: the JSON through another tab answers without waking it.
   */
  private shownInPage(threadId: string): boolean {
    return this.deps.connectedTabs().some((tabId) => showsThread(this.deps.pages.state(tabId)?.url, threadId));
  }

  /**
   * Where the recent threads list shows the thread, if they do. A list that could not be read says nothing of the
   * thread: that is said, never "no such thread" (day-2 review M4: a rate-limited list made a running task "failed").
   */
  private async pathOf(tabId: number, threadId: string, signal: AbortSignal): Promise<string | undefined> {
    const fetched = await this.deps.pages.request(tabId, 'threads.fetch', { path: this.account.listRecent.path, query: {}, headers: this.account.headers }, signal, () => {});
    let body: unknown;
    try {
      body = accountBody(fetched, 'the recent threads', this.account);
    } catch (error) {
      throw new RelayError(
        'AGENT_ERROR',
        `thread_id "${threadId}" is no Computer task id, and the recent threads that would say which thread it is could not be read (${RelayError.from(error).message}). Try again in a minute.`,
        // Before any tab was asked to act: nothing was sent.
        { notSent: true },
      );
    }
    return threadPathFrom(body, this.account, threadId);
  }

  /**
   * Any tab with our script, for reads by JSON: one of ours first (the person's tabs are left
   * alone when we can), else theirs; when no Perplexity tab is open at all, one background tab of
   * ours at home, opened once for every read waiting on it (reads start working at once, as the
   * person expects, and twenty reads cost one tab, not twenty).
   */
  private async anyTab(cap: number, signal: AbortSignal): Promise<number> {
    const { tabs, pages } = this.deps;
    const connected = this.deps.connectedTabs();
    const pick = connected.find((id) => tabs.isOwned(id)) ?? connected[0];
    if (pick !== undefined) return pick;
    if (!this.home) {
      const opening = tabs.open(PERPLEXITY_HOME, cap).then(async (lease) => {
        // Held while it loads: the reads waiting for it use it once it answers.
        try {
          await pages.whenReady(lease.tabId, READY_MS);
          return lease.tabId;
        } finally {
          lease.release();
        }
      });
      this.home = opening;
      // Once it answers (or fails), later reads look at the connected tabs again.
      const done = () => {
        if (this.home === opening) this.home = undefined;
      };
      void opening.then(done, done);
    }
    const home = this.home;
    return new Promise<number>((resolve, reject) => {
      const cancel = () => reject(new RelayError('CANCELLED', 'The call was cancelled.'));
      if (signal.aborted) return cancel();
      signal.addEventListener('abort', cancel, { once: true });
      home.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancel));
    });
  }

  private home?: Promise<number>;
}
