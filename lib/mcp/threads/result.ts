import { z } from 'zod';
import { taskStatusOf } from '../../protocol/threads/thread-events';
import { RESPONDER } from '../../protocol/threads/thread-replies';
import {
  THREAD_EVENTS,
  TaskStatus,
  type ThreadCheckpoint,
  type ThreadCheckpointInteraction,
  ThreadFile,
  ThreadSource,
  type ThreadTranscript,
  type TurnNotSent,
} from '../../protocol/threads/threads';

/**
 * What the thread tools return, in the Computer MCP server's shapes: a checkpoint the browser
 * classified becomes the seed's result object (snake_case, optional fields left out when empty).
 * Pure functions, so every event's mapping is unit-tested without a browser.
 */

// ── the seed's objects ────────────────────────────────────────────────────────

const Question = z.object({
  id: z.string(),
  text: z.string(),
  options: z.array(z.string()).optional(),
  multiple: z.boolean().optional(),
});

/** `interactive`: what the task waits on, and which tool answers it. Fields depend on `type`. */
export const Interactive = z.object({
  type: z.string(),
  thread_id: z.string().optional(),
  respond_with_tool: z.string().optional(),
  /** confirm_action: the tool that denies (respond_with_tool approves). */
  deny_with_tool: z.string().optional(),
  followup_uuid: z.string().optional(),
  text: z.string().optional(),
  questions: z.array(Question).optional(),
  expires_at: z.string().optional(),
  connector: z.string().optional(),
  display_name: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  auth_url: z.string().optional(),
  url: z.string().optional(),
  requires_user_response: z.boolean().optional(),
  reason: z.string().optional(),
  billing_url: z.string().optional(),
  quota_reset_date: z.string().optional(),
  /** read_thread only: the prompt's id under the seed's name for it there (the same as followup_uuid). */
  request: z.object({ answer_submission_uuid: z.string() }).optional(),
})
  // Named: tools/list writes it once per schema, under $defs, with its fields (lib/mcp/tool-listing.ts).
  .meta({ id: 'interactive' });
export type Interactive = z.infer<typeof Interactive>;

/**
 * The task tools' result (call_perplexity_computer, answer_question, confirm_*, notify_connected):
 * one definition for the five. What each field means is said once, in call_perplexity_computer's
 * description and the server's instructions (EVENT_GUIDE), not again here.
 */
export const ThreadResultShape = {
  /** Absent when nothing was sent. */
  thread_id: z.string().optional(),
  event: z.enum(THREAD_EVENTS),
  /** Markdown: the answer, the question, the action to confirm, or why it stopped. */
  text: z.string(),
  /** The MCP Tasks state of the Computer task itself. */
  task_status: TaskStatus.optional(),
  sources: z.array(ThreadSource).optional(),
  files: z.array(ThreadFile).optional(),
  wake_at: z.string().optional(),
  interactive: Interactive.optional(),
  pending_interactions: z.array(Interactive).optional(),
  optional_auth_requests: z.array(Interactive).optional(),
};
const ThreadResult = z.object(ThreadResultShape);
export type ThreadResult = z.infer<typeof ThreadResult>;

/** read_thread's result. */
export const TranscriptShape = {
  thread_id: z.string(),
  event: z.literal('transcript'),
  status: z.string(),
  text: z.string(),
  truncated: z.boolean().optional(),
  web_state: z
    .object({
      thread_status: z.string(),
      wake_at: z.string().nullable(),
      entries: z.array(z.object({ entry_id: z.string().nullable(), status: z.string() })),
      interactions: z.array(Interactive),
      auth_requests: z.array(Interactive),
      form_links: z.array(z.object({ title: z.string(), url: z.string() })),
      source: z.string(),
    })
    .meta({ id: 'web_state' })
    .nullable(),
  web_state_error: z.string().optional(),
};
export type TranscriptResult = z.infer<z.ZodObject<typeof TranscriptShape>>;

// ── checkpoint → result ───────────────────────────────────────────────────────

