import { RelayError } from '../../protocol/error/relay-error';
import { showsThread, threadMovedError } from '../../protocol/threads/thread-ids';
import type { PageWatcher } from '../answer/observer';
import type { ThreadReading, TurnReading } from '../checkpoints/thread-model';
import type { ThreadSession } from './thread-session';

/**
 * `threads.wait`: resolves at the first checkpoint of one turn, driven by the page's own mutations
 * (the shared MutationObserver), never by a polling loop.
 *
 * On each change the page is classified cheaply. When it shows a checkpoint (or cannot find the
 * turn), the thread JSON is asked, if the per-thread interval allows, and preferred: a JSON that
 * says "still running" is asked again when the interval allows. When the JSON may not be asked
 * now, is rate-limited, broken or moved, the page answers (`source: 'page'`). Timers: the
 * deadline, the quiet timer, and at most one timer for the next allowed JSON read; all cleared,
 * the fetch aborted and the observer released, however the wait ends.
 */
export interface ThreadWaitParams {
  /** The thread the call is about: the wait fails the moment the tab shows another one. */
  threadId: string;
  /** The turn to wait for (from threads.start / send / respond); default the latest. */
  turn?: number;
  timeoutMs: number;
  quietMs?: number;
  /**
   * The steps the caller already heard (its hold's earlier waits): the others go out as progress. Progress is the
   * caller's, not the tab's: a second session holding the same turn hears the steps another already saw (threads
   * review 2026-12-05, L6). Without it, each step goes out once for this page.
   */
  heard?: readonly string[];
}

export interface ThreadWaitOptions {
  signal?: AbortSignal;
  onProgress?: (step: string) => void;
}

/**
 * While the page shows no such turn, the JSON is asked again after 3 s, 6 s, 12 s… up to once a
 * minute: about 6 reads in a two-minute hold, 64 in an hour, far from the ~150 after which the
 * endpoint answers with empty bodies.
 */
const BLIND_RETRY_MS = 3000;
const BLIND_RETRY_MAX_MS = 60_000;

/** Steps already sent as progress, per turn, for this page: each step goes out once. */
const reportedSteps = new WeakMap<ThreadSession, Map<number, Set<string>>>();

/**
 * A reading's turn by its index: the page's own (a page reading may hold turns 5…9 of ten, the
 * older ones unmounted), never its position in `turns`.
 */
function turnOf(reading: ThreadReading, index: number): TurnReading | undefined {
  return reading.turns.find((t) => t.index === index);
}

/** The reading that answered and the turn it is about (the worker makes the checkpoint of it). */
export interface WaitOutcome {
  reading: ThreadReading;
  turn: TurnReading;
}

/** JSON reads in a row saying "running" for a page that shows the turn's end, before the page is taken. */
const JSON_DISAGREEMENTS = 2;

