/**
 * Computer tasks in the simulated perplexity.ai: the script events of a task (types.ts folds them
 * into `ScriptEvent`) and the data they carry. Pure types, shared by the server (tasks.ts,
 * task-state.ts, thread-json.ts) and the page script (client/task.ts).
 *
 * How a task looks while it waits on the person, sleeps or is blocked is not public (see
 * README.md, "Computer tasks"): each of those guesses is rendered in exactly one place
 * (client/task.ts) and serialised in exactly one place (thread-json.ts).
 */

export interface QuestionSpec {
  /** The page's own id of the question (thread JSON: `questions[].id`). */
  id: string;
  text: string;
  options?: string[];
  /** More than one option may be chosen. */
  multiple?: boolean;
}

export interface ConnectorSpec {
  /** The connector's id, e.g. `slack`. */
  id: string;
  /** Its display name, e.g. `Slack`. */
  name: string;
  /** Where the person signs in (opening it in the browser counts as signing in). */
  authUrl: string;
  title?: string;
  description?: string;
}

/** A file a task produced. Versions of one file share `rootId`; `parentId` is the version before. */
export interface AssetSpec {
  id: string;
  filename: string;
  mediaType: string;
  /** Which bytes the site serves for it (files.ts). */
  content: 'pdf-report' | 'png-chart' | 'png-chart-v2';
  primary: boolean;
  rootId?: string;
  parentId?: string;
}

/** What a turn can end on besides an answer, an error or Stop: the composer is free again. */
export type BlockKind = 'waiting' | 'two_factor_required' | 'interaction_required' | 'insufficient_credits' | 'access_denied';

export interface BlockSpec {
  kind: BlockKind;
  /** What the page says, as a person reads it. */
  text: string;
  /** interaction_required: the form's page; insufficient_credits: the billing page. */
  url?: string;
  /** interaction_required: the form's title. */
  title?: string;
  /**
   * insufficient_credits: why. Absent: `spending_limit_exceeded`, the only value on record (NOTES §B); the reader
   * also takes our guesses `insufficient_credits` and `quota_exhausted`.
   */
  reason?: string;
  /** insufficient_credits: when the quota comes back (ISO, UTC; our guess). */
  quotaResetDate?: string;
}

export type TaskEvent =
  /** The task's Todo list (its plan): replaces the goals. */
  | { t: number; type: 'plan'; goals: string[] }
  /** A goal of the Todo list is done. */
  | { t: number; type: 'goal-done'; index: number }
  /** Files produced by the task (download links on the turn). */
  | { t: number; type: 'files'; assets: AssetSpec[] }
  /** The agent pauses itself until `wakeInMs` (already scaled by speed) after this event; the script goes on after that. */
  | { t: number; type: 'sleep'; wakeInMs: number; reason: string }
  /** The turn ends on a block: nothing runs until the person continues the thread. */
  | { t: number; type: 'block'; block: BlockSpec };

/** A file the composer's file input received, as the server recorded it. */
export interface TurnAttachment {
  id: string;
  filename: string;
  mimeType: string;
  size: number;
  /** sha256 of the bytes, hex. */
  sha256: string;
}

/** Computer settings of a turn: a mode, or a model with an effort. */
export interface TurnSettings {
  mode?: string;
  model?: string;
  effort?: string;
}
