import { questionKey } from '../../page/answer/question';
import type { ThreadJsonReader } from '../../selectors/thread-schema';
import { linkCitations } from '../../page/dom/cite-links';
import { answerText, firstString, pick } from '../../selectors/language/json-path';
import { RelayError } from '../../protocol/errors';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';
import { entryStatus } from '../../page/threads/entry-status';
import { pageAfter, pageQuery, pagesCut } from '../../page/threads/thread-json-reader';
import { cliHint } from '../../protocol/identity';

/**
 * comet_poll's and comet_wait's second source for a finished answer: the page's own thread JSON
 * (fetched by that tab, with its cookies, through the page script's `threads.fetch`; read here in
 * the worker, so the script every Perplexity page runs stays within its budget),
 * which holds the answer as the Markdown the model wrote (headings, lists, `[n]` citations), where
 * the page shows rendered text. The page stays the source of liveness: only a turn the page
 * reader calls completed is looked up, once (the endpoint rate-limits: bodies come back empty
 * after about 150 requests at one every 5 s), and the page's text answers whenever the JSON does
 * not (no thread in the URL, a fetch or shape problem, an entry that is not finished, another
 * question). The result says which answered.
 */
export type AnswerSource = 'stream' | 'json' | 'page';

/** What a finished poll or wait needs to be answered from the JSON. */
export interface FinishedTurn {
  url: string;
  turnIndex: number;
  questionText: string;
  /**
   * The answer as the page shows it now: which answer of this turn the JSON's must be. A turn the person
   * regenerated (or edited) shows another text at the same index and question, and is read again (review of
   * 2026-12-02, #4: the first answer kept coming back for the worker's life).
   */
  pageText?: string;
}

/**
 * A read is shared by every session asking of the same turn, but runs on the first asker's call: when that call ends
 * (cancelled, the host link gone), its failure is not the site's answer. It is not kept, and a session that joined it
 * asks again on its own call, however many did so before it; the session whose own read ended is told it cancelled
 * (worker review 2026-12-05, F1: one caller's cancel failed every poll of the turn for 30 s; day-7g H1, H3).
 */
const CALLER_GONE = Symbol('the call that asked ended');
/** What a read the asking call ended says, to that call (whose caller is gone) and to no other. */
const GONE_STATE: EntryState = { state: 'unknown', why: 'the call that asked ended' };
/** Whether a read failed because the call that asked ended (cancelled, the host link gone): not the site's answer. */
export const callerGone = (error: unknown) => ['CANCELLED', 'HOST_DISCONNECTED'].includes(RelayError.from(error).code);

interface Known {
  answer: Promise<string | undefined | typeof CALLER_GONE>;
  /** A read that failed may be tried again after this (ms since epoch); a read that worked is kept. */
  retryAt: number;
}

/** A same-origin JSON request made by the tab that answered the poll or wait. */
export type TabFetch = (path: string, query: Record<string, string>, headers: Record<string, string>) => Promise<{ status: number; body: string }>;

/** A thread JSON request: `path` with `{id}` where the thread's id goes. */
export interface JsonRequest {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
}

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim().slice(0, 40);
/**
 * A question as compared with the JSON's: by questionKey, as every other side compares questions (the Sep 2026 page
 * draws a prompt's Markdown rendered, the JSON holds it as typed; review 13d, 2), in any case, a fold's ellipsis dropped.
 */
const wholeQuestion = (s: string) => questionKey(s.replace(/\s*(?:…|\.\.\.)\s*$/, '')).toLowerCase();
/** The page's question is the JSON entry's question (the page may show only its beginning, folded). */
function sameQuestion(pageQuestion: string, jsonQuery: string): boolean {
  const page = wholeQuestion(pageQuestion);
  return page !== '' && wholeQuestion(jsonQuery).startsWith(page);
}
/** Which of a turn's answers the page shows: its opening words, enough to tell a regenerated answer apart. */
const fingerprint = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 160);
/**
 * The most turns whose answers, and whose entries' states, are kept (one thread's few and a few more): the maps stay
 * small however long the worker lives (a state holds its entry's whole answer: review 8, long-run #2).
 */
export const KEPT_ANSWERS = 200;

/** Sets `key`, letting go of the oldest turn first when the map holds KEPT_ANSWERS already. */
function keepCapped<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= KEPT_ANSWERS) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

