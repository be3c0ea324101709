import type { RelayError } from '../../protocol/error/relay-error';
import { isConversationPath } from '../../protocol/urls';
import type { SelectorSet } from '../../selectors';
import type { PageContext } from '../dom/context';
import { all, candidatesMiss, cleanText, closest, first, iconsIn, isHidden, matches, outermost, pointerClick, spokenText, union } from '../dom/dom';
import { readInteractions, type WaitingFor, waitingFor } from '../checkpoints/interactions';
import { mathOf, renderText } from '../dom/text';
import { outsideThread, type Turn, turnAt, turnCountOf, turnsOf } from '../dom/turns';

/**
 * Reads turns of the open thread: question, steps, answer, error, and whether the agent is
 * still working. Status comes from elements of the current turn (stop button, spinners, steps
 * header), never from words in the page text (an answer may say "Searching").
 */

export type Status = 'working' | 'idle' | 'completed';


export interface TurnState {
  index: number;
  question: string;
  steps: string[];
  stepsFinished: boolean;
  /** The page says the user stopped this turn ("Stopped after N steps"). */
  stepsStopped: boolean;
  /** The steps' header as the page words it ("Reviewed 10 sources"), when it shows one. */
  stepsHeader?: string;
  response: string;
  /** Length of the full response, also when `response` was cut to maxLength. */
  totalLength: number;
  truncated: boolean;
  hasAnswer: boolean;
  error?: string;
  /** Still an empty virtualized placeholder after trying to scroll it into view. */
  placeholder: boolean;
}

export interface Indicators {
  hasStopButton: boolean;
  hasLoadingSpinner: boolean;
}

export interface PollResult extends Indicators {
  status: Status;
  steps: string[];
  currentStep: string;
  response: string;
  proseCount: number;
  turnCount: number;
  lastTurnIndex: number;
  questionText: string;
  url: string;
  truncated: boolean;
  totalLength: number;
  error?: string;
  /** The user stopped the agent on this turn (status is then completed or idle). */
  stopped?: boolean;
  /** What the agent waits on the person for (a computer task's question, Deep Research asking first). */
  waitingFor?: WaitingFor;
  /**
   * The page showed no sign the set knows of this turn's state (or its action row with no answer
   * block): the SELECTOR_MISS text naming what was tried. The worker asks the thread JSON and fails
   * with this text when the JSON cannot say either; `status` is then only a placeholder.
   */
  unconfirmed?: string;
}

// ---------------------------------------------------------------- locating things

/**
 * The answer blocks a turn reads: those with text (a layout may mount an empty twin beside the
 * real one), else all of them.
 */
export function answersOf(turn: Turn): Element[] {
  const withText = turn.answers.filter((a) => (a.textContent ?? '').trim() !== '');
  return withText.length > 0 ? withText : [...turn.answers];
}

/**
 * What a turn answers with: its outermost prose outside the question, in page order (nesting counts once), else its
 * answer blocks. The turn's, not only the answer blocks': a Deep Research turn draws its report as prose in a card of
 * its own before the answer block, which holds a summary pointing to it (`deep-research-thread-page-…-2026-02-27.html`;
 * the Oct 2026 page text of one says "the full brief is in the report above"; captures review 2026-12-05, H2).
 */
export function answerRoots(turn: Turn, set: SelectorSet): Element[] {
  const prose = outermost(all(turn, set.prose)).filter((p) => !closest(p, set.userBubble) && !turn.question?.contains(p));
  return prose.length > 0 ? prose : answersOf(turn);
}

/**
 * The steps block. A set's `stepsBlock` candidate that is neither in the answer nor in the user's bubble; else the
 * box of the steps' header: its highest ancestor in the turn's own block that holds neither the prose nor the
 * question. On the Sep 2026 captures (`search-thread-one-turn-…-2026-09-26.html`, `search-thread-several-turns-…`)
 * that is the answer block's first item, `[data-workflow-final-text]` › the items › [the folding header + an empty
 * box beside it, where its rows unfold], with the prose in the next item.
 */
