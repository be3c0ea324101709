import { RelayError } from '../../protocol/error/relay-error';
import { traceClock } from '../../protocol/ports';
import { conversationKey, isConversationPath } from '../../protocol/urls';
import type { SelectorSet } from '../../selectors';
import type { WaitFor } from '../dom/context';
import { all, closest, outermost } from '../dom/dom';
import { readInteractions, type WaitingFor, waitingFor } from '../checkpoints/interactions';
import { questionKey, questionMatch } from './question';
import { answerFooter, answersOf, hasSpinner, isPlaceholder, readError, readQuestionNow, readSteps, stopButton } from './reader';
import { type Turn, turnAt, turnCountOf, turnsOf } from '../dom/turns';

export { type WaitingFor, waitingFor } from '../checkpoints/interactions';

/**
 * One MutationObserver for the whole page, connected only while someone listens: no observer and
 * no timer exist in the page while nothing is asked. Each batch of mutations (the browser already
 * delivers them per microtask) becomes a cheap snapshot of the current turn; differences between
 * snapshots become typed events.
 */

/** A turn we (or the person) stopped: `settled` once a read saw it idle, `replaced` once it worked again after. */
interface StopMark {
  settled: boolean;
  replaced: boolean;
}

export interface Snapshot {
  url: string;
  turnCount: number;
  /** Index of the current (last) turn, -1 when the page has none. */
  turnIndex: number;
  hasStopButton: boolean;
  hasLoadingSpinner: boolean;
  steps: string[];
  stepsFinished: boolean;
  /** The page's steps header says the user stopped the turn. */
  stepsStopped: boolean;
  /** textContent length of the current answer: cheap, and enough to see growth. */
  answerLength: number;
  /**
   * The answer's action row is shown: the page's own "done" (its answer block mounts with the first
   * token, so that block is no sign). Null when the selector set names no action row.
   */
  footer: boolean | null;
  /** The action row is up but no answer block is recognised (#5 of the 2026-12-02 review). */
  answerMissing?: boolean;
  error?: string;
  placeholder: boolean;
  /** Computer mode: the first thing the current turn waits on the person for (question, confirmation). */
  waitingFor?: WaitingFor;
}

export type PageEvent =
  | { type: 'turn-added'; turnCount: number }
  | { type: 'step'; text: string; turnIndex: number }
  | { type: 'answer-grew'; length: number; turnIndex: number }
  | { type: 'answer-finished'; turnIndex: number }
  | { type: 'error'; message: string; turnIndex: number }
  | { type: 'navigated'; url: string; from: string };

export type Listener = (events: PageEvent[], snap: Snapshot) => void;

/** How long an asked turn is followed at most while nobody waits on it (PageWatcher.follow). */
const FOLLOW_MS = 30 * 60_000;
/**
 * How long a turn with text must hold still while the page shows neither its stop control nor its
 * action row (signs the set does not know) before the wait hands it to the thread JSON: a pause in
 * the stream is only a pause, and the JSON, not the quiet, says whether it ended.
 */
export const NO_SIGN_MS = 1500;

/**
 * Finished = the page's own "done". Where the set names an action row, that row (or a steps header
 * that says the person stopped the turn); elsewhere (the simulated generations A and B) no stop
 * button and no spinner in the current turn, and something to show for it. While the stop button is
 * up, a pause in the stream is only a pause.
 */
export function looksFinished(s: Snapshot): boolean {
  if (s.turnIndex < 0 || s.placeholder || s.hasStopButton || s.hasLoadingSpinner) return false;
  if (s.footer !== null) return s.footer || s.stepsStopped;
  return s.answerLength > 0 || s.stepsFinished || s.stepsStopped;
}

/** A turn with something in it whose state the page shows no sign of: neither its stop control nor its action row. */
const showsNoSign = (s: Snapshot) =>
  s.turnIndex >= 0 && !s.placeholder && !s.hasStopButton && !s.hasLoadingSpinner && s.footer === false && (s.answerLength > 0 || s.stepsFinished);