/** One waiting (or optional) interaction in the seed's `interactive` shape. */
export function toInteractive(threadId: string, interaction: ThreadCheckpointInteraction): Interactive {
  const base: Interactive = { type: interaction.type, thread_id: threadId };
  if (interaction.requiresUserResponse) {
    base.respond_with_tool = RESPONDER[interaction.type];
    if (interaction.type === 'confirm_action') base.deny_with_tool = 'confirm_action_deny';
    base.followup_uuid = interaction.followupUuid;
  }
  if (interaction.text) base.text = interaction.text;
  if (interaction.questions?.length) {
    base.questions = interaction.questions.map((q) => ({
      id: q.id,
      text: q.text,
      ...(q.options?.length ? { options: q.options } : {}),
      ...(q.multiple !== undefined ? { multiple: q.multiple } : {}),
    }));
  }
  if (interaction.expiresAt) base.expires_at = interaction.expiresAt;
  if (interaction.type === 'auth_required') {
    Object.assign(base, {
      connector: interaction.connector,
      display_name: interaction.displayName,
      title: interaction.title,
      description: interaction.description,
      auth_url: interaction.authUrl,
    });
  }
  if (interaction.url) base.url = interaction.url;
  base.requires_user_response = interaction.requiresUserResponse;
  return dropUndefined(base);
}

function accountInteractive(event: 'insufficient_credits' | 'access_denied', account: ThreadCheckpoint['account']): Interactive {
  return dropUndefined({
    type: event,
    reason: account?.reason ?? event,
    billing_url: account?.billingUrl,
    quota_reset_date: account?.quotaResetDate,
  });
}

/** The seed: pending_interactions is "present when more than one question or confirmation is waiting". */
function isQuestionOrConfirmation(i: ThreadCheckpointInteraction): boolean {
  return i.type === 'ask_user_question' || i.type === 'confirm_action';
}

/** The seed's result for a classified checkpoint (`event: null` means the hold ended: timeout). */
export function checkpointResult(checkpoint: ThreadCheckpoint, heldMs?: number): ThreadResult {
  const threadId = checkpoint.threadId;
  const waiting = checkpoint.interactions.filter((i) => i.requiresUserResponse);
  const event = checkpoint.event ?? 'timeout';
  const taskStatus = taskStatusOf(checkpoint.event, waiting.length > 0);

  const result: ThreadResult = { thread_id: threadId, event, text: resultText(checkpoint, event, heldMs), task_status: taskStatus };
  if (checkpoint.sources.length) result.sources = checkpoint.sources.slice(0, 50);
  if (checkpoint.files.length) result.files = checkpoint.files;
  if (event === 'sleep' && checkpoint.wakeAt) result.wake_at = checkpoint.wakeAt;

  if (event === 'insufficient_credits' || event === 'access_denied') {
    result.interactive = accountInteractive(event, checkpoint.account);
  } else if (event !== 'timeout' && waiting.length > 0) {
    // The interaction of the checkpoint's own type leads; the others wait behind it.
    const ordered = [...waiting.filter((i) => i.type === event), ...waiting.filter((i) => i.type !== event)];
    result.interactive = toInteractive(threadId, ordered[0] as ThreadCheckpointInteraction);
    const answerable = ordered.filter(isQuestionOrConfirmation);
    if (answerable.length > 1) result.pending_interactions = answerable.map((i) => toInteractive(threadId, i));
  } else if (event === 'timeout' && waiting.filter(isQuestionOrConfirmation).length > 1) {
    result.pending_interactions = waiting.filter(isQuestionOrConfirmation).map((i) => toInteractive(threadId, i));
  }
  const optional = checkpoint.optionalAuth.filter((i) => !i.requiresUserResponse);
  if (optional.length) result.optional_auth_requests = optional.map((i) => toInteractive(threadId, i));
  return result;
}

/** The seed's "before a message is sent" result: no thread_id, no task_status. */
export function notSentResult(refusal: TurnNotSent): ThreadResult {
  return { event: refusal.event, text: refusal.text || defaultAccountText(refusal.event), interactive: accountInteractive(refusal.event, refusal.account) };
}