function stepsBlockOf(turn: Turn, set: SelectorSet): { block: Element; head?: Element } | null {
  for (const selector of set.stepsBlock ?? []) {
    for (const el of all(turn, [selector])) {
      if (!closest(el, set.answer) && !closest(el, set.userBubble)) return { block: el };
    }
  }
  const head = stepsHeadOf(turn, set);
  if (!head) return null;
  const prose = answerRoots(turn, set)[0];
  // No prose found (the answer block itself stands for it): the header alone, never the answer read as steps.
  if (prose?.contains(head)) return { block: head, head };
  let block = head;
  for (let up = head.parentElement; up && !turn.blocks.includes(block) && !up.contains(prose ?? null) && !up.contains(turn.question); up = up.parentElement) block = up;
  return { block, head };
}

export function isPlaceholder(turn: Turn, set: SelectorSet): boolean {
  return !first(turn, set.userBubble) && !first(turn, set.answer) && cleanText(turn) === '';
}

/** Outermost prose on the page, outside the sidebar: comet_poll's proseCount. */
export function proseCount(doc: Document, set: SelectorSet): number {
  return outermost(all(doc, set.prose)).filter((p) => !outsideThread(p, set)).length;
}

// ---------------------------------------------------------------- working indicators

/** Buttons where the stop control lives that hold one of its icons (whatever their label says). */
function stopByIcon(doc: Document, set: SelectorSet): Element[] {
  const icons = set.stopIcons ?? [];
  if (!set.stopControls || icons.length === 0) return [];
  return union(doc, set.stopControls).filter((b) => iconsIn(b, set).some((icon) => icons.includes(icon)));
}

/**
 * A stop button counts when it is labelled or marked as one (not "has an svg rect": Expand pane
 * has one), visible, not in the sidebar, and not inside an earlier turn.
 */
export function stopButton(doc: Document, set: SelectorSet, current: Turn | null, known?: readonly Turn[]): Element | null {
  let turns = known;
  const decoys = set.stopDecoys ?? [];
  for (const btn of [...union(doc, set.stopButton), ...stopByIcon(doc, set)]) {
    // "Stop dictation" carries the same icon in the same box: clicking it stops nothing we want.
    if (decoys.length > 0 && matches(btn, decoys)) continue;
    // A hidden tab panel (the user is looking at Links) does not mean the agent stopped.
    if (isHidden(btn, set.sourcesPanel) || outsideThread(btn, set)) continue;
    // The turns only when there is a button to place (a snapshot passes the ones it assembled).
    turns ??= turnsOf(doc, set);
    const turn = turns.find((t) => t.contains(btn));
    if (turn && !turn.is(current)) continue;
    return btn;
  }
  return null;
}

/**
 * The answer's action row (Copy / Share / Helpful) of this turn: the page's own "this answer is
 * done". August 2026 put it beside the answer block, September 2026 inside it after the prose
 * (captures `search-thread-one-turn-…-2026-09-26.html`, `thread-page-main-excerpt-…-2026-09-27.html`):
 * either counts, never a row inside the prose or the question. A turn whose answer block no
 * candidate matches (#5 of the 2026-12-02 review) still shows its row: that is what tells "done,
 * but unread" from "nothing yet". Null when the set names no action row.
 */
export function answerFooter(turn: Turn | null, set: SelectorSet): boolean | null {
  if (!set.answerFooter) return null;
  if (!turn) return false;
  const answer = answersOf(turn).at(-1);
  return union(turn, set.answerFooter).some(
    (el) =>
      !closest(el, set.prose) &&
      !turn.question?.contains(el) &&
      (!answer || answer.contains(el) || (answer.compareDocumentPosition(el) & 4) !== 0) &&
      !isHidden(el, set.sourcesPanel),
  );
}

/** Spinners only inside the current turn: the sidebar's skeleton loaders use the same classes. */
export function hasSpinner(turn: Turn | null, set: SelectorSet): boolean {
  if (!turn) return false;
  return union(turn, set.spinner).some((s) => !isHidden(s, set.sourcesPanel) && !outsideThread(s, set));
}

export function indicators(doc: Document, set: SelectorSet, current: Turn | null): Indicators {
  return { hasStopButton: stopButton(doc, set, current) !== null, hasLoadingSpinner: hasSpinner(current, set) };
}

