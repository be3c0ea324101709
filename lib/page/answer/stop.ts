import type { PageContext } from '../dom/context';
import { pointerClick } from '../dom/dom';
import { turnsOf } from '../dom/turns';
import type { PageWatcher } from './observer';
import { stopButton } from './reader';

/**
 * comet_stop's page side. Here, not with the ask (lib/page/composer/actions.ts, the ask kit): a stop
 * must work in every Perplexity page at once, without loading anything into it first.
 */
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
  // Marked before the click (a wait may see the idle turn in the same batch), and dropped when the control stays: a
  // stop that did not take must not make the turn's normal end read "stopped" (review 2026-12-05, page #2).
  const mark = watcher.markStopped(snap.url, snap.turnIndex, current() ?? undefined);
  pointerClick(btn);
  const gone = await ctx.waitFor(() => !stopButton(ctx.doc, ctx.set, current()), appearMs);
  mark.replaced = !gone;
  return { stopped: true, confirmed: !!gone, message: 'Agent stopped.' };
}
