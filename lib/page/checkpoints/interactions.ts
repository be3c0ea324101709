import type { ThreadInteraction } from '../../protocol/watch';
import type { SelectorSet } from '../../selectors';
import type { Turn } from '../dom/turns';
import { pendingInteractions } from './thread-boxes';
import { pageReader } from './thread-readers';
import type { BoxReader } from '../../selectors/thread-schema';

/**
 * What a paused task (or a Deep Research answer asking first) waits on the person for, in the
 * current (last) turn, as the side panel and comet_wait show it: a question (one, or several in one
 * box), a confirmation, a sign-in, a form or a two-factor prompt. Named like the Perplexity Computer
 * server's events. Found with the thread page reader in use (thread-readers.ts: built-in, or added
 * as a file) and the selector set's interaction* candidates (thread-boxes.ts). Answering them
 * (`page.respond`) is in thread-answers.ts, loaded on demand. `turns`: the page's turns when the
 * caller has just assembled them (turnsOf). `reader`: a kit's, from the page script's shelf (a kit's own copy of
 * thread-readers.ts holds a shelf no pack reaches).
 */
export function readInteractions(doc: Document, set: SelectorSet, turns?: readonly Turn[], reader: BoxReader = pageReader()): ThreadInteraction[] {
  return pendingInteractions(doc, set, reader, turns).map((p) => p.interaction);
}

/** What a paused task asks the person (from the page's interaction box). */
export interface WaitingFor {
  type: string;
  text: string;
  options?: string[];
  /** Several questions answered together (Deep Research's clarifying questions), with their choices. */
  questions?: { id: string; text: string; options?: string[] }[];
  /** When the service skips the questions by itself (ISO), if the page says. */
  expiresAt?: string;
}

/** The first interaction of the turn, as page.wait and page.poll report it. */
export function waitingFor(pending: ThreadInteraction | undefined): WaitingFor | undefined {
  if (!pending) return undefined;
  return {
    type: pending.type,
    text: pending.text,
    ...(pending.options ? { options: pending.options } : {}),
    ...(pending.questions ? { questions: pending.questions } : {}),
    ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
  };
}