/**
 * From the page's signs only. Where the set names an action row: working while the stop control
 * (or a spinner) shows, completed once the row shows; a turn with text and neither sign reads
 * `working` and pollWhole marks it `unconfirmed` for the thread JSON to decide (#1 of the
 * 2026-12-02 review: never "completed" from a stop control's absence). Where the set names no
 * row (the simulated generations A and B), the stop control going away with text is their "done".
 */
export function statusOf(ind: Indicators, turn: Pick<TurnState, 'hasAnswer' | 'stepsFinished' | 'error'> | null, footer: boolean | null = null): Status {
  if (ind.hasStopButton || ind.hasLoadingSpinner) return 'working';
  if (!turn || (turn.error && !turn.hasAnswer)) return 'idle'; // failed: nothing completed (see `error`)
  if (footer) return 'completed';
  return turn.hasAnswer || turn.stepsFinished ? (footer === null ? 'completed' : 'working') : 'idle';
}

/**
 * The SELECTOR_MISS text of a turn the page shows no sign of (`answer`: its action row is up but no
 * answer block is recognised, #5 of the 2026-12-02 review): every candidate tried. Short: the page
 * script carries it; the worker adds what the thread JSON said and what to do.
 */
export function signMiss(set: SelectorSet, url: string, answer = false): string {
  // Named like every miss that leaves the driver: the set that missed.
  const after = `${answer ? ' beside the action row' : ' for a turn with text'} (selector set ${set.name})`;
  return answer
    ? candidatesMiss('answer', set.answer, url, { after }).message
    : candidatesMiss('stopButton/answerFooter', [...set.stopButton, ...(set.stopControls ?? []), ...(set.answerFooter ?? [])], url, { after }).message;
}

// ---------------------------------------------------------------- reading a turn

/** Innermost text blocks: the rows of a steps block whose rows carry no marker of their own. */
function leafBlocks(block: Element): Element[] {
  const blocks = Array.from(block.querySelectorAll('div, li, p'));
  const set = new Set(blocks);
  const hasBlockChild = new Set<Element>();
  for (const b of blocks) for (let p = b.parentElement; p && p !== block; p = p.parentElement) if (set.has(p)) hasBlockChild.add(p);
  return blocks.filter((b) => !hasBlockChild.has(b));
}

/**
 * Steps seen per turn. The site folds the rows away once the agent is done, leaving only
 * "Finished N steps": what was seen while it worked stays readable afterwards.
 */
const seenSteps = new WeakMap<Element, string[]>();

export interface StepsState {
  steps: string[];
  finished: boolean;
  stopped: boolean;
  /** The rows are folded away (the block's toggle says collapsed). */
  folded: boolean;
  /** The header line as the page words it ("Completed 3 steps"), when one was seen. */
  header?: string;
}

/**
 * The steps' header: an element of `stepsHeader` outside the question and the prose whose text reads like one,
 * *before* the answer's prose (Sep 2026 puts it inside the answer block, above the prose: captures
 * `search-thread-one-turn-…-2026-09-26.html`, `thread-page-main-excerpt-…-2026-09-27.html`). Related questions and
 * footers come after the answer: a button there reading "Completed 3 …" is no header (#24 of the 2026-12-02 review).
 * Failing that, a folding control (`stepsToggle`) inside the answer block above its prose, where those captures have
 * the header's button, the only one there: while the agent works it reads the current step, which no pattern can
 * know. Nowhere else: a turn's other blocks hold folds that are not steps (the French capture's Sources pane, the
 * February report card's Export menu; review 2026-12-05, today #2 and #4).
 */
function stepsHeadOf(turn: Turn, set: SelectorSet): Element | undefined {
  const header = new RegExp(set.stepsHeaderPattern, 'i');
  const answer = answersOf(turn)[0];
  const prose = answer ? first(answer, set.prose) : null;
  const before = prose ?? answer;
  return union(turn, [...(set.stepsHeader ?? []), ...set.stepsToggle]).find(
    (el) =>
      !closest(el, set.prose) &&
      !turn.question?.contains(el) &&
      (!before || before.compareDocumentPosition(el) & 2 || (!prose && answer?.contains(el))) &&
      (header.test(cleanText(el)) || Boolean(answer?.contains(el) && matches(el, set.stepsToggle))),
  );
}