/**
 * The state of one turn, the current (last) one unless `index` names another. Only the current
 * turn can have the page's Stop button or what a paused task waits on.
 */
export function takeSnapshot(doc: Document, set: SelectorSet, index?: number): Snapshot {
  const turns = turnsOf(doc, set);
  // The page's own index of its latest turn: a long thread keeps only its latest answers mounted.
  const last = turnCountOf(turns) - 1;
  const i = index ?? last;
  const turn = (i >= 0 ? turnAt(turns, i) : undefined) ?? null;
  const current = i === last;
  const base = { url: doc.location?.href ?? '', turnCount: last + 1, turnIndex: turn ? i : -1 };
  const hasStop = current && stopButton(doc, set, turn, turns) !== null;
  if (!turn) {
    return {
      ...base,
      hasStopButton: hasStop,
      hasLoadingSpinner: false,
      steps: [],
      stepsFinished: false,
      stepsStopped: false,
      answerLength: 0,
      footer: set.answerFooter ? false : null,
      placeholder: false,
    };
  }
  const { steps, finished, stopped } = readSteps(turn, set);
  const answers = answersOf(turn);
  const prose = outermost((answers.length ? answers : [turn]).flatMap((a) => all(a, set.prose))).filter(
    (p) => !closest(p, set.userBubble),
  );
  const answerLength = (prose.length ? prose : answers).reduce((n, p) => n + (p.textContent ?? '').trim().length, 0);
  const error = readError(turn, set);
  const pending = current ? waitingFor(readInteractions(doc, set, turns)[0]) : undefined;
  const footer = answerFooter(turn, set);
  return {
    ...base,
    hasStopButton: hasStop,
    hasLoadingSpinner: hasSpinner(turn, set),
    steps,
    stepsFinished: finished,
    stepsStopped: stopped,
    answerLength,
    footer,
    ...(footer && answers.length === 0 ? { answerMissing: true } : {}),
    ...(error ? { error } : {}),
    placeholder: isPlaceholder(turn, set),
    ...(pending ? { waitingFor: pending } : {}),
  };
}

function diff(prev: Snapshot, cur: Snapshot): PageEvent[] {
  const events: PageEvent[] = [];
  if (cur.url !== prev.url) events.push({ type: 'navigated', url: cur.url, from: prev.url });
  if (cur.turnCount > prev.turnCount) events.push({ type: 'turn-added', turnCount: cur.turnCount });
  const sameTurn = cur.turnIndex === prev.turnIndex && cur.url === prev.url;
  const known = sameTurn ? prev.steps : [];
  for (const text of cur.steps) if (!known.includes(text)) events.push({ type: 'step', text, turnIndex: cur.turnIndex });
  if (cur.answerLength > (sameTurn ? prev.answerLength : 0)) {
    events.push({ type: 'answer-grew', length: cur.answerLength, turnIndex: cur.turnIndex });
  }
  if (looksFinished(cur) && !(sameTurn && looksFinished(prev))) events.push({ type: 'answer-finished', turnIndex: cur.turnIndex });
  if (cur.error && cur.error !== (sameTurn ? prev.error : undefined)) {
    events.push({ type: 'error', message: cur.error, turnIndex: cur.turnIndex });
  }
  return events;
}

export class PageWatcher {
  private readonly listeners = new Set<Listener>();
  private observer: MutationObserver | null = null;
  private last: Snapshot | null = null;
  private scheduled = false;
  /** The turn whose stop control was clicked in each conversation, by its address. */
  private readonly stopped = new Map<string, { turnIndex: number; mark: StopMark }>();

  constructor(
    private readonly win: Window,
    private readonly getSet: () => SelectorSet,
  ) {}

  get active(): boolean {
    return this.observer !== null;
  }

  snapshot(): Snapshot {
    return takeSnapshot(this.win.document, this.getSet());
  }

