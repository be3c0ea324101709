import { isOurs, RelayError } from '../protocol/error/relay-error';
import type { ProbeReport, SelectorSet } from '../selectors';
import { chooseSelectorSet, chromeMajorFrom, SelectorCatalog } from '../selectors/catalog';
import type { AskHandle } from './composer/actions';
import type { PageContext } from './dom/context';
import { PageWatcher, type WaitBinding, type WaitOutcome, waitForAnswer } from './answer/observer';
import { cutPoll, poll, signMiss, type PollResult, readTurn, requireTurns } from './answer/reader';
import { type StopResult, stop } from './answer/stop';
import { turnCountOf, turnsOf } from './dom/turns';
import { ReadCache } from './answer/read-cache';
import type { StreamReading } from './stream/stream-reading';

/**
 * The content script's whole view of the page: one object, one watcher, lazily chosen selector
 * set. Every failure is a RelayError with a code from errors.ts. Imports no zod: the worker
 * validates params and results with lib/protocol/page/page-methods.ts.
 */

export interface WaitCallParams {
  timeoutMs?: number;
  stallMs?: number;
  /** Bind to the turn an ask created (page.ask's turnIndex, conversationUrl, questionKey, and submittedAt as askedAt). */
  turnIndex?: number;
  conversationUrl?: string;
  questionKey?: string;
  askedAt?: number;
  /** The older binding: turns after this count. Without any binding, the last ask made here. */
  afterTurn?: number;
  baselineUrl?: string;
  /** The caller asked nothing here: the page's latest turn, never another caller's last ask. */
  latest?: boolean;
  maxLength?: number;
  /**
   * Added by the worker, never by a caller (the params' schema has no such field): the key of the
   * `threads.fetch` it sent ahead, which fetches the thread JSON the moment this wait sees its turn end.
   */
  jsonKey?: string;
}

export interface WaitCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: { message: string; steps: string[] }) => void;
  /** A traced call (the bench): the wait notes when it saw its turn end (`seenAt`). */
  trace?: Record<string, number>;
  /** See WaitParams.onFinished (lib/page/answer/observer.ts): the wait saw its turn end completed, at `url`. */
  onFinished?: (url: string) => void;
}

export interface PageDriver {
  /** The set in use, where it came from (`built-in` or a file path), and the probe's evidence. */
  selectorSet(): { name: string; source: string; probe: ProbeReport };
  /** The set in use itself, for page code outside the driver (the panel's watch). */
  activeSet(): SelectorSet;
  poll(params?: { maxLength?: number }): Promise<PollResult>;
  /**
   * The ask kit made this ask (lib/page/kits/ask-kit.ts, which also keeps the tab's queue): the last ask, which
   * every later wait here binds to and which must outlive the kit's calls; the watcher follows its turn.
   */
  asked(handle: AskHandle): void;
  wait(params?: WaitCallParams, options?: WaitCallOptions): Promise<WaitOutcome>;
  stop(): Promise<StopResult>;
  /**
   * A whole read kept while the page holds still (the read cache comet_poll uses), for a kit's reads: `fresh` runs
   * when the page changed since, or the selector set did.
   */
  readKept<T>(key: string, fresh: () => T | Promise<T>): Promise<T>;
  /** For tests and the side panel: the page watcher (events, active state). */
  readonly watcher: PageWatcher;
  /**
   * Runs page code with the driver's error shaping (a miss names the selector set in use and where
   * it came from; anything unexpected says what failed), for the kits' methods (kits.ts).
   */
  run<T>(what: string, work: () => Promise<T> | T): Promise<T>;
  /** The page, its selector set and the watcher's waitFor, for the kits' methods (kits.ts). */
  context(): PageContext;
  /**
   * The same for reading only: with a repair in use on this URL (lib/page/kits/repair-kit.ts), its
   * derived set. Nothing that types or clicks is given it.
   */
  readingContext(): PageContext;
  /** Puts a repair's set in use for reading `url` (null drops it); `notice` is the line every result read through it carries. */
  useRepair(repair: ReadingRepair | null): void;
  /** The repair in use on the page's current URL. */
  repairInUse(): ReadingRepair | null;
  /** Reads turns from the page's own ask streams from now on (the ask kit brings it: lib/page/stream/stream-reading.ts). */
  useStreams(reading: StreamReading): void;
  /** The stream reading in use, or null (the ask kit is not loaded: every turn is read from the page). */
  streams(): StreamReading | null;
}

export interface ReadingRepair {
  set: SelectorSet;
  url: string;
  notice: string;
}

/** How a wait can end while its turn goes on. */
const UNFINISHED: ReadonlySet<string> = new Set(['timeout', 'stalled', 'waiting']);

