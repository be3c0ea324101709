import type { ThreadInteraction } from '../protocol/watch';
import type { SelectorSet } from '../selectors';
import { THREAD_PAGE_READERS } from '../selectors/thread-page';
import type { ThreadPageReader } from '../selectors/thread-schema';
import { type Box, boxesOf } from './thread-boxes';
import { toWatched } from './thread-model';
import { turnsOf } from './reader';

/**
 * What a paused task (or a Deep Research answer asking first) waits on the person for, in the
 * current (last) turn, as the side panel and comet_wait show it: a question (one, or several in one
 * box), a confirmation, a sign-in, a form or a two-factor prompt. Named like the Perplexity Computer
 * server's events. The boxes are found by the thread page reader (lib/selectors/thread-page.ts)
 * and the selector set's interaction* candidates, in one place: thread-boxes.ts. Answering them
 * (`page.respond`) is in thread-answers.ts, loaded on demand.
 *
 * The id is the page's own when it has one; otherwise it is derived from the turn's index, the kind
 * and a hash of the prompt, so it stays the same for as long as the question is shown.
 */

export interface PendingInteraction {
  interaction: ThreadInteraction;
  box: Box;
}

/** The thread page reader in use. */
export const pageReader = (): ThreadPageReader => THREAD_PAGE_READERS[0] as ThreadPageReader;

/** Pending interactions of the current turn, in page order. */
export function pendingInteractions(doc: Document, set: SelectorSet, r: ThreadPageReader = pageReader()): PendingInteraction[] {
  const turns = turnsOf(doc, set);
  const turn = turns.at(-1);
  if (!turn) return [];
  return boxesOf(turn, turns.length - 1, { doc, set }, r).map((box) => ({ interaction: toWatched(box.interaction), box }));
}

export function readInteractions(doc: Document, set: SelectorSet): ThreadInteraction[] {
  return pendingInteractions(doc, set).map((p) => p.interaction);
}