  /** The state of turn `index` (a turn an ask created, which may no longer be the last). */
  snapshotOf(index: number): Snapshot {
    return takeSnapshot(this.win.document, this.getSet(), index);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop();
    };
  }

  /**
   * Keeps the observer on while a turn an ask started runs and no wait watches it. The page folds a
   * turn's step rows away when it ends ("Finished N steps"), so a step is only known if a read saw
   * it while it showed (reader.ts seenSteps): an agent that asks and waits later would get the
   * first step or two. Read-only, and bounded: it ends when the page's current turn ends or is an
   * older one than asked (another conversation), when a wait takes over (stopFollowing), when a
   * newer ask follows its own turn, or after `maxMs` (a turn paused on the person changes nothing
   * and costs nothing meanwhile).
   */
  follow(turnIndex: number, maxMs = FOLLOW_MS): void {
    this.stopFollowing();
    const ended = (snap: Snapshot) => snap.turnIndex < turnIndex || looksFinished(snap);
    const unsubscribe = this.subscribe((_events, snap) => {
      if (ended(snap)) end();
    });
    const timer = setTimeout(() => end(), maxMs);
    const end = () => {
      clearTimeout(timer);
      unsubscribe();
      if (this.followed?.end === end) this.followed = undefined;
    };
    this.followed = { turnIndex, end };
    // Read now, not from the last batch's snapshot: with another listener on, that may predate the ask.
    if (ended(this.snapshot())) end();
  }

  private followed?: { turnIndex: number; end: () => void };

  /**
   * Ends what follow() started, if anything, and says which turn it followed: a wait watches that
   * turn now, for a caller of its own.
   */
  stopFollowing(): number | undefined {
    const followed = this.followed;
    followed?.end();
    return followed?.turnIndex;
  }

  markStopped(url: string, turnIndex: number, turn?: Turn): StopMark {
    const record = { turnIndex, mark: { settled: false, replaced: false } };
    this.stopped.set(conversationKey(url), record);
    // Where no conversation has its address yet (a new thread asked from home), by its question too: the page gives
    // the thread its address a moment later and may mount the turn anew there (review 12a, #8).
    const key = turn && !isConversationPath(pathOf(url)) ? this.askedKey(turn) : '';
    if (key) this.stoppedAsked.set(key, record);
    return record.mark;
  }

  /**
   * The stop mark of turn `turnIndex` at `url`: by its address, else by its question, taken by the first conversation
   * it is read at that shows that question at that place and is not at work (a new answer there is another turn: the
   * same prompt asked again; review 13d, 1); then by that address alone.
   */
  private markOf(url: string, turnIndex: number): StopMark | undefined {
    const byUrl = this.stopped.get(conversationKey(url));
    if (byUrl || this.stoppedAsked.size === 0) return byUrl?.turnIndex === turnIndex ? byUrl.mark : undefined;
    const set = this.getSet();
    const turn = turnAt(turnsOf(this.win.document, set), turnIndex);
    const key = turn ? this.askedKey(turn) : '';
    const record = this.stoppedAsked.get(key);
    if (!turn || record?.turnIndex !== turnIndex) return undefined;
    this.stoppedAsked.delete(key);
    if (stopButton(this.win.document, set, turn)) return undefined;
    this.stopped.set(conversationKey(url), record);
    return record.mark;
  }

  /** Turns stopped where the address named no conversation, by their question (markStopped); an ask through us ends them. */
  readonly stoppedAsked = new Map<string, { turnIndex: number; mark: StopMark }>();
  private askedKey(turn: Turn): string {
    return questionKey(readQuestionNow(turn, this.getSet()));
  }

  wasStopped(url: string, turnIndex: number): boolean {
    const mark = this.markOf(url, turnIndex);
    return mark !== undefined && !mark.replaced;
  }

  /**
   * What a read saw of a turn: a turn we stopped, seen idle once (the stop took) and later working again, holds a
   * new answer (the person regenerated or edited it at that place): it is no longer the stopped one, and its end
   * is read from the page's signs again. Working before it was ever seen idle is the stop still taking.
   */
  sawTurn(url: string, turnIndex: number, working: boolean): void {
    const mark = this.markOf(url, turnIndex);
    if (!mark) return;
    if (!working) mark.settled = true;
    else if (mark.settled) mark.replaced = true;
  }

  /** Whether any turn was stopped on this page (reads skip looking for theirs otherwise). */
  anyStopped(): boolean {
    return this.stopped.size > 0;
  }

  /** Resolves when the probe returns something truthy, re-checked after every mutation batch. */
  waitFor: WaitFor = (probe, timeoutMs, signal) =>
    new Promise((resolve, reject) => {
      const now = probe();
      if (now) return resolve(now);
      if (signal?.aborted) return reject(new RelayError('CANCELLED', 'The call was cancelled.'));
      let unsubscribe = () => {};
      const finish = (value: Parameters<typeof resolve>[0] | null, error?: RelayError) => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(value as never);
      };
      const onAbort = () => finish(null, new RelayError('CANCELLED', 'The call was cancelled.'));
      const timer = setTimeout(() => finish(null), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      unsubscribe = this.subscribe(() => {
        const value = probe();
        if (value) finish(value);
      });
    });

  private start(): void {
    const doc = this.win.document;
    this.last = this.snapshot();
    const MO = (this.win as Window & typeof globalThis).MutationObserver;
    this.observer = new MO(() => this.schedule());
    this.observer.observe(doc.body ?? doc.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: [...this.getSet().watchAttributes],
    });
    // pushState fires nothing, but an SPA route change always mutates the DOM; popstate covers
    // back/forward when the DOM happens to be reused.
    this.win.addEventListener('popstate', this.onEvent);
    this.win.addEventListener('hashchange', this.onEvent);
    doc.addEventListener('click', this.onClick, true);
  }

  private stop(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.last = null;
    this.win.removeEventListener('popstate', this.onEvent);
    this.win.removeEventListener('hashchange', this.onEvent);
    this.win.document.removeEventListener('click', this.onClick, true);
  }

  private readonly onEvent = (): void => this.schedule();

  /** A user's own click on the stop button makes the turn "stopped", not "completed". */
  private readonly onClick = (e: Event): void => {
    const target = e.target as Element | null;
    if (!target || typeof target.closest !== 'function') return;
    const set = this.getSet();
    // Never a decoy such as "Stop dictation", which carries the same icon.
    if (closest(target, set.stopButton) && !closest(target, set.stopDecoys ?? [])) {
      const snap = this.snapshot();
      this.markStopped(snap.url, snap.turnIndex);
    }
  };

  /** Coalesces: one snapshot per microtask, however many records or events arrived. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (!this.observer) return;
      this.observer.takeRecords();
      const cur = this.snapshot();
      const events = this.last ? diff(this.last, cur) : [];
      this.last = cur;
      for (const listener of [...this.listeners]) {
        try {
          listener(events, cur);
        } catch {
          // one listener's failure must not starve the others
        }
      }
    });
  }
}

// ---------------------------------------------------------------- waiting for an answer

/** `waiting`: the agent paused on a question or confirmation for the person (computer mode). */
export type WaitStatus = 'completed' | 'timeout' | 'stalled' | 'error' | 'stopped' | 'waiting';