export { linkCitations };

/**
 * What the thread JSON says of one turn's entry, for a turn whose page shows no sign of its state
 * (the page's PollResult.unconfirmed): finished with its answer, still running, or nothing to go on
 * (and why, for the SELECTOR_MISS that follows).
 */
export type EntryState =
  | { state: 'completed'; answer: string }
  | { state: 'stopped'; answer: string }
  | { state: 'failed'; error: string }
  | { state: 'running' }
  | { state: 'unknown'; why: string };

export function entryStateOf(entries: unknown[], turn: FinishedTurn, r: ThreadJsonReader): EntryState {
  const entry = entries[turn.turnIndex];
  if (entry === undefined) return { state: 'unknown', why: `it has no entry ${turn.turnIndex + 1} (it holds ${entries.length})` };
  const query = firstString(entry, r.entry.query) ?? '';
  // Only an entry known to be this turn's speaks for it: the page's whole question, not its first words (#13).
  if (!turn.questionText.trim()) return { state: 'unknown', why: `the page shows no question for turn ${turn.turnIndex + 1} to find its entry by` };
  if (!sameQuestion(turn.questionText, query)) {
    return { state: 'unknown', why: `its entry ${turn.turnIndex + 1} is another question ("${query.slice(0, 60)}")` };
  }
  const said = entryStatus(entry, r);
  // A cancelled workflow is a stopped turn (stopped before or while it wrote), never one still running.
  if (said === 'cancelled') return { state: 'stopped', answer: answerText(entry, r.entry.answer, r.entry.answerChunks) ?? '' };
  if (said === 'error') return { state: 'failed', error: firstString(entry, r.entry.errorMessage) ?? `the thread JSON says turn ${turn.turnIndex + 1} failed (${firstString(entry, r.entry.workflowStatus)})` };
  if (said === 'running') return { state: 'running' };
  const answer = said === 'complete' ? linkedAnswer(entry, r) : undefined;
  if (answer === undefined) {
    const status = firstString(entry, r.entry.status);
    return { state: 'unknown', why: `its entry ${turn.turnIndex + 1} has status ${status ?? 'none'}${said === 'complete' ? ' and no answer text' : ', none the reader knows as finished or running'}` };
  }
  return { state: 'completed', answer };
}

/** The finished answer of entry `index` in the thread JSON pages, or undefined when it is not there, not finished or another question. */
export function finishedAnswer(entries: unknown[], turn: FinishedTurn, r: ThreadJsonReader): string | undefined {
  const entry = entries[turn.turnIndex];
  if (entry === undefined) return undefined;
  const query = firstString(entry, r.entry.query) ?? '';
  // Templated prompts differ late ("Summarize this article: <url>"): the whole question, and none without one (#13).
  if (!sameQuestion(turn.questionText, query)) return undefined;
  return entryStatus(entry, r) === 'complete' ? linkedAnswer(entry, r) : undefined;
}

/** An entry's answer text with its citations linked to its sources; undefined when it has none. */
function linkedAnswer(entry: unknown, r: ThreadJsonReader): string | undefined {
  const answer = answerText(entry, r.entry.answer, r.entry.answerChunks) ?? '';
  if (!answer.trim()) return undefined;
  const urls = pick(entry, r.entry.sources).values.map((s) => firstString(s, r.source.url));
  return linkCitations(answer, urls);
}

/**
 * How long a finished poll or wait waits for the JSON before the page's text answers: a fetch that
 * stalls (a challenge page that never completes, a slow network) must not hold an answer the page
 * already shows until the client gives up and loses it. A fetch still running goes on and is kept:
 * the next poll or wait of that turn answers from it.
 */
export const JSON_ANSWER_BUDGET_MS = 3000;

/**
 * How soon a running entry is asked again, per turn: the endpoint answers empty bodies after about
 * 150 requests at one every 5 s (NOTES.md of the captures), so never faster than that.
 */
export const RUNNING_RECHECK_MS = 5000;

export class JsonAnswers {
  private known = new Map<string, Known>();
  private states = new Map<string, { state: Promise<EntryState>; retryAt: number }>();
  /** Requests made (for tests: one per finished turn). */
  requests = 0;

  constructor(
    private readonly reader: () => ThreadJsonReader,
    private readonly now: () => number = Date.now,
    private readonly budgetMs = JSON_ANSWER_BUDGET_MS,
  ) {}

