import { RelayError } from '../protocol/errors';
import type { ThreadInteraction, ThreadReply } from '../protocol/watch';
import type { SelectorSet } from '../selectors';
import { typeInto } from './composer';
import type { PageContext } from './context';
import { all, cleanText, first, isDisabled, isHidden, outermost, pointerClick, probeMiss, spokenText, union } from './dom';
import { turnsOf } from './reader';

/**
 * What a computer-mode task waits on the person for, read from the current (last) turn: a
 * question (a box with a text field and/or suggested answers) or a confirmation (a box with
 * Approve / Deny). Named like the Perplexity Computer server's events (`ask_user_question`,
 * `confirm_action`). All selectors come from the set (interaction*).
 *
 * The id is the page's own when it has one; otherwise it is derived from the turn's index, the kind
 * and a hash of the prompt, so it stays the same for as long as the question is shown.
 */

export interface PendingInteraction {
  interaction: ThreadInteraction;
  box: Element;
}

/** FNV-1a, 32 bits, hex: short and stable. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function kindOf(box: Element, set: SelectorSet): ThreadInteraction['type'] {
  if (first(box, set.interactionApprove)) return 'confirm_action';
  if (first(box, set.interactionField) || first(box, set.interactionOption)) return 'ask_user_question';
  return 'interaction_required';
}

/** Pending interactions of the current turn, in page order. */
export function pendingInteractions(doc: Document, set: SelectorSet): PendingInteraction[] {
  const turns = turnsOf(doc, set);
  const turn = turns.at(-1);
  if (!turn) return [];
  const index = turns.length - 1;
  return outermost(union(turn, set.interactionBox))
    .filter((box) => !isHidden(box))
    .map((box) => {
      const type = kindOf(box, set);
      const promptEl = first(box, set.interactionPrompt);
      const text = promptEl ? cleanText(promptEl) : spokenText(box, true);
      const options = type === 'ask_user_question' ? all(box, set.interactionOption).map((o) => cleanText(o)).filter(Boolean) : [];
      const own = box.getAttribute('data-followup-uuid') ?? box.getAttribute('data-interaction-id');
      const interaction: ThreadInteraction = {
        type,
        id: own || `t${index}-${type}-${hash(text)}`,
        text,
        ...(options.length ? { options } : {}),
      };
      return { interaction, box };
    });
}

export function readInteractions(doc: Document, set: SelectorSet): ThreadInteraction[] {
  return pendingInteractions(doc, set).map((p) => p.interaction);
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function clickable(el: Element | null): el is HTMLElement {
  return !!el && !isDisabled(el) && !isHidden(el);
}

/**
 * Answers one pending interaction: a suggested answer is clicked, any other text is typed into the
 * box's field and sent; a confirmation gets Approve or Deny. Resolves once the page took it (the
 * interaction is gone from the turn).
 */
export async function respond(ctx: PageContext, interactionId: string, reply: ThreadReply, timeoutMs = 5000): Promise<{ ok: boolean }> {
  const url = ctx.doc.location?.href ?? '';
  const pending = pendingInteractions(ctx.doc, ctx.set).find((p) => p.interaction.id === interactionId);
  if (!pending) {
    throw new RelayError('INVALID_PARAMS', `That question is no longer waiting for an answer on ${url} (id ${interactionId}).`);
  }
  const { box, interaction } = pending;
  if (interaction.type === 'ask_user_question') {
    if (reply.kind !== 'answer') throw new RelayError('INVALID_PARAMS', 'This is a question: answer it with text, not approve/deny.');
    const option = all(box, ctx.set.interactionOption).find((o) => norm(cleanText(o)) === norm(reply.text));
    if (clickable(option ?? null)) {
      pointerClick(option as HTMLElement);
    } else {
      const field = first(box, ctx.set.interactionField) as HTMLElement | null;
      if (!field) throw probeMiss(ctx.set, 'interactionField', url, { within: ' inside the question box', hint: 'answer it in the Perplexity tab' });
      typeInto(ctx, field, reply.text);
      const send = await ctx.waitFor(() => {
        const b = first(box, ctx.set.interactionSend);
        return clickable(b) ? b : null;
      }, 1000);
      if (!send) {
        throw probeMiss(ctx.set, 'interactionSend', url, { within: ' as an enabled button inside the question box', hint: 'answer it in the Perplexity tab' });
      }
      pointerClick(send);
    }
  } else if (interaction.type === 'confirm_action') {
    if (reply.kind === 'answer') throw new RelayError('INVALID_PARAMS', 'This is a confirmation: approve or deny it.');
    const button = first(box, reply.kind === 'approve' ? ctx.set.interactionApprove : ctx.set.interactionDeny);
    if (!clickable(button)) {
      const key = reply.kind === 'approve' ? 'interactionApprove' : 'interactionDeny';
      throw probeMiss(ctx.set, key, url, { within: ' as an enabled button inside the confirmation box', hint: 'answer it in the Perplexity tab' });
    }
    pointerClick(button);
  } else {
    throw new RelayError('INVALID_PARAMS', 'Only Perplexity can complete this step: open the Perplexity tab.');
  }
  const gone = await ctx.waitFor(() => !pendingInteractions(ctx.doc, ctx.set).some((p) => p.interaction.id === interactionId), timeoutMs);
  if (!gone) throw new RelayError('TIMEOUT', `The page did not take the reply within ${timeoutMs} ms (the question is still shown on ${url}).`);
  return { ok: true };
}
