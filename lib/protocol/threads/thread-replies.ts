import type { ThreadCheckpointInteraction, ThreadReply } from './threads';
import { cut } from '../text/clip';

/**
 * Which waiting prompt a reply is for: the one rule the MCP tools (before anything is sent) and the
 * page (before anything is clicked) both apply, so the page's guard is never made dead by an id
 * the MCP side filled in.
 *
 * - A `followup_uuid` names the prompt: the prompt carrying that id. When the id is one the page
 *   does not carry (the thread JSON's), the JSON's words for it find the prompt, and only when
 *   exactly one waiting prompt has those words: two prompts with the same words are never told
 *   apart by text.
 * - Without one, answers go to every waiting question (they are answered together); an approval,
 *   a denial or a sign-in goes to the one prompt of its type, and is refused when several wait.
 */
export type InteractionType = ThreadCheckpointInteraction['type'];

/** Files go with a message, never with a reply: the page has no place for them there (refused by the tool and the page). */
export const FILES_WITH_A_REPLY = 'Perplexity takes files with a message, not with an answer: send them with call_perplexity_computer on the same thread_id, with a message saying what to do with them.';

/** The prompt type each kind of reply answers. */
export const REPLY_KIND_FOR: Record<ThreadReply['kind'], InteractionType> = {
  answers: 'ask_user_question',
  approve: 'confirm_action',
  deny: 'confirm_action',
  connected: 'auth_required',
};

/** The tool that answers each prompt type (the seed's respond_with_tool). */
export const RESPONDER: Record<InteractionType, string> = {
  ask_user_question: 'answer_question',
  confirm_action: 'confirm_action_approve',
  auth_required: 'notify_connected',
  interaction_required: 'call_perplexity_computer',
  two_factor_required: 'call_perplexity_computer',
};

/** How to answer a prompt type, in words (for a refusal). */
export function responderHint(type: InteractionType): string {
  switch (type) {
    case 'ask_user_question':
      return 'answer_question';
    case 'confirm_action':
      return 'confirm_action_approve or confirm_action_deny';
    case 'auth_required':
      return 'notify_connected after signing in';
    default:
      return 'call_perplexity_computer after completing it in Perplexity';
  }
}

interface Prompt {
  type: InteractionType;
  followupUuid: string;
  text: string;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function listed(prompts: Prompt[]): string {
  return prompts.length ? prompts.map((p) => `${p.type} (followup_uuid ${p.followupUuid})`).join(', ') : 'nothing';
}

export type Targets<T> = { targets: T[] } | { problem: string };

/**
 * The prompts a reply is for, among those waiting (in page order). `wordsOf` gives the words of a
 * followup_uuid the prompts do not carry (the thread JSON's), when known.
 */
export function replyTargets<T extends Prompt>(
  waiting: T[],
  wanted: InteractionType,
  followupUuid: string | undefined,
  threadId: string,
  wordsOf?: (followupUuid: string) => string | undefined,
  /** What the thread is doing, for the "not waiting on that" refusal (` (event: complete)`). */
  state = '',
): Targets<T> {
  if (followupUuid !== undefined) {
    let named = waiting.find((p) => p.followupUuid === followupUuid);
    if (!named) {
      const words = wordsOf?.(followupUuid);
      const same = words === undefined ? [] : waiting.filter((p) => norm(p.text) === norm(words));
      if (same.length > 1) {
        return {
          problem: `followup_uuid "${cut(followupUuid, 80)}" is one of ${same.length} prompts with the same words in thread ${threadId} (${listed(same)}), and the page does not say which: answer it in Perplexity, or pass one of those followup_uuid values.`,
        };
      }
      named = same[0];
    }
    if (!named) return { problem: `followup_uuid "${cut(followupUuid, 80)}" matches nothing thread ${threadId} waits on; it waits on ${listed(waiting)}. Call read_thread to see what is waiting.` };
    if (named.type !== wanted) return { problem: `followup_uuid "${cut(followupUuid, 80)}" is a ${named.type}, not a ${wanted}: answer it with ${responderHint(named.type)}.` };
    return { targets: [named] };
  }
  const fitting = waiting.filter((p) => p.type === wanted);
  if (fitting.length === 0) {
    // Say how to answer what it does wait on, when that is one kind of prompt.
    const kinds = [...new Set(waiting.map((p) => p.type))];
    const how = kinds.length === 1 ? `: answer it with ${responderHint(kinds[0] as InteractionType)}` : '. Call read_thread to see its state';
    return { problem: `thread_id ${threadId} is not waiting on a ${wanted}; it waits on ${listed(waiting)}${state}${how}.` };
  }
  if (fitting.length > 1 && wanted !== 'ask_user_question') {
    return { problem: `thread_id ${threadId} has ${fitting.length} of those waiting (${listed(fitting)}): pass followup_uuid to say which.` };
  }
  return { targets: fitting };
}

/**
 * A page id for a prompt the page gives no id: the turn, the type and a hash of its words, and its
 * place among the prompts of that turn with the same words — so two prompts with the same words
 * get different ids, and an id stays the same while the prompt is shown.
 */
export function derivedPromptId(turn: number, type: InteractionType, textHash: string, sameWordsBefore: number): string {
  return `t${turn}-${type}-${textHash}${sameWordsBefore > 0 ? `-${sameWordsBefore + 1}` : ''}`;
}
