import { type InteractionType, replyTargets } from '../../protocol/threads/thread-replies';
import type { ModelsList, ThreadCheckpoint, ThreadAnswer, ThreadCheckpointInteraction } from '../../protocol/threads/threads';

export type { InteractionType } from '../../protocol/threads/thread-replies';
import { threadIdProblem } from '../../protocol/threads/thread-ids';
import { clip } from '../tool';

/**
 * The Computer MCP server's parameter rules, as pure checks. Each returns undefined when the input
 * is fine, or one sentence that names the offending field and says what to do instead.
 */

export { threadIdProblem } from '../../protocol/threads/thread-ids';

export interface TurnArgs {
  message?: string;
  thread_id?: string;
  project_uuid?: string;
  project_visibility?: 'private' | 'project';
  mode?: string;
  model?: string;
  effort?: string;
}

/** The rules that need nothing but the arguments and the number of files (files never go alone: not on a new thread, not on a follow-up). */
export function turnArgsProblem(args: TurnArgs, attachmentCount = 0): string | undefined {
  if (args.thread_id !== undefined) {
    const problem = threadIdProblem(args.thread_id);
    if (problem) return problem;
  }
  // Files alone do not start a thread: Perplexity's composer sends nothing without words.
  if (args.thread_id === undefined && !args.message?.trim()) {
    return 'message is required to start a new thread: say what Computer should do (or pass thread_id to continue one).';
  }
  if (args.mode !== undefined && args.model !== undefined) {
    return 'mode and model cannot be used together: pass a mode, or a model (with an optional effort) — see models_list.';
  }
  if (args.effort !== undefined && args.model === undefined) {
    return 'effort requires model: pass the model whose efforts include it (see models_list), or leave effort out.';
  }
  // Files alone are not sent either: the page takes them only with words, and none are sent that the caller did not
  // write (a "Continue." of ours overrode a stop or woke a sleeping task: day-2 review H1; review 10, spec 14).
  if (args.thread_id !== undefined && !args.message?.trim() && attachmentCount > 0) {
    return 'attachment_urls go with a message: Perplexity takes files only with words. Pass a message saying what to do with them.';
  }
  if (args.thread_id !== undefined && !args.message?.trim() && (args.mode ?? args.model ?? args.effort) !== undefined) {
    return 'mode, model and effort go with a message: with thread_id and no message nothing is sent, so there is nothing to set them for. Pass the message, or leave them out.';
  }
  if (args.project_uuid !== undefined && args.thread_id !== undefined) {
    return 'project_uuid only applies to a new conversation, so it cannot be combined with thread_id: leave one out.';
  }
  if (args.project_visibility !== undefined && args.project_uuid === undefined) {
    return 'project_visibility requires project_uuid: pass the project (see projects_list), or leave project_visibility out.';
  }
  return undefined;
}

/** The rules that need the account's models_list: only values offered there are accepted. */
export function accountChoiceProblem(args: TurnArgs, models: ModelsList): string | undefined {
  if (args.mode !== undefined) {
    const modes = models.modes.map((m) => m.mode);
    // No modes at all is what comet-relay could read, not what the account offers: both real models configs of
    // 2026-07/08 list none where its reader looks (threads review 2026-12-05, M6).
    if (modes.length === 0) return `mode "${args.mode}" cannot be checked: comet-relay reads no Computer modes from Perplexity's models config. Leave mode out (Computer uses its default), or pass a model from models_list.`;
    if (!modes.includes(args.mode)) return `mode "${args.mode}" is not available to this account; models_list offers: ${list(modes)}.`;
  }
  if (args.model !== undefined) {
    const model = models.models.find((m) => m.id === args.model);
    if (!model) return `model "${short(args.model)}" is not available to this account; models_list offers: ${list(models.models.map((m) => m.id))}.`;
    if (args.effort !== undefined && model.efforts.length === 0) {
      return `effort "${args.effort}" cannot be checked: comet-relay reads no efforts for model "${model.id}" from Perplexity's models config. Leave effort out (the model's default).`;
    }
    if (args.effort !== undefined && !model.efforts.includes(args.effort)) {
      return `effort "${args.effort}" is not one of model "${model.id}"'s efforts: ${list(model.efforts)}.`;
    }
  }
  return undefined;
}

/**
 * The waiting interactions a reply is for, by the one rule of lib/protocol/threads/thread-replies.ts (the
 * page applies the same one). The problem names followup_uuid or thread_id and says what the
 * thread waits on.
 */
export function pickInteractions(
  checkpoint: ThreadCheckpoint,
  wanted: InteractionType,
  followupUuid: string | undefined,
): { interactions: ThreadCheckpointInteraction[] } | { problem: string } {
  const waiting = checkpoint.interactions.filter((i) => i.requiresUserResponse);
  const state = checkpoint.event ? ` (event: ${checkpoint.event})` : ' (it is still working)';
  const picked = replyTargets(waiting, wanted, followupUuid, checkpoint.threadId, undefined, state);
  return 'targets' in picked ? { interactions: picked.targets } : picked;
}

/**
 * Maps `answers` (keyed by question id or question text) to question ids, over every question the
 * given interactions ask. When a single question waits, a single answer under any key is its
 * answer. Every one of those questions must be answered.
 */
export function resolveAnswers(
  interactions: ThreadCheckpointInteraction[],
  answers: Record<string, ThreadAnswer>,
): { answers: Record<string, ThreadAnswer> } | { problem: string } {
  const entries = Object.entries(answers);
  if (entries.length === 0) return { problem: 'answers is empty: map each question (its id or its text, as interactive.questions lists them) to your answer.' };
  const questions = interactions.flatMap((i) => (i.questions?.length ? i.questions : [{ id: i.followupUuid, text: i.text }]));
  if (questions.length === 1 && entries.length === 1) {
    return { answers: { [(questions[0] as { id: string }).id]: (entries[0] as [string, ThreadAnswer])[1] } };
  }
  const byId: Record<string, ThreadAnswer> = {};
  for (const [key, answer] of entries) {
    const question =
      questions.find((q) => q.id === key) ?? questions.find((q) => normalize(q.text) === normalize(key));
    if (!question) {
      return { problem: `answers key "${short(key)}" matches no waiting question; the questions are: ${questions.map((q) => `${q.id} ("${short(q.text)}")`).join(', ')}.` };
    }
    byId[question.id] = answer;
  }
  const missing = questions.filter((q) => byId[q.id] === undefined);
  if (missing.length) {
    return { problem: `answers leaves out ${missing.map((q) => `${q.id} ("${short(q.text)}")`).join(', ')}: answer every waiting question (or pass followup_uuid to answer one prompt).` };
  }
  return { answers: byId };
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function list(values: readonly string[]): string {
  return values.length ? values.join(', ') : '(none)';
}

/** A value quoted back in a message, kept to one short line. */
function short(text: string): string {
  return clip(text, 80);
}
