import { RelayError } from '../../protocol/error/relay-error';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';
import type { ThreadJsonReader, ThreadPageReader } from '../../selectors/thread-schema';
import type { PageContext } from '../dom/context';
import { assetLinks, type JsonProblem, pageAfter, pageQuery, pagesCut, parseThreadBody, readThreadJson } from './thread-json-reader';
import { readThreadDom, pageSaysNotFound, readTurnDom } from './thread-dom-reader';
import type { ThreadReading, TurnReading } from '../checkpoints/thread-model';
import { turnCountOf, turnsOf } from '../dom/turns';
import type { PageWatcher } from '../answer/observer';

/**
 * One tab's view of the thread it shows, from both sources: the web app's thread JSON (preferred
 * when it parses) and the page. The JSON is asked for only when the page shows a change, at most
 * once every `minIntervalMs` per thread, and never in a loop; an empty body means "later" (a
 * back-off), not "nothing". Which source answered is always said (`source`), and why the JSON did
 * not is kept in `lastProblem`.
 */
export interface SessionDeps {
  ctx(): PageContext;
  watcher: PageWatcher;
  /** The readers in use, asked at each use: a reader added as a file is used from the next read on. */
  json(): ThreadJsonReader;
  page(): ThreadPageReader;
  now?: () => number;
}

type JsonOutcome = { ok: true; reading: ThreadReading } | { ok: false; problem: JsonProblem };

/** A cheap fingerprint of the latest turn as the page shows it: equal means "nothing changed". */
function signature(reading: ThreadReading, size: number): string {
  const t = reading.turns.at(-1);
  return [reading.turnCount, t?.event, t?.steps.length, size, t?.interactions.map((i) => i.followupUuid).join(',')].join('|');
}

export class ThreadSession {
  private cache?: { at: number; signature: string; reading: ThreadReading };
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private backoffUntil = 0;
  /** When we last acted on the thread (sent, answered): JSON fetched before it is stale. */
  private actedAt = 0;
  /** Interactions we answered: JSON that still shows them waiting lags behind the page. */
  private readonly answered = new Set<string>();
  lastProblem?: string;
  /** Download links (and expiry, unix s) of the assets, as the last JSON read gave them. */
  private links = new Map<string, { url: string; expiresAt?: number }>();

  constructor(private readonly deps: SessionDeps) {}

  /** Whether the JSON calls an entry of this status finished (the reader in use, `values.entryComplete`). */
  entryDone(status: string): boolean {
    return (this.deps.json().values.entryComplete ?? []).includes(status);
  }