  /** The first request a turn's answer is read with: the thread path (`{id}` for the thread's id), its query and headers. */
  firstRequest(): JsonRequest {
    const { path, query, headers } = this.reader().request;
    return { path, query, headers };
  }

  /** The JSON's answer of a finished turn, or undefined (the page's text stands). Keyed by thread, not by tab. */
  answerOf(turn: FinishedTurn, fetch: TabFetch): Promise<string | undefined> {
    // The thread-id rule every layer uses: only an https perplexity.ai conversation URL names one.
    const ref = threadIdOfUrl(turn.url);
    if (!ref || turn.turnIndex < 0) return Promise.resolve(undefined);
    const key = `${ref}#${turn.turnIndex}#${squash(turn.questionText)}#${fingerprint(turn.pageText)}`;
    const known = this.known.get(key);
    if (known && this.now() < known.retryAt) return known.answer.then((answer) => (answer === CALLER_GONE ? this.answerOf(turn, fetch) : answer));
    const entry: Known = { answer: Promise.resolve(undefined), retryAt: Number.POSITIVE_INFINITY };
    entry.answer = this.read(ref, turn, fetch).then(
      (answer) => {
        if (answer === undefined) entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return answer;
      },
      (error: unknown) => {
        if (callerGone(error)) {
          if (this.known.get(key) === entry) this.known.delete(key);
          return CALLER_GONE;
        }
        entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return undefined;
      },
    );
    keepCapped(this.known, key, entry);
    return entry.answer.then((answer) => (answer === CALLER_GONE ? undefined : answer));
  }

  /**
   * What the JSON says of a turn the page shows no sign of, within the endpoint's limits: a finished
   * entry is kept, a running one asked again after RUNNING_RECHECK_MS, a failed read after the
   * reader's emptyBackoffMs.
   */
  entryState(turn: FinishedTurn, fetch: TabFetch): Promise<EntryState> {
    const ref = threadIdOfUrl(turn.url);
    if (!ref) return Promise.resolve({ state: 'unknown', why: `${turn.url} names no thread to ask for` });
    if (turn.turnIndex < 0) return Promise.resolve({ state: 'unknown', why: 'the page shows no turn' });
    const key = `${ref}#${turn.turnIndex}#${squash(turn.questionText)}`;
    const known = this.states.get(key);
    if (known && this.now() < known.retryAt) return known.state.then((state) => (state === GONE_STATE ? this.entryState(turn, fetch) : state));
    const entry = { state: Promise.resolve<EntryState>({ state: 'unknown', why: 'not read yet' }), retryAt: Number.POSITIVE_INFINITY };
    entry.state = this.entries(ref, turn, fetch).then(
      (read) => {
        const state = 'why' in read ? ({ state: 'unknown', why: read.why } as const) : entryStateOf(read.entries, turn, this.reader());
        if (state.state === 'running') entry.retryAt = this.now() + RUNNING_RECHECK_MS;
        else if (state.state === 'unknown') entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return state;
      },
      (error: unknown) => {
        if (callerGone(error)) {
          if (this.states.get(key) === entry) this.states.delete(key);
          return GONE_STATE;
        }
        entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return { state: 'unknown', why: `the request failed (${error instanceof Error ? error.message : String(error)})` };
      },
    );
    keepCapped(this.states, key, entry);
    return entry.state.then((state) => {
      // This call's own read ended with it: it cancelled, which is not a page the selector set failed to read (day-7g H3).
      if (state === GONE_STATE) throw new RelayError('CANCELLED', 'The call was cancelled.');
      return state;
    });
  }