/**
 * A Computer task's tool steps: one per tool row (the set's `toolStep`), its label only (`toolStepLabel`,
 * not the time and duration beside it), in page order. Rows quoted inside the answer are not steps, nor a row whose
 * label the set names but cannot find: its text would carry the running duration, a new "step" every second.
 */
export function toolSteps(turn: Turn, set: SelectorSet): string[] {
  if (!set.toolStep) return [];
  const out: string[] = [];
  for (const row of outermost(union(turn, set.toolStep))) {
    if (closest(row, set.prose)) continue;
    const label = set.toolStepLabel ? first(row, set.toolStepLabel) : row;
    if (!label) continue;
    const text = cleanText(label);
    if (text && !out.includes(text)) out.push(text);
  }
  return out;
}

export function readSteps(turn: Turn, set: SelectorSet): StepsState {
  const found = stepsBlockOf(turn, set);
  const remembered = seenSteps.get(turn.anchor) ?? [];
  // No steps box found: a Computer task's tool rows, by their own recorded hook, wherever they stand in the turn.
  if (!found) return { steps: [...new Set([...remembered, ...toolSteps(turn, set)])], finished: false, stopped: false, folded: false };
  const { block, head } = found;
  const header = new RegExp(set.stepsHeaderPattern, 'i');
  const finishedRe = new RegExp(set.stepsFinishedPattern, 'i');
  const stoppedRe = new RegExp(set.stepsStoppedPattern, 'i');
  const marked = all(block, set.stepRow ?? []);
  const rows = marked.length > 0 ? marked : leafBlocks(block);
  const steps = [...remembered];
  const top = cleanText(head ?? block);
  let headerLine = head ? top : undefined;
  let finished = finishedRe.test(top);
  let stopped = stoppedRe.test(top);
  for (const row of rows) {
    // A Computer tool row's step is its label, not the time and duration written beside it.
    const label = set.toolStep && set.toolStepLabel && matches(row, set.toolStep) ? first(row, set.toolStepLabel) : null;
    const text = cleanText(label ?? row);
    if (!text) continue;
    // The block's header row (it holds the fold toggle, and a Cancel button while working) repeats
    // the current step as its label: reading it as a step would list every step twice.
    const isHeaderRow = Boolean(head?.contains(row) || first(row, set.stepsToggle) || closest(row, set.stepsToggle));
    if (isHeaderRow || header.test(text)) {
      headerLine ??= text;
      finished ||= finishedRe.test(text);
      stopped ||= stoppedRe.test(text);
      continue; // a summary line is not a step
    }
    if (!steps.includes(text)) steps.push(text);
  }
  if (steps.length > remembered.length) seenSteps.set(turn.anchor, steps);
  const toggle = first(block, set.stepsToggle);
  return { steps, finished, stopped, folded: toggle?.getAttribute('aria-expanded') === 'false', ...(headerLine ? { header: headerLine } : {}) };
}

export function readQuestionNow(turn: Turn, set: SelectorSet): string {
  // Sep 2026 pages without the site's classes: the question block itself is the bubble (when it holds no answer).
  const bubble = first(turn, set.userBubble) ?? (turn.question && !turn.answers.some((a) => turn.question?.contains(a)) ? turn.question : null);
  if (!bubble) return '';
  const text = first(bubble, set.queryText) ?? bubble;
  return renderText(text, { skip: [...set.answerChrome, ...set.queryExpand], markdown: false, lines: true });
}

export function readAnswer(turn: Turn, set: SelectorSet): string {
  const roots = answerRoots(turn, set);
  if (roots.length === 0) return '';
  return renderText(roots, {
    skip: set.answerChrome,
    codeLanguage: set.codeLanguage,
    citation: set.citationInline,
    citationUrl: set.citationUrlAttr,
    math: mathOf(set),
    markdown: true,
  });
}

export function readError(turn: Turn, set: SelectorSet): string | undefined {
  for (const el of union(turn, set.errorMessage)) {
    if (closest(el, set.prose) || isHidden(el)) continue; // an alert quoted inside an answer is text
    const text = spokenText(el, true);
    if (text) return text;
  }
  return undefined;
}

