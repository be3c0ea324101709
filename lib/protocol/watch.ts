import { z } from 'zod';
import { PageMode } from './page/page-methods';
import { ThreadQuestion } from './threads/threads';

import { INTERACTION_TEXT_MAX } from './limits';

export { INTERACTION_TEXT_MAX };

/**
 * `page.watch`: a long-lived request the service worker opens to the driven Perplexity tab while at
 * least one side panel is open, and cancels when the last one closes. The page answers with a
 * stream of `progress` messages whose `message` is a JSON `WatchSnapshot` (sent only when it
 * changed), and resolves only when cancelled. It is not in the host's method table: MCP clients
 * cannot open watches, only the worker can.
 *
 * The content script imports only the types from here (it stays free of zod).
 */

/**
 * Something a running thread waits on the person for (computer mode). The names follow the
 * Perplexity Computer MCP server's events (`ask_user_question`, `confirm_action`, `auth_required`,
 * `interaction_required`), so the thread tools can hand the same object to MCP clients.
 */
export const ThreadInteraction = z.object({
  type: z.enum(['ask_user_question', 'confirm_action', 'auth_required', 'interaction_required', 'two_factor_required']),
  /** The page's own id for this prompt (its followup_uuid when it has one). */
  id: z.string().min(1).max(200),
  /** The question, or the action the agent wants to take (a longer one is cut for showing: interactionShown). */
  text: z.string().max(INTERACTION_TEXT_MAX),
  /**
   * Choices offered for a question, in the page's order; several questions answered together (Deep Research asks
   * this way), each with its choices. As a thread's checkpoint holds them, whole: the panel answers with these very
   * ids and words, and one past a narrower bound made every state of the panel unreadable (fixes review 1).
   */
  options: ThreadQuestion.shape.options,
  questions: z.array(ThreadQuestion.pick({ id: true, text: true, options: true })).max(200).optional(),
  /** Sign-in or form link (auth_required, interaction_required). */
  url: z.string().optional(),
  /** When the service skips the question by itself (ISO), if the page says. */
  expiresAt: z.string().optional(),
});
export type ThreadInteraction = z.infer<typeof ThreadInteraction>;

/** An interaction as the side panel shows it: its words cut to INTERACTION_TEXT_MAX, its ids and choices whole. */
export function interactionShown(i: ThreadInteraction): ThreadInteraction {
  return i.text.length > INTERACTION_TEXT_MAX ? { ...i, text: `${i.text.slice(0, INTERACTION_TEXT_MAX - 1)}…` } : i;
}

export const WatchStatus = z.enum(['idle', 'working', 'waiting', 'done', 'error']);
export type WatchStatus = z.infer<typeof WatchStatus>;

export const WatchSnapshot = z.object({
  url: z.string(),
  title: z.string(),
  /** The mode when it can be read without touching the page (URL, chip, toggle); else null. */
  mode: PageMode.nullable(),
  /** State of the page's current (last) turn; idle when the page has no turn. */
  status: WatchStatus,
  latestStep: z.string(),
  /** The question of the current turn, when the page shows it. */
  question: z.string(),
  error: z.string().optional(),
  /**
   * What the current thread waits on the person for (empty until the reader can see them), its words as long as the
   * page shows them (a confirm_action may quote a whole email): cut only for the panel (interactionShown; fixes review 2 #6).
   */
  interactions: z.array(ThreadInteraction.extend({ text: z.string().max(200_000) })),
  /** Conversation links visible in the page (sidebar, library), in the page's order. */
  conversations: z.array(z.object({ title: z.string(), url: z.string() })),
});
export type WatchSnapshot = z.infer<typeof WatchSnapshot>;

export const watchMethods = {
  'page.watch': { params: z.object({}).strict(), result: z.object({ ended: z.string() }) },
  /**
   * Answers an interaction from the side panel (worker-only, like page.watch): the page types the
   * answer or clicks Approve / Deny, and resolves once the question is gone (lib/page/checkpoints/interactions.ts).
   */
  'page.respond': {
    params: z.object({
      interactionId: z.string().min(1).max(200),
      reply: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('answer'), text: z.string().min(1).max(10_000) }),
        /** Several questions at once, by question id (or text). */
        z.object({ kind: z.literal('answers'), answers: z.record(z.string().max(10_000), z.string().min(1).max(10_000)) }),
        z.object({ kind: z.literal('approve'), reason: z.string().max(2000) }),
        z.object({ kind: z.literal('deny'), reason: z.string().max(2000) }),
        /** The person signed in (a connector's auth_required). */
        z.object({ kind: z.literal('connected') }),
      ]),
    }),
    result: z.object({ ok: z.boolean() }),
  },
} as const;
export type ThreadReply = z.infer<(typeof watchMethods)['page.respond']['params']>['reply'];

/** Parses one progress message of a watch; undefined for anything that is not a snapshot. */
export function parseWatchSnapshot(message: string): WatchSnapshot | undefined {
  try {
    const parsed = WatchSnapshot.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