  /**
   * The thread's entries up to the turn's, page by page as every reader of the thread pages it (pageQuery, pageAfter:
   * `limit` 100 after the first page, a cursor met before never read again; review 15e, F5), or why there are none.
   */
  private async entries(ref: string, turn: FinishedTurn, fetch: TabFetch): Promise<{ entries: unknown[] } | { why: string }> {
    const r = this.reader();
    const path = r.request.path.replace('{id}', encodeURIComponent(ref));
    const entries: unknown[] = [];
    const followed: string[] = [];
    let cursor: string | undefined;
    let next: string | null | undefined;
    for (let page = 0; page < r.request.maxPages && entries.length <= turn.turnIndex; page++) {
      if (cursor) followed.push(cursor);
      this.requests += 1;
      const res = await fetch(path, pageQuery(r, cursor), r.request.headers);
      if (res.status >= 400) return { why: `it answered HTTP ${res.status}` };
      if (!res.body.trim()) return { why: 'it answered an empty body (rate-limited?)' };
      const value = JSON.parse(res.body) as unknown;
      const list = pick(value, r.thread.entries).values[0];
      if (!Array.isArray(list)) return { why: `it holds no entries where the reader ${r.name} looks` };
      entries.push(...list);
      next = pageAfter(value, r.thread, followed);
      if (!next) break;
      cursor = next;
    }
    // Short of the turn's entry, pages that are not the whole thread say so, rather than "it has no entry".
    const cut = entries.length <= turn.turnIndex ? pagesCut(next, r) : undefined;
    return cut ? { why: cut.message } : { entries };
  }

  private async read(ref: string, turn: FinishedTurn, fetch: TabFetch): Promise<string | undefined> {
    const read = await this.entries(ref, turn, fetch);
    return 'why' in read ? undefined : finishedAnswer(read.entries, turn, this.reader());
  }

  /**
   * A poll or wait result with the finished answer taken from the JSON when it has it, cut to
   * `maxLength` like the page's; `answerSource` says which answered.
   */
  async answer<T extends { status: string; response: string; truncated: boolean; totalLength: number; url: string; questionText: string; unconfirmed?: string }>(
    result: T,
    turnIndex: number,
    maxLength: number | undefined,
    fetch: TabFetch,
  ): Promise<T & { answerSource: AnswerSource; stillRunning?: true }> {
    // Read from the page's own ask stream (its final frame's Markdown): the site's word, nothing to ask again.
    if ((result as { answerSource?: string }).answerSource === 'stream') return { ...result, answerSource: 'stream' };
    if (result.unconfirmed !== undefined) return this.confirm(result, turnIndex, maxLength, fetch);
    if (result.status !== 'completed') return { ...result, answerSource: 'page' };
    const markdown = await withinBudget(this.answerOf({ url: result.url, turnIndex, questionText: result.questionText, pageText: result.response }, fetch), this.budgetMs);
    if (markdown === undefined) return { ...result, answerSource: 'page' };
    const cut = maxLength !== undefined && markdown.length > maxLength;
    return { ...result, response: cut ? markdown.slice(0, maxLength) : markdown, truncated: cut, totalLength: markdown.length, answerSource: 'json' };
  }

  /**
   * A turn whose page showed no sign of its state: the JSON's entry decides. Finished: completed,
   * with its answer. Running: still working (a wait's caller waits on; `stillRunning` says so).
   * Neither: the page's SELECTOR_MISS, with what the JSON said — never a plausible status.
   */
  private async confirm<T extends { status: string; response: string; truncated: boolean; totalLength: number; url: string; questionText: string; unconfirmed?: string }>(
    result: T,
    turnIndex: number,
    maxLength: number | undefined,
    fetch: TabFetch,
  ): Promise<T & { answerSource: AnswerSource; stillRunning?: true }> {
    const { unconfirmed, ...rest } = result;
    const turn = { url: result.url, turnIndex, questionText: result.questionText };
    const state = (await withinBudget(this.entryState(turn, fetch), this.budgetMs)) ?? {
      state: 'unknown' as const,
      why: `it did not answer within ${this.budgetMs / 1000} s`,
    };
    if (state.state === 'completed') return { ...withAnswer(rest as unknown as T, state.answer, maxLength), status: 'completed', answerSource: 'json' };
    // The JSON says the turn failed: a poll says so as the page does (idle, with its error), a wait ends with it.
    if (state.state === 'failed') return { ...(rest as unknown as T), status: 'lastTurnIndex' in rest ? 'idle' : 'error', error: state.error, answerSource: 'json' };
    if (state.state === 'stopped') {
      // The JSON says the turn was stopped: a poll says so beside `completed` (its way), a wait says `stopped`.
      const base = state.answer.trim() ? withAnswer(rest as unknown as T, state.answer, maxLength) : (rest as unknown as T);
      const source: AnswerSource = state.answer.trim() ? 'json' : 'page';
      return 'lastTurnIndex' in rest ? { ...base, status: 'completed', stopped: true, answerSource: source } : { ...base, status: 'stopped', answerSource: source };
    }
    // A poll has lastTurnIndex; a wait's caller ran out of page signs, not of time: the router waits on.
    if (state.state === 'running') return { ...(rest as unknown as T), status: 'lastTurnIndex' in rest ? 'working' : 'timeout', answerSource: 'page', stillRunning: true };
    throw new RelayError(
      'SELECTOR_MISS',
      `${unconfirmed}: the page shows neither that this turn is still written nor that it is done, and the thread JSON could not say either (${state.why}) — ` +
        UNREAD_TURN_STEP,
    );
  }
}