/** Whether another set scored as high as the chosen one: the page has not yet shown which it is. */
function isTie(probe: ProbeReport): boolean {
  const best = probe.candidates.find((c) => c.name === probe.chosen)?.score ?? 0;
  return probe.candidates.filter((c) => c.score === best).length > 1;
}

export function createPageDriver(win: Window, catalog: SelectorCatalog = new SelectorCatalog()): PageDriver {
  const doc = win.document;
  const chromeMajor = chromeMajorFrom(win.navigator?.userAgent ?? '');
  let chosen: { set: SelectorSet; probe: ProbeReport; tied: boolean; version: number } | null = null;

  /**
   * Probes until one set is recognised with confidence and no other scores as high, then keeps it
   * (a generation never changes in place) until the page moves to another URL or the catalog
   * changes (a set added while the page is open is used at the next call). A tie is no choice: the
   * live home page scores gen-b-2026-10 and gen-b-2026-10-live alike, and the thread it moves to by
   * SPA navigation is only told apart once its turn shows (tests/unit/driver-probe.test.ts).
   */
  const choose = () => {
    const url = doc.location?.href ?? '';
    if (!chosen?.probe.confident || chosen.tied || chosen.probe.url !== url || chosen.version !== catalog.version) {
      const next = chooseSelectorSet(doc, chromeMajor, catalog.sets());
      chosen = { ...next, tied: isTie(next.probe), version: catalog.version };
    }
    return chosen;
  };
  const set = () => choose().set;
  let repair: ReadingRepair | null = null;
  // Only on the URL it was derived on: another thread (SPA navigation) is read with the set the page chose.
  const repairHere = () => (repair && repair.url === doc.location?.href ? repair : null);
  const readSet = () => repairHere()?.set ?? set();
  const noted = <T extends object>(result: T): T => {
    const here = repairHere();
    return here ? { ...result, repair: here.notice } : result;
  };
  // The watcher reads (turns, answers, steps): with a repair, through it.
  const watcher = new PageWatcher(win, readSet);
  /** comet_poll's last whole read, and a kit's (comet_get_page_content's), kept while the page holds still. */
  const reads = new ReadCache(win);
  const ctx = (): PageContext => ({ win, doc, set: set(), waitFor: watcher.waitFor });
  const readCtx = (): PageContext => ({ win, doc, set: readSet(), waitFor: watcher.waitFor });
  let lastAsk: AskHandle | null = null;
  let streams: StreamReading | null = null;

  const guard = async <T>(what: string, run: () => Promise<T> | T): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      const err = RelayError.from(e, 'EVALUATION_FAILED');
      // A miss keeps its probe first and says which set missed, and where that set came from.
      if (err.code === 'SELECTOR_MISS') throw new RelayError(err.code, `${err.message} (selector set ${describeSet()})`);
      // Ours already, from this script or a kit's copy of the same code: it says what failed.
      if (err === e || isOurs(e)) throw err;
      throw new RelayError(err.code, `${what} failed: ${err.message}`);
    }
  };
  const describeSet = () => {
    const { set } = choose();
    const source = catalog.sourceOf(set);
    return `${set.name}, ${source === 'built-in' ? 'built-in' : `from ${source}`}`;
  };

  /**
   * A turn we stopped ourselves (comet_stop clicked the page's stop control and saw it go) is finished and
   * stopped: that click is the sign, even in the moment before the page draws its stopped header or its action
   * row, when the page alone shows neither (and its thread JSON may still say running), and after the page
   * draws its action row under the cut-off answer, which says only that the turn ended, not how.
   */
  const stoppedHere = (result: PollResult): PollResult => {
    if (!watcher.anyStopped() || (result.status !== 'working' && result.status !== 'completed') || result.stopped) return result;
    // Working again after the stop took is a new answer there (regenerated, edited): never called stopped.
    watcher.sawTurn(result.url, result.lastTurnIndex, result.hasStopButton);
    if (result.hasStopButton || !watcher.wasStopped(result.url, result.lastTurnIndex)) return result;
    const { unconfirmed: _unconfirmed, ...rest } = result;
    return { ...rest, status: 'completed', stopped: true, currentStep: '' };
  };

  return {
    watcher,
    context: ctx,
    readingContext: readCtx,
    useRepair: (next) => {
      repair = next;
    },
    repairInUse: repairHere,
    useStreams: (reading) => {
      streams = reading;
    },
    streams: () => streams,
    run: guard,
    selectorSet() {
      const c = choose();
      return { name: c.set.name, source: catalog.sourceOf(c.set), probe: c.probe };
    },
    activeSet: set,
    poll: (params = {}) =>
      guard('poll', async () => {
        // The page's read, with or without the answer's prose (a turn whose stream answers needs none of it).
        const read = async (prose: boolean) => stoppedHere(await reads.read(prose ? 'poll' : 'poll-bare', readSet(), () => poll(readCtx(), { prose })));
        // With what the turn's own stream says, where it has a readable one (issue 30).
        return noted(cutPoll(streams ? await streams.pollThrough(read, win.location.href) : await read(true), params.maxLength));
      }),
    asked: (handle) => {
      lastAsk = handle;
      // A turn stopped before its thread had an address is not this new one, whatever its question.
      watcher.stoppedAsked.clear();
      // Its steps must be seen before the page folds them: followed until the turn ends.
      if (handle.turnIndex >= 0) watcher.follow(handle.turnIndex);
    },
    wait: (params = {}, options = {}) =>
      guard('wait', () => {
        const c = readCtx();
        // Without an explicit binding, bind to the last question asked through us; with none,
        // to the turn on the page now (a wait for whatever the agent is doing).
        // A page whose turns the set cannot see fails here, not after the timeout as "still working".
        requireTurns(c.doc, c.set);
        const current = turnCountOf(turnsOf(c.doc, c.set));
        // A caller that asked nothing here is never bound to another caller's ask in this tab.
        const ownAsk = params.latest ? null : lastAsk;
        const afterTurn = params.afterTurn ?? ownAsk?.afterTurn ?? Math.max(0, current - 1);
        const baselineUrl = params.baselineUrl ?? (params.afterTurn === undefined ? ownAsk?.baselineUrl : undefined);
        const binding = bindingOf(params, ownAsk);
        // The wait watches from here, for its caller only: cancelled, nothing is left watching.
        const handedOver = watcher.stopFollowing();
        // A bound turn whose own stream ends answers at that end (issue 30; the ask kit's StreamReading.wait), the
        // page's wait running beside it and deciding when the stream cannot.
        const viaPage = (signal?: AbortSignal) =>
          waitForAnswer(
          watcher,
          async (turnIndex, maxLength) => {
            const t = await readTurn(readCtx(), turnIndex, { maxLength });
            return (
              t && {
                response: t.response,
                steps: t.steps,
                turnIndex,
                questionText: t.question,
                truncated: t.truncated,
                totalLength: t.totalLength,
                ...(t.error ? { error: t.error } : {}),
              }
            );
          },
          {
            afterTurn,
            ...(binding ? { binding } : {}),
            ...(baselineUrl ? { baselineUrl } : {}),
            timeoutMs: params.timeoutMs ?? 120000,
            stallMs: params.stallMs ?? 10000,
            ...(signal ? { signal } : {}),
            trace: options.trace,
            ...(options.onFinished ? { onFinished: options.onFinished } : {}),
            ...(params.maxLength !== undefined ? { maxLength: params.maxLength } : {}),
            onStep: (text, steps) => options.onProgress?.({ message: text, steps }),
            missOf: (answer, url) => signMiss(set(), url, answer),
          },
        ).then((outcome) => {
          // Its caller got an answer while the asked turn goes on (a loop of short waits): follow it again.
          if (UNFINISHED.has(outcome.status) && handedOver !== undefined && outcome.turnIndex === handedOver) watcher.follow(handedOver);
          return noted(outcome);
        });
        // Only a wait that knows when its ask was submitted has a stream of its own: the first of its words after that.
        if (!streams || binding?.askedAt === undefined) return viaPage(options.signal);
        return streams.wait(viaPage, binding, binding.askedAt, params.maxLength, () => doc.location?.href ?? '', options.signal, options.trace).then(noted);
      }),
    stop: () => guard('stop', () => stop(ctx(), watcher)),
    readKept: (key, fresh) => reads.read(key, set(), fresh),
  };
}

/** The turn a wait follows: the caller's binding, or (with no binding of any kind) the last ask made here. */
function bindingOf(params: WaitCallParams, lastAsk: AskHandle | null): WaitBinding | undefined {
  if (params.turnIndex !== undefined && params.conversationUrl !== undefined && params.questionKey !== undefined) {
    const asked = params.askedAt !== undefined ? { askedAt: params.askedAt } : {};
    return { turnIndex: params.turnIndex, conversationUrl: params.conversationUrl, questionKey: params.questionKey, ...asked };
  }
  if (params.afterTurn !== undefined || !lastAsk) return undefined;
  return { turnIndex: lastAsk.turnIndex, conversationUrl: lastAsk.conversationUrl, questionKey: lastAsk.questionKey, askedAt: lastAsk.submittedAt };
}