export interface ReadOptions {
  maxLength?: number;
  /** False: the answer's prose is not read (response ''), for a turn whose ask stream gives it. */
  prose?: boolean;
}

/** Synchronous read of a rendered turn (no scrolling, no clicking). */
export function readTurnNow(turn: Turn, index: number, set: SelectorSet, opts: ReadOptions = {}): TurnState {
  const full = opts.prose === false ? '' : readAnswer(turn, set);
  const { steps, finished, stopped, header } = readSteps(turn, set);
  const cut = opts.maxLength !== undefined && full.length > opts.maxLength;
  const error = readError(turn, set);
  return {
    index,
    question: readQuestionNow(turn, set),
    steps,
    stepsFinished: finished,
    stepsStopped: stopped,
    ...(header ? { stepsHeader: header } : {}),
    response: cut ? full.slice(0, opts.maxLength) : full,
    totalLength: full.length,
    truncated: cut,
    hasAnswer: full.length > 0,
    ...(error ? { error } : {}),
    placeholder: isPlaceholder(turn, set),
  };
}

// ---------------------------------------------------------------- async reads (virtualization, folding)

/** Remembers scroll offsets of the element's scrollable ancestors and the window. */
function saveScroll(el: Element, win: Window): () => void {
  const saved: Array<[Element, number]> = [];
  for (let p = el.parentElement; p; p = p.parentElement) if (p.scrollTop !== 0) saved.push([p, p.scrollTop]);
  const x = win.scrollX;
  const y = win.scrollY;
  return () => {
    for (const [p, top] of saved) p.scrollTop = top;
    if (win.scrollX !== x || win.scrollY !== y) win.scrollTo(x, y);
  };
}

export interface TurnReadOptions extends ReadOptions {
  /** Unfold the steps block when its rows are folded away and unknown. Default true. */
  expandSteps?: boolean;
  /** How long to wait for a virtualized turn or a folded question to render. Default 3000 ms. */
  renderTimeoutMs?: number;
}

/**
 * Reads turn `index` (the page's index of the turn; negative counts from the end; default the
 * latest). An off-screen turn that is an empty placeholder (virtualized) is scrolled into view,
 * awaited through the page watcher until it has content, read, and the scroll position is put back.
 */
export async function readTurn(ctx: PageContext, index = -1, opts: TurnReadOptions = {}): Promise<TurnState | null> {
  const { doc, set, win } = ctx;
  const timeout = opts.renderTimeoutMs ?? 3000;
  let turn = turnAt(turnsOf(doc, set), index);
  if (!turn) return null;
  const i = turn.index;

  let restore: (() => void) | null = null;
  if (isPlaceholder(turn, set)) {
    restore = saveScroll(turn.anchor, win);
    turn.scrollIntoView({ block: 'center' });
    const rendered = await ctx.waitFor(() => {
      const t = turnAt(turnsOf(doc, set), i);
      return t && !isPlaceholder(t, set) ? t : null;
    }, timeout);
    turn = rendered ?? turnAt(turnsOf(doc, set), i) ?? turn;
  }
  try {
    const state = readTurnNow(turn, i, set, opts);
    if (opts.expandSteps !== false && state.steps.length === 0) state.steps = await readStepsUnfolded(ctx, turn, timeout);
    return state;
  } finally {
    restore?.();
  }
}

/**
 * Unfolds a folded steps block, reads its rows, folds it back: only a block the set marks. A box found from its
 * header is never clicked (no capture shows where its rows unfold, and a click on the person's page takes focus from
 * the composer and may open what is not the rows; review 2026-12-05, today #3 and #5): its turn's steps come from the
 * ask stream, the thread JSON, or what the page showed while they were unfolded.
 */
