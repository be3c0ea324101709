import { RelayError } from '../../protocol/errors';
import { type RepairInfo, RepairResult, type RepairTurn } from '../../protocol/page/page-repair';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';
import { entryStatus } from '../../page/threads/entry-status';
import { pageAfter, pageQuery, rateLimitedPage } from '../../page/threads/thread-json-reader';
import { markdownWords, showsExactly } from '../../page/kits/repair-text';
import { answerText, firstString, pick } from '../../selectors/language/json-path';
import type { ThreadJsonReader } from '../../selectors/thread-schema';
import { callerGone, type TabFetch } from '../threads/json-answer';
import { cliHint } from '../../protocol/identity';

/**
 * The worker's end of a repair (issue 24; the page's end is lib/page/kits/repair-kit.ts). Around
 * comet_poll's, comet_wait's and comet_get_sources' page calls: when the reader misses on a
 * conversation page (no turn, or a finished turn with no answer), the thread JSON's finished turns
 * are read through the same tab, once per attempt and within the endpoint's limits, and handed to
 * the page, which derives, verifies and uses a reading set, or says why it could not. A page the
 * reader reads costs nothing more than a poll did; a miss nobody could repair fails with
 * `[SELECTOR_MISS]` naming the probe and why the repair failed.
 */
/** The page methods this wraps: they read, and may read through a repair. */
export const REPAIRABLE = new Set(['page.poll', 'page.wait', 'page.sources']);

/** A page call in the tab being read (the repair kit's methods go through it, and are loaded by it). */
export type PageCall = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** The thread JSON's finished turns with answer text, in the shape the page takes. */
export function finishedTurns(entries: readonly unknown[], r: ThreadJsonReader): RepairTurn[] {
  const out: RepairTurn[] = [];
  for (const [index, entry] of entries.entries()) {
    // Positive evidence only: an entry that does not say it is finished is not taken as finished.
    if (entryStatus(entry, r) !== 'complete') continue;
    const answer = answerText(entry, r.entry.answer, r.entry.answerChunks) ?? '';
    if (!answer.trim()) continue;
    const sources = pick(entry, r.entry.sources)
      .values.map((s) => firstString(s, r.source.url))
      .filter((u): u is string => typeof u === 'string' && u.length <= 4000)
      .slice(0, 500);
    out.push({ index, question: firstString(entry, r.entry.query) ?? '', answer, sources });
  }
  return out;
}

/**
 * How long a thread JSON's word that a turn is being written holds while the JSON cannot be asked (its rate limit, a
 * moment's failure): a minute, or until it may be asked again when that is later, never past five minutes.
 */
const RUNNING_HELD_MS = 60_000;
const RUNNING_HELD_MAX_MS = 300_000;

/** Whether a poll shows the reader's miss: a conversation page with no turn, or a finished turn with no answer. */
function pollMiss(result: unknown): { probe: string; turnIndex: number; ref?: string } | null {
  const poll = result as { url?: string; turnCount?: number; status?: string; response?: string; lastTurnIndex?: number; repair?: string };
  const ref = threadIdOfUrl(poll.url);
  if (!ref || poll.repair) return null;
  if (poll.turnCount === 0) return { probe: 'turn', turnIndex: -1, ref };
  if (poll.status !== 'working' && poll.response === '' && (poll.lastTurnIndex ?? -1) >= 0) return { probe: 'answer', turnIndex: poll.lastTurnIndex as number };
  return null;
}

/** The probe a `[SELECTOR_MISS]` names first (`turn: none of … matched …`). */
function probeOf(message: string): string {
  return /^([A-Za-z]+):/.exec(message)?.[1] ?? 'turn';
}

export class Repairs {
  /** Thread → when its JSON may be asked again (ms since epoch). */
  private nextAsk = new Map<string, number>();
  /** JSON reads made (for tests: at most one per attempt). */
  requests = 0;
  /** `tab url` pairs whose page the reader read (most recent last, a few hundred at most). */
  private fine = new Set<string>();
  /** Thread → when its JSON last said its last turn is being written (a few hundred threads at most). */
  private runningAt = new Map<string, number>();

  private remember(seen: string): void {
    this.fine.add(seen);
    if (this.fine.size > 256) this.fine.delete(this.fine.values().next().value as string);
  }

  /** The repair each tab reads through, as its page last reported it (the side panel shows the driven tab's). */
  private inUse = new Map<number, RepairInfo>();

  constructor(
    private readonly reader: () => ThreadJsonReader,
    private readonly now: () => number = Date.now,
    /** Told when a tab's repair is made or dropped. */
    private readonly onChange: () => void = () => {},
  ) {}

  /** The repair tab `tabId` reads through, if one was made there. */
  of(tabId: number): (RepairInfo & { tabId: number }) | null {
    const info = this.inUse.get(tabId);
    return info ? { ...info, tabId } : null;
  }