/**
 * What a wait is bound to when the caller asked the question: the turn its ask created,
 * in the conversation it was created in, holding its question. Another session's later turn in
 * the same tab, or any turn of another conversation, is never this wait's answer.
 */
export interface WaitBinding {
  turnIndex: number;
  conversationUrl: string;
  /** lib/page/answer/question.ts questionKey of the prompt. */
  questionKey: string;
  /**
   * When its ask was submitted (page.ask's `submittedAt`, the page's clock): the turn's own ask stream is the first of
   * its words the page opened after it (lib/page/stream/stream-reading.ts). Without it no stream answers the wait.
   */
  askedAt?: number;
}

export interface WaitParams {
  /** Only a turn with index >= afterTurn counts (the turn count captured before submitting). */
  afterTurn: number;
  /** Bind to one turn instead (afterTurn and baselineUrl are then ignored). */
  binding?: WaitBinding;
  /** The URL at submit time: on another conversation the count starts again from zero. */
  baselineUrl?: string;
  timeoutMs: number;
  /** No change for this long while no stop button is visible → stalled. Default 10000. */
  stallMs?: number;
  signal?: AbortSignal;
  onStep?: (text: string, steps: string[]) => void;
  maxLength?: number;
  /**
   * The SELECTOR_MISS texts of a turn the page shows no sign of, or (`answer`) whose action row is
   * up with no answer block recognised: the result carries it as `unconfirmed`, and the
   * worker asks the thread JSON before it fails with it.
   */
  missOf?: (answer: boolean, url: string) => string;
  /**
   * Told, before the turn is read, when the wait saw its turn end completed by the page's own sign
   * (not unconfirmed) after it began: the moment the turn's thread JSON can be asked for its answer.
   */
  onFinished?: (url: string) => void;
  /** A traced call (the bench): `seenAt`, when the wait saw its turn end (lib/protocol/ports.ts traceClock). */
  trace?: Record<string, number>;
}

