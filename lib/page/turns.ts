import type { SelectorSet } from '../selectors';
import { all, closest, outermost } from './dom';

/**
 * Where the thread's turns are: what the answer reader, the observer and the thread family's
 * interaction boxes all stand on, so none of them has to import another for it.
 */

export function outsideThread(el: Element, set: SelectorSet): boolean {
  return closest(el, set.outsideThread) !== null;
}

/** Turns of the thread in order (outermost `[data-workflow-entry]`, never in the sidebar). */
export function turnsOf(doc: Document, set: SelectorSet): Element[] {
  return outermost(all(doc, set.turn)).filter((t) => !outsideThread(t, set));
}