  /** The tab's repair was undone (or the tab is gone). */
  forget(tabId: number): void {
    if (this.inUse.delete(tabId)) this.onChange();
  }

  private note(tabId: number | undefined, info: RepairInfo | 'fine' | 'running' | null): void {
    if (tabId === undefined || !isRepair(info)) return;
    const known = this.inUse.get(tabId);
    this.inUse.set(tabId, info);
    if (known?.derivedAt !== info.derivedAt || known.url !== info.url) this.onChange();
  }

  /**
   * Runs a reading page call with a repair around it: before comet_wait's and comet_get_sources'
   * (a wait on a page whose turns cannot be seen would only time out), after comet_poll's.
   */
  async read(method: string, run: () => Promise<unknown>, page: PageCall, fetch: TabFetch, where?: { tabId: number; url?: string }): Promise<unknown> {
    // Asked first only on a conversation page not yet seen read well: a tab that read fine keeps its URL's answer.
    const seen = where ? `${where.tabId} ${where.url ?? ''}` : '';
    if (method !== 'page.poll' && threadIdOfUrl(where?.url) && !this.fine.has(seen)) {
      const outcome = await this.ensure(page, fetch);
      if (outcome === 'fine' && seen) this.remember(seen);
      this.note(where?.tabId, outcome);
    }
    let result: unknown;
    try {
      result = await run();
    } catch (error) {
      const err = RelayError.from(error);
      if (err.code !== 'SELECTOR_MISS' || method !== 'page.poll') throw error;
      // The page knows it misses (answer prose with no turn): a repair may still find the turns.
      const outcome = await this.ensure(page, fetch, probeOf(err.message), err);
      if (outcome === 'fine') return run(); // its turns drawn while the kit waited: read again, nothing to repair
      if (!isRepair(outcome)) throw error;
      this.note(where?.tabId, outcome);
      return run();
    }
    const miss = method === 'page.poll' ? pollMiss(result) : null;
    if (!miss) return result;
    const outcome = await this.ensure(page, fetch, miss.probe, undefined, miss.turnIndex, miss.ref);
    // 'fine': the page drew its turns while the kit waited for them (a thread just opened): the poll taken before is stale.
    if (outcome === 'fine') return run();
    // No turn drawn, and the thread JSON says its last turn is being written: working, on the JSON's word, never the
    // `idle` the page's want of a turn would say (page review 2026-12-05, F2).
    if (outcome === 'running') return { ...(result as object), status: 'working' };
    if (!isRepair(outcome)) return result;
    this.note(where?.tabId, outcome);
    return run();
  }

  /**
   * A finished answer the page reads otherwise than the thread JSON has it: a repair is tried, once
   * per page load and layout like any other. Best effort: when none is made, the JSON's answer stands
   * and nothing fails. Returns the call's result read through the repair, or null.
   */
  async onDisagreement(
    read: { response: string; truncated: boolean; repair?: string },
    answered: { response: string; truncated: boolean; answerSource: string },
    turnIndex: number,
    run: () => Promise<unknown>,
    page: PageCall,
    fetch: TabFetch,
    where?: { tabId: number; url?: string },
  ): Promise<unknown | null> {
    if (answered.answerSource !== 'json' || read.repair || read.truncated || answered.truncated) return null;
    if (showsExactly(markdownWords(answered.response), markdownWords(read.response).join(''))) return null;
    try {
      const outcome = await this.ensure(page, fetch, 'answer', undefined, turnIndex);
      if (!isRepair(outcome)) return null;
      this.note(where?.tabId, outcome);
      return await run();
    } catch {
      return null;
    }
  }

  /**
   * A repair in use on the page, made now if the reader misses and one is due; null when the reader
   * reads the page, or when nothing vouches that it should show more (the JSON has no finished turn
   * there). Throws `[SELECTOR_MISS]` when a repair was tried and failed.
   */
  private async ensure(page: PageCall, fetch: TabFetch, probe?: string, original?: RelayError, turnIndex?: number, polled?: string): Promise<RepairInfo | 'fine' | 'running' | null> {
    const check = RepairResult.parse(await page('page.repair', probe ? { probe } : {}));
    if (check.status === 'fine') return 'fine';
    if (check.status === 'repaired') return check.repair ?? null;
    if (check.status === 'tried' || check.status === 'failed') throw failed(check.probe ?? probe ?? 'turn', check.reason, check.url, original);
    const missed = check.probe ?? probe ?? 'turn';
    const url = check.url ?? '';
    const ref = threadIdOfUrl(url);
    if (!ref) return null;
    const json = await this.jsonTurns(ref, fetch);
    const turns = json?.turns;
    if (!turns || turns.length === 0) {
      // No finished turn to repair with. No turn drawn on the thread polled (not one the tab went to since), and its
      // JSON says its last turn is being written — now, or at its last answer while it may not be asked again
      // (day-7c review R1–R3): `running`. Else the JSON vouches for nothing here: the page's own result stands.
      const at = this.runningAt.get(ref);
      const until = at === undefined ? 0 : Math.min(at + RUNNING_HELD_MAX_MS, Math.max(at + RUNNING_HELD_MS, this.nextAsk.get(ref) ?? 0));
      const running = json ? json.lastRunning : this.now() < until;
      return running && turnIndex === -1 && ref === polled ? 'running' : null;
    }
    if (turnIndex !== undefined && turnIndex >= 0 && !turns.some((t) => t.index === turnIndex)) return null;
    const done = RepairResult.parse(await page('page.repair', { turns, probe: missed }));
    if (done.status === 'repaired') return done.repair ?? null;
    throw failed(missed, done.status === 'failed' ? `${done.probe}: ${done.reason}` : done.reason, url, original);
  }

