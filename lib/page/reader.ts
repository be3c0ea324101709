import type { SelectorSet } from '../selectors';
import type { PageContext } from './context';
import { all, cleanText, closest, first, isHidden, outermost, pointerClick, union } from './dom';
import { renderText } from './text';

/**
 * Reads turns of the open thread: question, steps, answer, error, and whether the agent is
 * still working. Status comes from elements of the current turn (stop button, spinners, steps
 * header), never from words in the page text (failure mode 1).
 */

export type Status = 'working' | 'idle' | 'completed';

export interface TurnState {
  index: number;
  question: string;
  steps: string[];
  stepsFinished: boolean;
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
}

// ---------------------------------------------------------------- locating things

function outsideThread(el: Element, set: SelectorSet): boolean {
  return closest(el, set.outsideThread) !== null;
}

/** Turns of the thread in order (outermost `[data-workflow-entry]`, never in the sidebar). */
export function turnsOf(doc: Document, set: SelectorSet): Element[] {
  return outermost(all(doc, set.turn)).filter((t) => !outsideThread(t, set));
}

/** Answer roots of a turn: outermost prose inside the answer container, so nesting counts once. */
function proseRoots(turn: Element, set: SelectorSet): Element[] {
  const answers = outermost(union(turn, set.answer));
  const scope = answers.length > 0 ? answers : [turn];
  const prose = outermost(scope.flatMap((a) => all(a, set.prose))).filter((p) => !closest(p, set.userBubble));
  if (prose.length > 0) return prose;
  return answers;
}

/** The steps block: the first candidate that is neither in the answer nor in the user's bubble. */
function stepsBlockOf(turn: Element, set: SelectorSet): Element | null {
  for (const selector of set.stepsBlock) {
    for (const el of all(turn, [selector])) {
      if (!closest(el, set.answer) && !closest(el, set.userBubble)) return el;
    }
  }
  return null;
}

export function isPlaceholder(turn: Element, set: SelectorSet): boolean {
  return !first(turn, set.userBubble) && !first(turn, set.answer) && !stepsBlockOf(turn, set) && cleanText(turn) === '';
}

/** Outermost prose on the page, outside the sidebar: comet_poll's proseCount. */
export function proseCount(doc: Document, set: SelectorSet): number {
  return outermost(all(doc, set.prose)).filter((p) => !outsideThread(p, set)).length;
}

// ---------------------------------------------------------------- working indicators

/**
 * A stop button counts when it is labelled as one (not "has an svg rect": failure mode 2),
 * visible, not in the sidebar, and not inside an earlier turn.
 */
export function stopButton(doc: Document, set: SelectorSet, current: Element | null): Element | null {
  const turns = turnsOf(doc, set);
  for (const btn of union(doc, set.stopButton)) {
    if (isHidden(btn) || outsideThread(btn, set)) continue;
    const turn = turns.find((t) => t.contains(btn));
    if (turn && turn !== current) continue;
    return btn;
  }
  return null;
}

/** Spinners only inside the current turn: the sidebar's skeleton loaders use the same classes. */
export function hasSpinner(turn: Element | null, set: SelectorSet): boolean {
  if (!turn) return false;
  return union(turn, set.spinner).some((s) => !isHidden(s) && !outsideThread(s, set));
}

export function indicators(doc: Document, set: SelectorSet, current: Element | null): Indicators {
  return { hasStopButton: stopButton(doc, set, current) !== null, hasLoadingSpinner: hasSpinner(current, set) };
}

export function statusOf(ind: Indicators, turn: TurnState | null): Status {
  if (ind.hasStopButton || ind.hasLoadingSpinner) return 'working';
  if (!turn) return 'idle';
  return turn.hasAnswer || turn.stepsFinished ? 'completed' : 'idle';
}

// ---------------------------------------------------------------- reading a turn

export function readSteps(turn: Element, set: SelectorSet): { steps: string[]; finished: boolean } {
  const block = stepsBlockOf(turn, set);
  if (!block) return { steps: [], finished: false };
  const finishedRe = new RegExp(set.stepsFinishedPattern, 'i');
  const steps: string[] = [];
  let finished = false;
  for (const row of all(block, set.stepRow)) {
    const text = cleanText(row);
    if (!text) continue;
    if (finishedRe.test(text)) {
      finished = true; // the summary header is not a step
      continue;
    }
    if (!steps.includes(text)) steps.push(text);
  }
  return { steps, finished: finished || finishedRe.test(cleanText(block)) };
}

export function readQuestionNow(turn: Element, set: SelectorSet): string {
  const bubble = first(turn, set.userBubble);
  if (!bubble) return '';
  const text = first(bubble, set.queryText) ?? bubble;
  return renderText(text, { skip: [...set.answerChrome, ...set.queryExpand], markdown: false });
}

