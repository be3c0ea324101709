import { RelayError } from '../protocol/errors';
import type { ThreadReply as ThreadMethodReply } from '../protocol/threads';
import type { ThreadInteraction, ThreadReply } from '../protocol/watch';
import type { SelectorSet } from '../selectors';
import { THREAD_PAGE_READERS } from '../selectors/thread-page';
import type { ThreadPageReader } from '../selectors/thread-schema';
import type { PageContext } from './context';
import { answerBoxes } from './thread-actions';
import { type Box, boxesOf } from './thread-dom-reader';
import { toWatched } from './thread-model';
import { turnsOf } from './reader';

/**
 * What a paused task (or a Deep Research answer asking first) waits on the person for, in the
 * current (last) turn, as the side panel and comet_wait show it: a question (one, or several in one
 * box), a confirmation, a sign-in, a form or a two-factor prompt. Named like the Perplexity Computer
 * server's events. The boxes are found by the thread page reader (lib/selectors/thread-page.ts)
 * and the selector set's interaction* candidates, in one place: thread-dom-reader.ts.
 *
 * The id is the page's own when it has one; otherwise it is derived from the turn's index, the kind
 * and a hash of the prompt, so it stays the same for as long as the question is shown.
 */

export interface PendingInteraction {
  interaction: ThreadInteraction;
  box: Box;
}

const reader = (): ThreadPageReader => THREAD_PAGE_READERS[0] as ThreadPageReader;

/** Pending interactions of the current turn, in page order. */
export function pendingInteractions(doc: Document, set: SelectorSet, r: ThreadPageReader = reader()): PendingInteraction[] {
  const turns = turnsOf(doc, set);
  const turn = turns.at(-1);
  if (!turn) return [];
  return boxesOf(turn, turns.length - 1, { doc, set }, r).map((box) => ({ interaction: toWatched(box.interaction), box }));
}

export function readInteractions(doc: Document, set: SelectorSet): ThreadInteraction[] {
  return pendingInteractions(doc, set).map((p) => p.interaction);
}

/** The panel's words for a reply that does not fit what waits. */
function check(kind: ThreadInteraction['type'], reply: ThreadReply): void {
  const text = reply.kind === 'answer' || reply.kind === 'answers';
  if (kind === 'ask_user_question' && !text) throw new RelayError('INVALID_PARAMS', 'This is a question: answer it with text, not approve/deny.');
  if (kind === 'confirm_action' && reply.kind !== 'approve' && reply.kind !== 'deny') throw new RelayError('INVALID_PARAMS', 'This is a confirmation: approve or deny it.');
  if (kind === 'auth_required' && reply.kind !== 'connected') throw new RelayError('INVALID_PARAMS', 'This is a sign-in: open its link, sign in, then say it is done.');
  if (kind === 'interaction_required' || kind === 'two_factor_required') throw new RelayError('INVALID_PARAMS', 'Only Perplexity can complete this step: open the Perplexity tab.');
}

/**
 * Answers one pending interaction from the side panel or page.respond: a suggested answer is
 * clicked, other text is typed and sent, several questions are chosen and submitted together, a
 * confirmation gets Approve or Deny, a sign-in "I've connected". Resolves once the page took it.
 */
export async function respond(ctx: PageContext, interactionId: string, reply: ThreadReply, timeoutMs = 5000): Promise<{ ok: boolean }> {
  const url = ctx.doc.location?.href ?? '';
  const pending = pendingInteractions(ctx.doc, ctx.set).find((p) => p.interaction.id === interactionId);
  if (!pending) {
    throw new RelayError('INVALID_PARAMS', `That question is no longer waiting for an answer on ${url} (id ${interactionId}).`);
  }
  check(pending.interaction.type, reply);
  const asThread: ThreadMethodReply =
    reply.kind === 'answer'
      ? { kind: 'answers', answers: { [pending.box.interaction.questions?.[0]?.id ?? interactionId]: reply.text } }
      : reply.kind === 'connected'
        ? { kind: 'connected', message: '' }
        : reply;
  await answerBoxes(ctx, reader(), [pending.box], asThread, timeoutMs);
  return { ok: true };
}