  /**
   * The thread JSON's finished turns, and whether its last entry says it is being written; undefined when it may
   * not be asked yet, or could not be read.
   */
  private async jsonTurns(ref: string, fetch: TabFetch): Promise<{ turns: RepairTurn[]; lastRunning: boolean } | undefined> {
    const r = this.reader();
    const now = this.now();
    if (now < (this.nextAsk.get(ref) ?? 0)) return undefined;
    this.nextAsk.set(ref, now + r.request.minIntervalMs);
    const path = r.request.path.replace('{id}', encodeURIComponent(ref));
    const entries: unknown[] = [];
    const followed: string[] = [];
    let cursor: string | undefined;
    try {
      for (let n = 0; n < r.request.maxPages; n++) {
        if (cursor) followed.push(cursor);
        this.requests += 1;
        const res = await fetch(path, pageQuery(r, cursor), r.request.headers);
        // What ends the JSON's earlier word: the thread gone or out of reach (a 4xx but its rate limit's 429), or a
        // thread with no entries. Anything else (empty, a 429, a 5xx, a failed fetch, a page mid-navigation) is a
        // moment's failure, asked again later, the word held meanwhile (day-7e review E1).
        if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new GoneThread(`HTTP ${res.status}`);
        if (res.status >= 400 || !res.body.trim()) throw new Error(`HTTP ${res.status}`);
        const value = JSON.parse(res.body) as unknown;
        const list = pick(value, r.thread.entries).values[0];
        if (!Array.isArray(list)) throw new GoneThread('no entries');
        // A first page with no entries is the endpoint's rate limit, never a thread of no turns (day-7f review G2).
        if (rateLimitedPage(n, list)) throw new Error('rate-limited');
        entries.push(...list);
        const next = pageAfter(value, r.thread, followed);
        // More said but no way to it: its last entry read is not the thread's last (review 15e, F6).
        if (next === null) throw new Error('no new cursor to the pages it says follow');
        if (!next) break;
        cursor = next;
      }
    } catch (error) {
      // The call that asked ended (cancelled, the host link gone): not the endpoint's answer, no back-off for the
      // sessions after it (day-7g review H4).
      if (callerGone(error)) return undefined;
      // The endpoint answers empty when asked too often: wait longer before the next attempt.
      this.nextAsk.set(ref, now + r.request.emptyBackoffMs);
      if (error instanceof GoneThread) this.runningAt.delete(ref);
      return undefined;
    }
    const lastRunning = entries.length > 0 && entryStatus(entries[entries.length - 1], r) === 'running';
    this.runningAt.delete(ref);
    if (lastRunning) this.runningAt.set(ref, now);
    if (this.runningAt.size > 256) this.runningAt.delete(this.runningAt.keys().next().value as string);
    return { turns: finishedTurns(entries, r), lastRunning };
  }
}

/** The thread JSON says the thread is not there to read (gone, out of reach, no entries): not a moment's failure. */
class GoneThread extends Error {}

const isRepair = (outcome: RepairInfo | 'fine' | 'running' | null): outcome is RepairInfo => outcome !== null && outcome !== 'fine' && outcome !== 'running';

/** What the tools say when a repair was tried and failed: the probe the reader misses, that a repair was tried, and why it failed. */
function failed(probe: string, reason: string | undefined, url: string | undefined, original?: RelayError): RelayError {
  const what = original ? original.message.replace(/\.?$/, '') : `${probe}: the reader finds no ${probe === 'turn' ? 'turn' : 'answer'} on ${url || 'this conversation page'}`;
  return new RelayError(
    'SELECTOR_MISS',
    `${what}. A repair from the thread JSON was tried on this page and failed (${reason ?? 'no reason given'}). ` +
      `Add a selector set that reads this page (${cliHint('selectors add FILE', undefined)}), or save it with ${cliHint('capture', undefined)} and report it.`,
  );
}
