import { RelayError } from '../protocol/errors';
import { isConversationPath } from '../protocol/urls';
import { composerText, submit, typePrompt } from './composer';
import type { PageContext } from './context';
import { first, pointerClick, probeMiss } from './dom';
import type { PageWatcher } from './observer';
import { readAnswer, stopButton, turnsOf } from './reader';

export { typePrompt, submit } from './composer';
export { expandCitations } from './citations';
export { listConversations } from './conversations';
export { getMode, setMode } from './mode';

/**
 * What a later wait needs to bind to the question just asked (failure mode 5): the thread's turn
 * count and last answer *before* submitting. After Submit the new turn appears only after a
 * server round trip; until then the previous answer is still the last one on the page.
 */
export interface AskHandle {
  afterTurn: number;
  baselineUrl: string;
  /** Length and head of the previous last answer, for diagnostics. */
  previousAnswerKey: string;
  submittedAt: number;
  via: 'button' | 'enter';
}

function answerKey(ctx: PageContext): string {
  const last = turnsOf(ctx.doc, ctx.set).at(-1);
  if (!last) return '';
  const text = readAnswer(last, ctx.set);
  return `${text.length}:${text.slice(0, 64)}`;
}

/** Goes to an empty thread inside the page (SPA link), never by reloading: that would end us. */
async function openNewThread(ctx: PageContext): Promise<void> {
  const onEmptyHome = () => turnsOf(ctx.doc, ctx.set).length === 0 && !isConversationPath(ctx.doc.location.pathname);
  if (onEmptyHome()) return;
  const link = first(ctx.doc, ctx.set.newThread) as HTMLElement | null;
  if (!link) throw probeMiss(ctx.set, 'newThread', ctx.doc.location.href);
  link.click();
  const ok = await ctx.waitFor(() => onEmptyHome() && first(ctx.doc, ctx.set.composer), 5000);
  if (!ok) throw new RelayError('TIMEOUT', `a new thread did not open within 5 s on ${ctx.doc.location.href}`);
}

export async function ask(
  ctx: PageContext,
  watcher: PageWatcher,
  params: { prompt: string; newChat?: boolean },
  confirmMs = 5000,
): Promise<AskHandle> {
  if (!params.prompt.trim()) throw new RelayError('INVALID_PARAMS', 'prompt is empty');
  if (params.newChat) await openNewThread(ctx);

  const before = watcher.snapshot();
  const handle = {
    afterTurn: before.turnCount,
    baselineUrl: before.url,
    previousAnswerKey: answerKey(ctx),
    submittedAt: Date.now(),
  };
  const composer = typePrompt(ctx, params.prompt);
  const via = await submit(ctx, composer);

  // Confirm the page took it: a new turn, a stop button, a new URL, or the composer emptied.
  const taken = await ctx.waitFor(() => {
    const snap = watcher.snapshot();
    return (
      snap.turnCount > before.turnCount ||
      snap.hasStopButton ||
      snap.url !== before.url ||
      !composer.isConnected ||
      composerText(composer).trim() === ''
    );
  }, confirmMs);
  if (!taken) {
    throw new RelayError(
      'AGENT_ERROR',
      `the prompt was typed but the page did not take it within ${confirmMs / 1000} s (no new turn, no stop button, composer still full) on ${ctx.doc.location.href}`,
    );
  }
  return { ...handle, via };
}

export interface StopResult {
  stopped: boolean;
  /** The stop button went away after the click. */
  confirmed: boolean;
  message: string;
}

/**
 * Clicks the stop button. The agent may not have started yet when asked to stop, so wait up to
 * `appearMs` for the button (the reference retried 5 × 1 s); then confirm it disappeared.
 */
export async function stop(ctx: PageContext, watcher: PageWatcher, appearMs = 5000): Promise<StopResult> {
  const current = () => turnsOf(ctx.doc, ctx.set).at(-1) ?? null;
  const btn = await ctx.waitFor(() => stopButton(ctx.doc, ctx.set, current()), appearMs);
  if (!btn) return { stopped: false, confirmed: false, message: 'No stop button found.' };
  const snap = watcher.snapshot();
  watcher.markStopped(snap.url, snap.turnIndex);
  pointerClick(btn);
  const gone = await ctx.waitFor(() => !stopButton(ctx.doc, ctx.set, current()), appearMs);
  return { stopped: true, confirmed: gone === true, message: 'Agent stopped.' };
}