async function readStepsUnfolded(ctx: PageContext, turn: Turn, timeoutMs: number): Promise<string[]> {
  const found = stepsBlockOf(turn, ctx.set);
  const toggle = found && !found.head ? first(found.block, ctx.set.stepsToggle) : null;
  if (toggle?.getAttribute('aria-expanded') !== 'false') return [];
  pointerClick(toggle);
  const steps = await ctx.waitFor(() => {
    const read = readSteps(turn, ctx.set).steps;
    return read.length > 0 ? read : null;
  }, Math.min(timeoutMs, 1000));
  // Folded back as it was (the same control: React keeps it; one drawn anew is the page's own state).
  if (toggle.isConnected && toggle.getAttribute('aria-expanded') === 'true') pointerClick(toggle);
  return steps ?? [];
}

/** comet_poll's snapshot of the latest turn, plus our extra fields. */
export async function poll(ctx: PageContext, opts: ReadOptions = {}): Promise<PollResult> {
  return cutPoll(await pollWhole(ctx, opts.prose), opts.maxLength);
}

/** A poll's response cut to `maxLength` (what poll with that maxLength returns), so one whole poll serves every cut. */
export function cutPoll(whole: PollResult, maxLength?: number): PollResult {
  if (maxLength === undefined || whole.response.length <= maxLength) return whole;
  return { ...whole, response: whole.response.slice(0, maxLength), truncated: true };
}

/**
 * A conversation page that shows answer prose while no turn is recognised: the set does not know
 * this page's markup. Every read says so rather than report "idle", "no answer" or "still working".
 * A conversation page with neither turn nor prose is idle for comet_poll: a thread still drawing (opened from the
 * sidebar, a `?q=` load), a deleted one, a challenge page are all that, and the worker then gives the page a moment
 * (the repair kit's settle wait) and reads it again (review 2026-12-05, day 4, F1: a miss there failed them all).
 */
export function unrecognisedTurns(doc: Document, set: SelectorSet): RelayError | null {
  if (!isConversationPath(doc.location?.pathname ?? '')) return null;
  if (turnsOf(doc, set).length > 0) return null;
  const prose = outermost(all(doc, set.prose)).filter((p) => !outsideThread(p, set) && !isHidden(p) && cleanText(p) !== '');
  if (prose.length === 0) return null;
  return candidatesMiss('turn', [...set.turn, ...set.answer], doc.location?.href ?? '', {
    // What the person can do about it (doctor --page, capture, selectors add) the MCP layer says of every miss.
    after: ' (question blocks, then answer blocks), although answer prose is on the page',
  });
}

/** Throws the miss of unrecognisedTurns, if any. */
export function requireTurns(doc: Document, set: SelectorSet): void {
  const miss = unrecognisedTurns(doc, set);
  if (miss) throw miss;
}

async function pollWhole(ctx: PageContext, prose?: boolean): Promise<PollResult> {
  const { doc, set } = ctx;
  requireTurns(doc, set);
  const turns = turnsOf(doc, set);
  // No clicking from a poll except to unfold steps the page folded and we never saw.
  const state = turns.length > 0 ? await readTurn(ctx, -1, { prose }) : null;
  const current = turnsOf(doc, set).at(-1) ?? null;
  const ind = indicators(doc, set, current);
  const footer = answerFooter(current, set);
  const status = statusOf(ind, state, footer);
  const url = doc.location?.href ?? '';
  const unconfirmed =
    status === 'working' && !ind.hasStopButton && !ind.hasLoadingSpinner
      ? signMiss(set, url)
      : footer && current && answersOf(current).length === 0
        ? signMiss(set, url, true)
        : undefined;
  const pending = waitingFor(readInteractions(doc, set)[0]);
  return {
    status,
    steps: state?.steps ?? [],
    currentStep: status === 'working' ? (state?.steps.at(-1) ?? '') : '',
    response: state?.response ?? '',
    ...ind,
    proseCount: proseCount(doc, set),
    turnCount: turnCountOf(turns),
    lastTurnIndex: turnCountOf(turns) - 1,
    questionText: state?.question ?? '',
    url,
    truncated: state?.truncated ?? false,
    totalLength: state?.totalLength ?? 0,
    ...(state?.error ? { error: state.error } : {}),
    ...(state?.stepsStopped && status !== 'working' ? { stopped: true } : {}),
    ...(pending ? { waitingFor: pending } : {}),
    ...(unconfirmed ? { unconfirmed } : {}),
  };
}