export function waitForCheckpoint(session: ThreadSession, watcher: PageWatcher, params: ThreadWaitParams, options: ThreadWaitOptions = {}): Promise<WaitOutcome> {
  return new Promise<WaitOutcome>((resolve, reject) => {
    if (options.signal?.aborted) return reject(new RelayError('CANCELLED', 'The wait was cancelled.'));
    const startCount = session.latestFromPage(true).reading.turnCount;
    const target = params.turn ?? Math.max(0, startCount - 1);
    let done = false;
    let fetching: AbortController | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    /** The page state at which the JSON said "still running": wait for the JSON again, not the page. */
    let jsonDisagreedAt: string | undefined;
    /** How many JSON reads in a row said so for that same page state (finished entries only), and in all. */
    let disagreements = 0;
    let lagging = 0;
    /** The lagging JSON's next read is due (its timer, `retry`, fired). */
    let lagDue = false;
    /** JSON reads asked on a timer while the page shows no such turn (the delay doubles with each). */
    let blindRetries = 0;
    let blind: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe = () => {};

    const perTurn = reportedSteps.get(session) ?? new Map<number, Set<string>>();
    reportedSteps.set(session, perTurn);
    const reported = perTurn.get(target) ?? new Set<string>();
    perTurn.set(target, reported);
    const told = params.heard ? new Set(params.heard) : reported;

    const cleanup = () => {
      done = true;
      clearTimeout(deadline);
      clearTimeout(retry);
      clearTimeout(blind);
      clearTimeout(quiet);
      fetching?.abort();
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: RelayError) => {
      if (done) return;
      cleanup();
      reject(error);
    };
    /** Whether the tab still shows the thread asked for; fails the wait when not. */
    const stillThere = (): boolean => {
      if (showsThread(session.url, params.threadId)) return true;
      fail(threadMovedError(params.threadId, session.url, session.threadId));
      return false;
    };
    const finish = (reading: ThreadReading, turn: TurnReading | undefined, forceNull = false) => {
      if (done || !stillThere()) return;
      if (!showsThread(reading.url, params.threadId)) return fail(threadMovedError(params.threadId, reading.url, reading.threadId));
      cleanup();
      const t: TurnReading = turn ?? {
        index: target,
        query: '',
        event: null,
        answer: '',
        steps: [],
        sources: [],
        files: [],
        interactions: [],
        optionalAuth: [],
      };
      // Steps the page folded away once done are still the ones this wait saw.
      const steps = t.steps.length > 0 ? t.steps : [...reported];
      resolve({ reading, turn: { ...t, steps, ...(forceNull ? { event: null, interactions: [] } : {}) } });
    };

    /** The target turn as the page shows it; `light` while only classifying. */
    const pageTurn = (light: boolean): { reading: ThreadReading; turn?: TurnReading } => {
      const latest = session.latestFromPage(light);
      // Not on the page yet (a follow-up still on its way): no turn, never an earlier one.
      if (latest.reading.turnCount <= target) return { reading: latest.reading };
      if (latest.turn?.index === target) return latest;
      const full = session.pageReading();
      return { reading: full, turn: turnOf(full, target) };
    };

    /** The page's full reading of the target turn (answer, sources, files), to return. */
    const fromPage = () => {
      const { reading, turn } = pageTurn(false);
      finish(reading, turn);
    };

    const askJson = () => {
      if (done || fetching) return;
      const controller = new AbortController();
      fetching = controller;
      const at = session.pageSignature();
      session
        .fetchJson(controller.signal)
        .then((outcome) => {
          fetching = undefined;
          if (done) return;
          if (outcome.ok && session.usable(outcome.reading, Date.now())) {
            const turn = turnOf(outcome.reading, target);
            if (turn?.event) return finish(outcome.reading, turn);
            // Only an entry the JSON itself calls finished (its text one the reader does not take) counts toward the
            // page's answering: one still PENDING is the JSON's word that the turn runs (day-2 review M1).
            disagreements = turn?.entryStatus !== undefined && session.entryDone(turn.entryStatus) ? (jsonDisagreedAt === at ? disagreements : 0) + 1 : 0;
            lagging = jsonDisagreedAt === at ? lagging + 1 : 1;
            jsonDisagreedAt = at;
            return check();
          }
          if (!outcome.ok && outcome.problem.kind === 'missing' && session.notFound()) {
            return fail(new RelayError('THREAD_NOT_FOUND', `thread_id "${session.threadId}" matches no Perplexity thread of this account.`));
          }
          jsonDisagreedAt = undefined;
          check();
        })
        .catch((e: unknown) => {
          fetching = undefined;
          if (!done) fail(RelayError.from(e, 'EVALUATION_FAILED'));
        });
    };

    const check = () => {
      if (done || fetching || !stillThere()) return;
      if (session.notFound()) return fail(new RelayError('THREAD_NOT_FOUND', `thread_id "${session.threadId}" matches no Perplexity thread (the page says it does not exist).`));
      const { turn } = pageTurn(true);
      for (const step of turn?.steps ?? []) {
        reported.add(step);
        if (told.has(step)) continue;
        told.add(step);
        options.onProgress?.(step);
      }
      const pageSays = Boolean(turn?.event);
      // The page shows no such turn (reader drift, or not drawn yet): the JSON may know it. A page
      // that changes no more gives no other chance to ask, so the JSON is asked again on a timer,
      // each time twice as late (never a tight loop on an endpoint that rate-limits).
      if (!turn) {
        if (session.mayFetch()) return askJson();
        // One timer at a time, and the delay grows only when it fires: a page that churns without
        // showing the turn must not push the next read a minute away.
        if (blind === undefined) {
          const delay = Math.max(session.nextFetchIn(), Math.min(BLIND_RETRY_MAX_MS, BLIND_RETRY_MS * 2 ** blindRetries));
          blind = setTimeout(() => {
            blind = undefined;
            blindRetries += 1;
            check();
          }, delay + 10);
        }
        return;
      }
      blindRetries = 0;
      if (!pageSays) return;
      // The page shows this turn's end by its own sign, and the JSON, read twice since for that same page, calls the
      // entry finished but gives no text the reader takes (it stays running there): the page answers. Without this
      // the wait asked the JSON every few seconds to the end of its hold (threads review 2026-12-05, M1).
      // A question, a confirmation or a sign-in the page shows is its own sign too, and answering it needs the page:
      // one JSON read that lags is enough (day-3 review L3).
      const lags = jsonDisagreedAt === session.pageSignature();
      if (lags && (disagreements >= JSON_DISAGREEMENTS || (turn.interactions.length > 0 && lagging > 0))) return fromPage();
      if (lags) {
        // The JSON said "still running" for what the page shows now: asked again, each time twice as late (3 s to a
        // minute), never every few seconds to the end of a long hold (the endpoint stops answering after ~150).
        if (lagDue && session.mayFetch()) {
          lagDue = false;
          return askJson();
        }
        if (retry === undefined) {
          const delay = Math.max(session.nextFetchIn(), Math.min(BLIND_RETRY_MAX_MS, BLIND_RETRY_MS * 2 ** (lagging - 1)));
          retry = setTimeout(() => {
            retry = undefined;
            lagDue = true;
            check();
          }, delay + 10);
        }
        return;
      }
      if (session.mayFetch()) return askJson();
      fromPage();
    };

    const armQuiet = () => {
      if (params.quietMs === undefined) return;
      clearTimeout(quiet);
      quiet = setTimeout(() => {
        const { reading, turn } = pageTurn(false);
        finish(session.cached() ?? reading, turn, true);
      }, params.quietMs);
    };

    const onAbort = () => fail(new RelayError('CANCELLED', 'The wait was cancelled.'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const deadline = setTimeout(() => {
      const cached = session.cached();
      const { reading, turn } = pageTurn(false);
      finish(cached ?? reading, (cached && turnOf(cached, target)) ?? turn, true);
    }, params.timeoutMs);
    armQuiet();
    unsubscribe = watcher.subscribe((events) => {
      if (events.length > 0) armQuiet();
      check();
    });
    check();
  });
}