export interface WaitOutcome {
  status: WaitStatus;
  response: string;
  steps: string[];
  currentStep: string;
  turnIndex: number;
  questionText: string;
  truncated: boolean;
  totalLength: number;
  hasStopButton: boolean;
  error?: string;
  /** With status `waiting`: what the agent asks the person. */
  waitingFor?: WaitingFor;
  /** See WaitParams.missOf: the page could not tell, the JSON is asked; `status` is then a placeholder. */
  unconfirmed?: string;
  url: string;
  elapsedMs: number;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** The tab left the conversation a bound wait follows: say so at once, never read the other one. */
function leftConversation(boundUrl: string, now: string): RelayError {
  return new RelayError(
    'AGENT_ERROR',
    `The Perplexity tab left the conversation of your question while comet_wait waited (it was ${boundUrl}, it is now ${now}); ` +
      `nothing of that page is returned. Open yours again with comet_open_conversation("${boundUrl}"), then call comet_wait.`,
  );
}

function notYourQuestion(turnIndex: number, shown: string, url: string): RelayError {
  return new RelayError(
    'AGENT_ERROR',
    `Turn ${turnIndex + 1} on ${url} no longer shows your question (it shows "${shown.slice(0, 80)}"), so its answer is not returned. ` +
      'Call comet_poll to see what the tab shows, or ask again.',
  );
}

/** What a wait reads of its finished turn (the rest of its outcome comes from the watcher); null: no such turn. */
type TurnBody = Omit<WaitOutcome, 'status' | 'elapsedMs' | 'url' | 'hasStopButton' | 'currentStep'>;

/**
 * Resolves as soon as a turn created after `afterTurn` finishes (not the previous), from mutation
 * events rather than a polling loop (no settling delay). Timers: one deadline, one stall timer
 * re-armed on change; both cleared, and the observer released, however the wait ends.
 */
export function waitForAnswer(
  watcher: PageWatcher,
  read: (turnIndex: number, maxLength?: number) => Promise<TurnBody | null>,
  params: WaitParams,
): Promise<WaitOutcome> {
  const started = Date.now();
  const stallMs = params.stallMs ?? 10000;
  const { binding } = params;
  return new Promise<WaitOutcome>((resolve, reject) => {
    if (params.signal?.aborted) return reject(new RelayError('CANCELLED', 'The wait was cancelled.'));
    let done = false;
    /** False while the wait's first look runs: a turn already over when the wait began was not seen to end. */
    let live = false;
    let sawWorking = false;
    let reported: string[] = [];
    let deadline: ReturnType<typeof setTimeout> | undefined;
    let stall: ReturnType<typeof setTimeout> | undefined;
    /** Armed while the turn looks done but its action row is not up: done once the text held still. */
    let settle: { timer: ReturnType<typeof setTimeout>; length: number } | undefined;
    let unsubscribe = () => {};
    /** A question asked from the home page gets its conversation URL a moment later: adopted once. */
    let boundUrl = binding?.conversationUrl ?? '';

    const threshold = (snap: Snapshot) =>
      params.baselineUrl && conversationKey(snap.url) !== conversationKey(params.baselineUrl) ? 0 : params.afterTurn;
    const isOurs = (snap: Snapshot) =>
      binding
        ? snap.turnIndex === binding.turnIndex && conversationKey(snap.url) === conversationKey(boundUrl)
        : snap.turnIndex >= 0 && snap.turnIndex >= threshold(snap);
    /** The snapshot this wait cares about: its bound turn, or the page's current turn. */
    const observe = () => (binding ? watcher.snapshotOf(binding.turnIndex) : watcher.snapshot());
    /** False once the tab is on another conversation than the bound one (the wait then fails). */
    const stillInConversation = (snap: Snapshot): boolean => {
      if (!binding || conversationKey(snap.url) === conversationKey(boundUrl)) return true;
      if (!isConversationPath(pathOf(boundUrl)) && isConversationPath(pathOf(snap.url)) && snap.turnIndex === binding.turnIndex) {
        boundUrl = snap.url;
        return true;
      }
      return false;
    };

    const cleanup = () => {
      done = true;
      clearTimeout(deadline);
      clearTimeout(stall);
      clearTimeout(settle?.timer);
      unsubscribe();
      params.signal?.removeEventListener('abort', onAbort);
    };

    const finish = (status: WaitStatus, snap: Snapshot, noSign = false) => {
      if (done) return;
      if (params.trace) params.trace.seenAt = traceClock();
      cleanup();
      const unconfirmed = noSign || (status === 'completed' && snap.answerMissing) ? params.missOf?.(!noSign, snap.url) : undefined;
      const turnIndex = isOurs(snap) ? snap.turnIndex : -1;
      try {
        if (status === 'completed' && !unconfirmed && !noSign && live && turnIndex >= 0) params.onFinished?.(snap.url);
      } catch {
        // its listener's failure never costs the wait its answer
      }
      (turnIndex >= 0 ? read(turnIndex, params.maxLength) : Promise.resolve(null))
        .then((read) => {
          const body = read ?? { response: '', steps: [], turnIndex, questionText: '', truncated: false, totalLength: 0 };
          if (binding && turnIndex >= 0 && questionMatch(body.questionText, binding.questionKey) === 'different') {
            reject(notYourQuestion(turnIndex, body.questionText, snap.url));
            return;
          }
          const error = status === 'error' ? (snap.error ?? body.error) : body.error;
          // Steps reported while streaming stay in the result even if the page folded them away.
          const steps = [...body.steps, ...reported.filter((s) => !body.steps.includes(s))];
          resolve({
            status,
            ...body,
            steps,
            currentStep: status === 'completed' ? '' : (steps.at(-1) ?? ''),
            hasStopButton: snap.hasStopButton,
            ...(error ? { error } : {}),
            ...(status === 'waiting' && snap.waitingFor ? { waitingFor: snap.waitingFor } : {}),
            ...(unconfirmed ? { unconfirmed } : {}),
            url: snap.url,
            elapsedMs: Date.now() - started,
          });
        })
        .catch((e: unknown) => reject(RelayError.from(e, 'EVALUATION_FAILED')));
    };

    const onAbort = () => {
      if (done) return;
      cleanup();
      reject(new RelayError('CANCELLED', 'The wait was cancelled.'));
    };

    const leave = (snap: Snapshot) => {
      if (done) return;
      cleanup();
      reject(leftConversation(boundUrl, snap.url));
    };

    const armStall = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        const snap = observe();
        // A visible stop button means the agent says it is still at work: keep waiting.
        if (snap.hasStopButton) armStall();
        else finish('stalled', snap);
      }, stallMs);
    };

