import type { ThreadJsonReader } from '../../selectors/thread-schema';
import { firstString, pick, strings } from '../../page/threads/json-path';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';

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
export type AnswerSource = 'json' | 'page';

/** What a finished poll or wait needs to be answered from the JSON. */
export interface FinishedTurn {
  url: string;
  turnIndex: number;
  questionText: string;
}

interface Known {
  answer: Promise<string | undefined>;
  /** A read that failed may be tried again after this (ms since epoch); a read that worked is kept. */
  retryAt: number;
}

/** A same-origin JSON request made by the tab that answered the poll or wait. */
export type TabFetch = (path: string, query: Record<string, string>, headers: Record<string, string>) => Promise<{ status: number; body: string }>;

const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim().slice(0, 40);

/** `[n]` citations turned into Markdown links to the n-th source (citations already linked stay). */
export function linkCitations(markdown: string, urls: readonly (string | undefined)[]): string {
  return markdown.replace(/\[(\d{1,3})\](?!\()/g, (whole, n: string) => {
    const url = urls[Number(n) - 1];
    return url ? `[${n}](${url})` : whole;
  });
}

/** The finished answer of entry `index` in the thread JSON pages, or undefined when it is not there, not finished or another question. */
export function finishedAnswer(entries: unknown[], turn: FinishedTurn, r: ThreadJsonReader): string | undefined {
  const entry = entries[turn.turnIndex];
  if (entry === undefined) return undefined;
  const query = firstString(entry, r.entry.query) ?? '';
  if (turn.questionText.trim() && !squash(query).startsWith(squash(turn.questionText).slice(0, 20))) return undefined;
  const status = firstString(entry, r.entry.status);
  if (status !== undefined && r.values.entryRunning.includes(status)) return undefined;
  const workflow = firstString(entry, r.entry.workflowStatus);
  if (workflow !== undefined && !r.values.workflow.complete.includes(workflow)) return undefined;
  const answer = firstString(entry, r.entry.answer) ?? strings(entry, r.entry.answerChunks).join('');
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

export class JsonAnswers {
  private known = new Map<string, Known>();
  /** Requests made (for tests: one per finished turn). */
  requests = 0;

  constructor(
    private readonly reader: () => ThreadJsonReader,
    private readonly now: () => number = Date.now,
    private readonly budgetMs = JSON_ANSWER_BUDGET_MS,
  ) {}

  /** The JSON's answer of a finished turn, or undefined (the page's text stands). Keyed by thread, not by tab. */
  answerOf(turn: FinishedTurn, fetch: TabFetch): Promise<string | undefined> {
    // The thread-id rule every layer uses: only an https perplexity.ai conversation URL names one.
    const ref = threadIdOfUrl(turn.url);
    if (!ref || turn.turnIndex < 0) return Promise.resolve(undefined);
    const key = `${ref}#${turn.turnIndex}#${squash(turn.questionText)}`;
    const known = this.known.get(key);
    if (known && this.now() < known.retryAt) return known.answer;
    const entry: Known = { answer: Promise.resolve(undefined), retryAt: Number.POSITIVE_INFINITY };
    entry.answer = this.read(ref, turn, fetch).then(
      (answer) => {
        if (answer === undefined) entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return answer;
      },
      () => {
        entry.retryAt = this.now() + this.reader().request.emptyBackoffMs;
        return undefined;
      },
    );
    this.known.set(key, entry);
    return entry.answer;
  }

  private async read(ref: string, turn: FinishedTurn, fetch: TabFetch): Promise<string | undefined> {
    const r = this.reader();
    const path = r.request.path.replace('{id}', encodeURIComponent(ref));
    const entries: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < r.request.maxPages && entries.length <= turn.turnIndex; page++) {
      this.requests += 1;
      const res = await fetch(path, { ...r.request.query, ...(cursor ? { [r.request.cursorParam]: cursor } : {}) }, r.request.headers);
      if (res.status >= 400 || !res.body.trim()) return undefined;
      const value = JSON.parse(res.body) as unknown;
      const list = pick(value, r.thread.entries).values[0];
      if (!Array.isArray(list)) return undefined;
      entries.push(...list);
      cursor = firstString(value, r.thread.nextCursor);
      if (!cursor) break;
    }
    return finishedAnswer(entries, turn, r);
  }

  /**
   * A poll or wait result with the finished answer taken from the JSON when it has it, cut to
   * `maxLength` like the page's; `answerSource` says which answered.
   */
  async answer<T extends { status: string; response: string; truncated: boolean; totalLength: number; url: string; questionText: string }>(
    result: T,
    turnIndex: number,
    maxLength: number | undefined,
    fetch: TabFetch,
  ): Promise<T & { answerSource: AnswerSource }> {
    if (result.status !== 'completed') return { ...result, answerSource: 'page' };
    const markdown = await withinBudget(this.answerOf({ url: result.url, turnIndex, questionText: result.questionText }, fetch), this.budgetMs);
    if (markdown === undefined) return { ...result, answerSource: 'page' };
    const cut = maxLength !== undefined && markdown.length > maxLength;
    return { ...result, response: cut ? markdown.slice(0, maxLength) : markdown, truncated: cut, totalLength: markdown.length, answerSource: 'json' };
  }
}

/** The promise's value, or undefined once `ms` passed first (the promise runs on). */
function withinBudget<T>(promise: Promise<T | undefined>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
