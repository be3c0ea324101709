import type { WatchSnapshot, WatchStatus } from '../../protocol/watch';
import { isComputerPath } from '../../protocol/urls';
import type { Mode, SelectorSet } from '../../selectors';
import type { BoxReader } from '../../selectors/thread-schema';
import { all, first } from '../dom/dom';
import { listConversations } from './conversations';
import { readInteractions } from '../checkpoints/interactions';
import type { PageDriver } from '../driver';
import { controlsMode, isOn, modeControls, modeOf, pillMode } from '../composer/mode';
import { looksFinished, type Snapshot } from '../answer/observer';
import { readQuestionNow } from '../answer/reader';
import { turnAt, turnsOf } from '../dom/turns';

/**
 * `page.watch` for the side panel: while the worker keeps this request open, every batch of page
 * mutations (the driver's one shared observer) becomes a small snapshot (mode, state of the current
 * turn, latest step, conversation links), sent as a progress message only when it changed. When
 * the worker cancels, the listener goes and, if nothing else listens, so does the observer: no
 * observer and no timer are left in the page.
 *
 * Reads here never click, type or open menus: a mode only shown inside a menu (generation A's
 * typeahead) reads as null, and the worker asks page.mode for it instead.
 */
export interface WatchContext {
  signal: AbortSignal;
  progress(message: string): void;
}

export function watchStatus(s: Snapshot): WatchStatus {
  if (s.turnIndex < 0) return 'idle';
  if (s.error) return 'error';
  if (s.waitingFor) return 'waiting';
  if (s.hasStopButton || s.hasLoadingSpinner) return 'working';
  if (looksFinished(s) || s.placeholder) return 'done';
  return 'working';
}

function threadTitle(doc: Document, set: SelectorSet): string {
  const title = (doc.title ?? '').replace(/\s+[-–|]\s+Perplexity(?: Assistant)?$/, '').trim();
  if (title && title !== 'Perplexity') return title;
  const firstTurn = turnsOf(doc, set)[0];
  return firstTurn ? readQuestionNow(firstTurn, set) : title;
}

/**
 * The mode when the page shows it without being touched; null otherwise (a mode only shown inside
 * a menu, a control not seen). What the side panel's watch reads on every change.
 */
export function visibleMode(doc: Document, set: SelectorSet): Mode | null {
  if (isComputerPath(doc.location?.pathname ?? '')) return 'computer';
  const controls = modeControls(doc, set);
  if (controls.trigger || controls.toggle) return controlsMode(controls, set, doc.location?.href ?? '').mode;
  const radio = all(doc, set.modeRadio).find(isOn);
  if (radio) return modeOf(radio, set);
  return first(doc, set.composer) ? pillMode(doc, set) : null;
}

export function watchSnapshot(win: Window, set: SelectorSet, snap: Snapshot, driver: Pick<PageDriver, 'watcher'>, reader?: BoxReader): WatchSnapshot {
  const doc = win.document;
  const turn = snap.turnIndex >= 0 ? turnAt(turnsOf(doc, set), snap.turnIndex) : undefined;
  return {
    url: snap.url,
    title: threadTitle(doc, set),
    mode: visibleMode(doc, set),
    status: watchStatus(snap),
    latestStep: snap.steps.at(-1) ?? '',
    question: turn ? readQuestionNow(turn, set) : '',
    ...(snap.error ? { error: snap.error } : {}),
    interactions: turn ? readInteractions(doc, set, undefined, reader) : [],
    conversations: listConversations({ win, doc, set, waitFor: driver.watcher.waitFor }),
  };
}

/** `reader`: the box fields of the thread page reader in use, from the page script's shelf (packs included). */
export function watchPage(win: Window, driver: PageDriver, context: WatchContext, reader?: () => BoxReader): Promise<{ ended: string }> {
  let last = '';
  const send = (snap: Snapshot) => {
    const json = JSON.stringify(watchSnapshot(win, driver.activeSet(), snap, driver, reader?.()));
    if (json === last) return;
    last = json;
    context.progress(json);
  };
  return new Promise((resolve) => {
    if (context.signal.aborted) return resolve({ ended: 'cancelled' });
    const unsubscribe = driver.watcher.subscribe((_events, snap) => send(snap));
    context.signal.addEventListener(
      'abort',
      () => {
        unsubscribe();
        resolve({ ended: 'cancelled' });
      },
      { once: true },
    );
    send(driver.watcher.snapshot());
  });
}