export function readAnswer(turn: Element, set: SelectorSet): string {
  const roots = proseRoots(turn, set);
  if (roots.length === 0) return '';
  return renderText(roots, {
    skip: set.answerChrome,
    codeLanguage: set.codeLanguage,
    citation: set.citationInline,
    markdown: true,
  });
}

export function readError(turn: Element, set: SelectorSet): string | undefined {
  for (const el of union(turn, set.errorMessage)) {
    if (closest(el, set.prose) || isHidden(el)) continue; // an alert quoted inside an answer is text
    const text = cleanText(el);
    if (text) return text;
  }
  return undefined;
}

export interface ReadOptions {
  maxLength?: number;
}

/** Synchronous read of a rendered turn (no scrolling, no clicking). */
export function readTurnNow(turn: Element, index: number, set: SelectorSet, opts: ReadOptions = {}): TurnState {
  const full = readAnswer(turn, set);
  const { steps, finished } = readSteps(turn, set);
  const cut = opts.maxLength !== undefined && full.length > opts.maxLength;
  const error = readError(turn, set);
  return {
    index,
    question: readQuestionNow(turn, set),
    steps,
    stepsFinished: finished,
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
  /** Click "show more" on a folded question and fold it back afterwards. Default true. */
  expandQuestion?: boolean;
  /** How long to wait for a virtualized turn or a folded question to render. Default 3000 ms. */
  renderTimeoutMs?: number;
}

/**
 * Reads turn `index` (negative counts from the end; default the latest). An off-screen turn that
 * is an empty placeholder (failure mode 11) is scrolled into view, awaited through the page
 * watcher until it has content, read, and the scroll position is put back.
 */
export async function readTurn(ctx: PageContext, index = -1, opts: TurnReadOptions = {}): Promise<TurnState | null> {
  const { doc, set, win } = ctx;
  const timeout = opts.renderTimeoutMs ?? 3000;
  const turns = turnsOf(doc, set);
  const i = index < 0 ? turns.length + index : index;
  let turn = turns[i];
  if (!turn) return null;

  let restore: (() => void) | null = null;
  if (isPlaceholder(turn, set)) {
    restore = saveScroll(turn, win);
    turn.scrollIntoView({ block: 'center' });
    const rendered = await ctx.waitFor(() => {
      const t = turnsOf(doc, set)[i];
      return t && !isPlaceholder(t, set) ? t : null;
    }, timeout);
    turn = rendered ?? turnsOf(doc, set)[i] ?? turn;
  }
  try {
    const state = readTurnNow(turn, i, set, opts);
    if (opts.expandQuestion !== false) state.question = await readQuestionExpanded(ctx, turn, state.question, timeout);
    return state;
  } finally {
    restore?.();
  }
}

/** Long questions fold behind a toggle; unfold, read, fold back so the page looks as it did. */
async function readQuestionExpanded(ctx: PageContext, turn: Element, folded: string, timeoutMs: number): Promise<string> {
  const bubble = first(turn, ctx.set.userBubble);
  const toggle = bubble ? first(bubble, ctx.set.queryExpand) : null;
  if (!toggle || toggle.getAttribute('aria-expanded') === 'true') return folded;
  pointerClick(toggle);
  const expanded = await ctx.waitFor(() => {
    const now = readQuestionNow(turn, ctx.set);
    return now !== folded || toggle.getAttribute('aria-expanded') === 'true' ? now : null;
  }, Math.min(timeoutMs, 1000));
  if (toggle.isConnected && toggle.getAttribute('aria-expanded') === 'true') pointerClick(toggle);
  return expanded ?? folded;
}

/** comet_poll's snapshot of the latest turn, plus our extra fields. */
export async function poll(ctx: PageContext, opts: ReadOptions = {}): Promise<PollResult> {
  const { doc, set } = ctx;
  const turns = turnsOf(doc, set);
  const state = turns.length > 0 ? await readTurn(ctx, -1, { ...opts, expandQuestion: false }) : null;
  const current = turnsOf(doc, set).at(-1) ?? null;
  const ind = indicators(doc, set, current);
  const status = statusOf(ind, state);
  return {
    status,
    steps: state?.steps ?? [],
    currentStep: status === 'working' ? (state?.steps.at(-1) ?? '') : '',
    response: state?.response ?? '',
    ...ind,
    proseCount: proseCount(doc, set),
    turnCount: turns.length,
    lastTurnIndex: turns.length - 1,
    questionText: state?.question ?? '',
    url: doc.location?.href ?? '',
    truncated: state?.truncated ?? false,
    totalLength: state?.totalLength ?? 0,
    ...(state?.error ? { error: state.error } : {}),
  };
}