  lastAssetLinks(): Map<string, { url: string; expiresAt?: number }> {
    return this.links;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  get threadId(): string | undefined {
    return threadIdOfUrl(this.url);
  }

  /** The address the tab shows now. */
  get url(): string {
    return this.deps.ctx().doc.location?.href ?? '';
  }

  /** We changed the thread (a follow-up, an answer): older JSON no longer holds. */
  acted(answered?: string): void {
    this.actedAt = this.now();
    if (answered) this.answered.add(answered);
  }

  /** The page's reading, with the user's stops as our watcher saw them. */
  pageReading(): ThreadReading {
    const ctx = this.deps.ctx();
    const url = ctx.doc.location?.href ?? '';
    return readThreadDom(ctx, this.deps.page(), { threadId: this.threadId ?? '', stopped: (i) => this.deps.watcher.wasStopped(url, i) });
  }

  /** Only the latest turn from the page; `light` classifies without rendering the answer (a wait's every change). */
  latestFromPage(light = false): { reading: ThreadReading; turn?: TurnReading; size: number } {
    const ctx = this.deps.ctx();
    const turns = turnsOf(ctx.doc, ctx.set);
    // The page's own index: a long thread keeps only its latest answers mounted.
    const count = turnCountOf(turns);
    const url = ctx.doc.location?.href ?? '';
    const el = turns.at(-1);
    const stopped = this.deps.watcher.wasStopped(url, count - 1);
    const turn = el ? readTurnDom(ctx, this.deps.page(), el, el.index, { current: true, stopped, light }) : undefined;
    return {
      reading: { source: 'page', threadId: this.threadId ?? '', url, turnCount: count, turns: turn ? [turn] : [] },
      ...(turn ? { turn } : {}),
      size: el?.textContent?.length ?? 0,
    };
  }

  notFound(): boolean {
    const { doc, set } = this.deps.ctx();
    return turnsOf(doc, set).length === 0 && pageSaysNotFound(doc, this.deps.page());
  }

  /** Can the JSON be asked now (interval, back-off)? */
  mayFetch(): boolean {
    const now = this.now();
    return now >= this.backoffUntil && now - this.lastFetchAt >= this.deps.json().request.minIntervalMs;
  }

  /** When the JSON may be asked next (ms from now). */
  nextFetchIn(): number {
    const now = this.now();
    return Math.max(0, this.backoffUntil - now, this.lastFetchAt + this.deps.json().request.minIntervalMs - now);
  }

  /** Fetches every page of the thread's JSON (following the cursor) and reads it. */
  async fetchJson(signal?: AbortSignal): Promise<JsonOutcome> {
    const id = this.threadId;
    if (!id) return { ok: false, problem: { kind: 'invalid', message: 'this tab shows no thread yet' } };
    const r = this.deps.json();
    const { doc, win } = this.deps.ctx();
    const pages: unknown[] = [];
    const followed: string[] = [];
    let cursor: string | undefined;
    let next: string | null | undefined;
    for (let page = 0; page < r.request.maxPages; page++) {
      const url = new URL(r.request.path.replace('{id}', encodeURIComponent(id)), doc.location.origin);
      for (const [k, v] of Object.entries(pageQuery(r, cursor))) url.searchParams.set(k, v);
      if (cursor) followed.push(cursor);
      this.lastFetchAt = this.now();
      let status: number;
      let body: string;
      try {
        const res = await win.fetch(url.href, { headers: r.request.headers, credentials: 'include', cache: 'no-store', ...(signal ? { signal } : {}) });
        status = res.status;
        body = await res.text();
      } catch (e) {
        if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
        return this.problem({ kind: 'invalid', message: `the thread JSON could not be fetched (${(e as Error).message})` });
      }
      const parsed = parseThreadBody(status, body, r, page);
      if (!parsed.ok) {
        if (parsed.problem.kind === 'later') this.backoffUntil = this.now() + r.request.emptyBackoffMs;
        return this.problem(parsed.problem);
      }
      pages.push(parsed.value);
      next = pageAfter(parsed.value, r.thread, followed);
      if (!next) break;
      cursor = next;
    }
    const cut = pagesCut(next, r);
    if (cut) return this.problem(cut);
    const reading = readThreadJson(pages, r, { threadId: id, url: doc.location.href });
    this.links = new Map(pages.flatMap((p) => [...assetLinks(p, r)]));
    this.lastProblem = undefined;
    this.cache = { at: this.now(), signature: this.pageSignature(), reading };
    return { ok: true, reading };
  }

  private problem(problem: JsonProblem): JsonOutcome {
    this.lastProblem = problem.message;
    return { ok: false, problem };
  }

  /** The fingerprint of what the page shows now. */
  pageSignature(): string {
    const latest = this.latestFromPage(true);
    return signature(latest.reading, latest.size);
  }

  /**
   * Whether a JSON reading can stand for the thread now: taken after our last act, not behind the
   * page (it knows every turn the page shows), and not still waiting on something we answered.
   */
  usable(reading: ThreadReading, takenAt: number): boolean {
    if (takenAt < this.actedAt) return false;
    const page = this.latestFromPage(true).reading;
    if (reading.turnCount < page.turnCount) return false;
    const last = reading.turns.at(-1);
    // Read whole only then (a light read renders no answer text): does the page show that turn's steps or text?
    if (last && saysOnlyRunning(last) && saysMore(this.latestFromPage().reading.turns.at(-1), last.index)) return false;
    return !last?.interactions.some((i) => this.answered.has(i.followupUuid));
  }

  /** The JSON reading cached, if it still matches what the page shows. */
  cached(): ThreadReading | undefined {
    const c = this.cache;
    if (!c || !this.usable(c.reading, c.at)) return undefined;
    return c.signature === this.pageSignature() ? c.reading : undefined;
  }

  /**
   * The best reading now: fresh JSON when it may be asked, the cached JSON while the page has not
   * changed since, else the page. `full` reads every turn from the page (for transcripts).
   */
  async reading(options: { full?: boolean; signal?: AbortSignal } = {}): Promise<ThreadReading> {
    if (this.mayFetch()) {
      const outcome = await this.fetchJson(options.signal);
      if (outcome.ok && this.usable(outcome.reading, this.now())) return outcome.reading;
      if (!outcome.ok && outcome.problem.kind === 'missing' && this.latestFromPage().reading.turnCount === 0) {
        throw new RelayError('THREAD_NOT_FOUND', `thread_id "${this.threadId}" matches no Perplexity thread of this account (${outcome.problem.message}).`);
      }
    } else {
      const cached = this.cached();
      if (cached) return cached;
      if (!this.lastProblem) this.lastProblem = `the thread JSON was read less than ${Math.round(this.deps.json().request.minIntervalMs / 1000)} s ago`;
    }
    return options.full ? this.pageReading() : this.latestFromPage().reading;
  }
}

/**
 * A turn the JSON knows only as running: no steps, text, sources, files or questions. A search or research entry at
 * work carries almost nothing (perplexity-client's findings of 2026-08-01: PENDING, answer_tabs, pending_followups), which says nothing
 * of its steps or answer so far; it is not the fact "no steps, no answer" (review 2026-12-05 of the day's change, #10).
 */
function saysOnlyRunning(turn: TurnReading): boolean {
  return turn.event === null && !turn.answer.trim() && turn.steps.length === 0 && turn.sources.length === 0 && turn.files.length === 0 && turn.interactions.length === 0;
}

/** The page's reading of the same turn shows its steps or its text: the page says more than that JSON. */
function saysMore(page: TurnReading | undefined, index: number): boolean {
  return page !== undefined && page.index === index && (page.steps.length > 0 || page.answer.trim() !== '');
}