/**
 * The wait broke after the turn was submitted (the browser or the host went away, a reading failed, the thread could
 * not be found again). The task was sent; what it does now this wait did not see: the seed's `timeout` (whose
 * task_status is the seed's table, not a sighting), worded as not known, never "keeps running" (threads review
 * 2026-12-05, M2). THREAD_NOT_FOUND is no sighting either: it also comes of a thread the recent-threads list does not
 * show, an older one (day-3 review M2).
 */
export function stoppedWaitingResult(threadId: string, cause: { code: string; message: string }): ThreadResult {
  // No task_status: the seed leaves it out when the server cannot tell the task's state, as this wait cannot.
  return {
    thread_id: threadId,
    event: 'timeout',
    text:
      `comet-relay stopped waiting for this task: [${cause.code}] ${cause.message} The task was sent; whether it still runs, this wait could not see: ` +
      `call read_thread with thread_id ${threadId} to check on it (do not send it again).`,
  };
}

function defaultAccountText(event: 'insufficient_credits' | 'access_denied'): string {
  return event === 'insufficient_credits'
    ? 'Your Perplexity account has insufficient credits: nothing was sent. Top up or change the spending limit, then send the message again.'
    : 'Computer is not available for this Perplexity account: nothing was sent.';
}

function resultText(checkpoint: ThreadCheckpoint, event: ThreadResult['event'], heldMs?: number): string {
  if (event === 'timeout') {
    const seconds = heldMs === undefined ? '' : ` after ${Math.round(heldMs / 1000)} s`;
    const latest = checkpoint.steps.at(-1);
    const progress = checkpoint.steps.length ? ` So far ${checkpoint.steps.length} step(s); latest: ${latest}.` : '';
    return (
      `Computer is still working; this call stopped waiting${seconds}.${progress} ` +
      `The task keeps running in Perplexity: call read_thread with thread_id ${checkpoint.threadId} to check on it, or ` +
      'call_perplexity_computer with that thread_id and no message to wait again (nothing is sent).'
    );
  }
  if (checkpoint.text.trim()) return checkpoint.text;
  const first = checkpoint.interactions[0];
  if (event === 'ask_user_question' && first) return questionText(first);
  if (first?.text) return first.text;
  if ((event === 'insufficient_credits' || event === 'access_denied') && checkpoint.account) return defaultAccountText(event);
  return '';
}

/** "Which format should I use?\n1. PDF\n2. DOCX": the seed's way of putting a question in `text`. */
export function questionText(interaction: ThreadCheckpointInteraction): string {
  const questions = interaction.questions ?? [];
  if (questions.length === 0) return interaction.text;
  return questions
    .map((q) => [q.text, ...(q.options ?? []).map((option, i) => `${i + 1}. ${option}`)].join('\n'))
    .join('\n\n');
}

// ── transcript → read_thread ──────────────────────────────────────────────────

export function transcriptResult(transcript: ThreadTranscript): TranscriptResult {
  const threadId = transcript.threadId;
  const web = transcript.webState;
  const result: TranscriptResult = {
    thread_id: threadId,
    event: 'transcript',
    status: transcript.status,
    text: transcript.text,
    web_state: web
      ? {
          thread_status: web.thread_status,
          wake_at: web.wake_at,
          entries: web.entries,
          interactions: web.interactions.map((i) => ({
            ...toInteractive(threadId, i),
            request: { answer_submission_uuid: i.followupUuid },
          })),
          auth_requests: web.auth_requests.map((i) => toInteractive(threadId, i)),
          form_links: web.form_links,
          source: web.source,
        }
      : null,
  };
  if (transcript.truncated) result.truncated = true;
  if (transcript.webStateError) result.web_state_error = transcript.webStateError;
  return result;
}

/** structuredContent plus the same object as JSON text, as the seed's clients read either. */
export function jsonResult<T extends object>(value: T, isError = false) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function parseThreadResult(value: unknown): ThreadResult {
  return ThreadResult.parse(value);
}