    const check = (snap: Snapshot, changed: boolean) => {
      if (done) return;
      if (changed) armStall();
      if (!stillInConversation(snap)) return leave(snap);
      if (!isOurs(snap)) return;
      // A later turn exists: the page took a new prompt, so the bound turn has ended.
      if (binding && snap.turnIndex < snap.turnCount - 1) {
        if (snap.error) return finish('error', snap);
        return finish(snap.stepsStopped || watcher.wasStopped(snap.url, snap.turnIndex) ? 'stopped' : 'completed', snap);
      }
      if (snap.hasStopButton || snap.hasLoadingSpinner) sawWorking = true;
      if (snap.turnIndex >= 0) watcher.sawTurn(snap.url, snap.turnIndex, snap.hasStopButton);
      const fresh = snap.steps.filter((s) => !reported.includes(s));
      if (fresh.length > 0) {
        reported = [...snap.steps];
        for (const text of fresh) params.onStep?.(text, snap.steps);
      }
      if (snap.error) return finish('error', snap);
      // Paused on the person: waiting longer would only run into the timeout.
      if (snap.waitingFor) return finish('waiting', snap);
      // Where the set names no action row (the simulated generations), once we saw it work the stop
      // button and spinners going away is the page saying "done", even with nothing to show
      // (→ "completed with no visible response"). Where it names one, only that row says it.
      const idleNow = !snap.hasStopButton && !snap.hasLoadingSpinner && !snap.placeholder;
      const finished = looksFinished(snap) || (snap.footer === null && sawWorking && idleNow);
      // Our own click on the stop control (or the person's), and the control gone: stopped, row or not.
      const stopped = snap.stepsStopped || watcher.wasStopped(snap.url, snap.turnIndex);
      if (finished || (stopped && idleNow && snap.turnIndex >= 0)) {
        clearTimeout(settle?.timer);
        settle = undefined;
        finish(stopped ? 'stopped' : 'completed', snap);
        return;
      }
      if (!showsNoSign(snap)) {
        clearTimeout(settle?.timer);
        settle = undefined;
        return;
      }
      // Text, and neither the stop control nor the action row: once the text held still, the thread
      // JSON decides (the worker asks it), never the quiet itself (#1 of the 2026-12-02 review).
      if (settle?.length === snap.answerLength) return;
      clearTimeout(settle?.timer);
      settle = {
        length: snap.answerLength,
        timer: setTimeout(() => {
          const held = settle?.length;
          settle = undefined;
          const now = observe();
          if (now.answerLength === held && showsNoSign(now)) finish('stalled', now, true);
          else check(now, false);
        }, NO_SIGN_MS),
      };
    };

    params.signal?.addEventListener('abort', onAbort, { once: true });
    deadline = setTimeout(() => finish('timeout', observe()), params.timeoutMs);
    armStall();
    const initial = observe();
    let lastStop = initial.hasStopButton;
    let lastSpin = initial.hasLoadingSpinner;
    unsubscribe = watcher.subscribe((events, current) => {
      // The batch's snapshot is of the last turn: the bound turn's own, when that is the one bound.
      const snap = binding && binding.turnIndex !== current.turnIndex ? observe() : current;
      // Any event for the current turn, or a change in the working indicators, is progress.
      check(snap, events.length > 0 || snap.hasStopButton !== lastStop || snap.hasLoadingSpinner !== lastSpin);
      lastStop = snap.hasStopButton;
      lastSpin = snap.hasLoadingSpinner;
    });
    check(initial, false);
    live = true;
  });
}