/** What to do about a page whose turn the selector set cannot read (the worker's error line adds the CLI's form). */
export const UNREAD_TURN_STEP = `add a selector set that knows this page (${cliHint('selectors add FILE', undefined)}), or save it with ${cliHint('capture', undefined)} and report it`;

/** Sets the JSON's answer as the result's response, cut to `maxLength` like the page's. */
function withAnswer<T extends { response: string; truncated: boolean; totalLength: number }>(result: T, markdown: string, maxLength: number | undefined): T {
  const cut = maxLength !== undefined && markdown.length > maxLength;
  return { ...result, response: cut ? markdown.slice(0, maxLength) : markdown, truncated: cut, totalLength: markdown.length };
}

/** The promise's value, or undefined once `ms` passed first (the promise runs on). */
function withinBudget<T>(promise: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What the page's early `threads.fetch` answers: the response and the path it asked, or that it asked nothing. */
interface EarlyReply {
  status: number;
  body: string;
  asked?: string;
  skipped?: true;
}

const sameStrings = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/**
 * comet_wait's thread JSON asked for the moment the page sees the turn end, not once the wait's
 * result has reached the worker: a `threads.fetch` sent ahead of the wait (`afterWait: key`; the
 * wait carries `jsonKey: key`) that the page holds until its wait ends, then fetches while the turn
 * is read and the result travels (lib/page/handlers.ts). The answer is still made here, from the
 * body, by the same rules (JsonAnswers): the early response answers only the one request it is,
 * the first a finished turn is read with, asked after the wait's result came (a repair's read
 * before the wait must not wait on a wait not yet sent); anything else is fetched as ever. Its
 * lifetime is the caller's: cancelled with the call, and when the call ends without taking it
 * (the wait ended another way, or its answer was known), in the page too; once taken it is a
 * fetch like any other (one the budget gave up on runs on, and the next read takes it).
 */
export class EarlyJson {
  readonly key = crypto.randomUUID();
  private readonly controller = new AbortController();
  private readonly reply: Promise<EarlyReply>;
  private state: 'sent' | 'open' | 'taken' | 'ended' = 'sent';
  /** The page's and the port's moments for the early fetch (the bench's trace), given to the fetch that takes it. */
  readonly trace: Record<string, number> | undefined;

  constructor(
    private readonly request: JsonRequest,
    post: (params: JsonRequest & { afterWait: string }, signal: AbortSignal, trace?: Record<string, number>) => Promise<unknown>,
    signal: AbortSignal,
    traced = false,
  ) {
    this.trace = traced ? {} : undefined;
    const onAbort = () => this.controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    this.reply = (post({ ...request, afterWait: this.key }, this.controller.signal, this.trace) as Promise<EarlyReply>).finally(() => signal.removeEventListener('abort', onAbort));
    this.reply.catch(() => {}); // a rejection nobody takes (the call ended first) is not a crash
  }

  /** The wait's result came: the early response may answer from now on. */
  open(): void {
    if (this.state === 'sent') this.state = 'open';
  }

  /**
   * The early response, when `path`/`query`/`headers` is the request it made and it made it; else
   * undefined, and the caller fetches. Throws what the page's fetch threw, as a fetch would.
   */
  async take(path: string, query: Record<string, string>, headers: Record<string, string>): Promise<{ status: number; body: string } | undefined> {
    if (this.state !== 'open' || !sameStrings(query, this.request.query) || !sameStrings(headers, this.request.headers)) return undefined;
    this.state = 'taken';
    const reply = await this.reply;
    return reply.skipped || reply.asked !== path ? undefined : { status: reply.status, body: reply.body };
  }

  /** The call is over: an early read nobody took is cancelled, in the page too. */
  end(): void {
    if (this.state !== 'taken') this.controller.abort();
    this.state = 'ended';
  }
}
