import type { TaskStatus, ThreadEvent } from './threads';

/**
 * What each Computer event means, in one table that every layer reads: the MCP result's
 * `task_status` (the seed "Perplexity Computer MCP Server", its table "Events and MCP Tasks
 * states", exactly), read_thread's `status` words as Perplexity names a thread's state, and the
 * side panel's words for it. The panel's own status (working / waiting / done / error) is derived
 * from `task_status`, never listed again. `entry`: web_state's entry status for a turn read from the page, in the
 * thread JSON's words (review 14b, F3: a failed task's turn read COMPLETED): COMPLETED for a finished turn, a
 * cancelled one too (the SIMULATED- canceled Computer body of the captures: entry COMPLETED, workflow
 * WORKFLOW_CANCELED), FAILED for an error (our fixture B-computer-error.json; no capture shows one), PENDING while the
 * turn runs or waits.
 */
export const EVENT_TABLE = {
  complete: { taskStatus: 'completed', threadStatus: 'idle', words: 'Done', entry: 'COMPLETED' },
  error: { taskStatus: 'failed', threadStatus: 'idle', words: 'Failed', entry: 'FAILED' },
  access_denied: { taskStatus: 'failed', threadStatus: 'idle', words: 'Computer is not available for this account', entry: 'FAILED' },
  cancelled: { taskStatus: 'cancelled', threadStatus: 'idle', words: 'Cancelled', entry: 'COMPLETED' },
  ask_user_question: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Asks you a question', entry: 'PENDING' },
  confirm_action: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Asks you to approve an action', entry: 'PENDING' },
  auth_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs you to sign in', entry: 'PENDING' },
  interaction_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs a form filled in Perplexity', entry: 'PENDING' },
  two_factor_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs a two-factor code', entry: 'PENDING' },
  insufficient_credits: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Out of credits', entry: 'PENDING' },
  sleep: { taskStatus: 'working', threadStatus: 'sleeping', words: 'Sleeping', entry: 'PENDING' },
  waiting: { taskStatus: 'working', threadStatus: 'waiting', words: 'Waiting on something outside Perplexity', entry: 'PENDING' },
  timeout: { taskStatus: 'working', threadStatus: 'running', words: 'Still working', entry: 'PENDING' },
} as const satisfies Record<ThreadEvent, { taskStatus: TaskStatus; threadStatus: string; words: string; entry: string }>;

/**
 * The result's `task_status`. The seed: "A complete result whose answer is waiting on the user
 * reports input_required." `null` is a turn still running (the Node side's `timeout`).
 */
export function taskStatusOf(event: ThreadEvent | null, waitingOnUser = false): TaskStatus {
  const status = EVENT_TABLE[event ?? 'timeout'].taskStatus;
  return status === 'completed' && waitingOnUser ? 'input_required' : status;
}

/** The side panel's status of a thread, from its task_status. */
export function panelStatusOf(event: ThreadEvent | null, waitingOnUser = false): 'working' | 'waiting' | 'done' | 'error' {
  switch (taskStatusOf(event, waitingOnUser)) {
    case 'working':
      return 'working';
    case 'input_required':
      return 'waiting';
    case 'failed':
      return 'error';
    default:
      return 'done';
  }
}

/** read_thread's `status` (Perplexity's words for a thread's state); no turn read yet is `idle`. */
export function threadStatusOf(event: ThreadEvent | null | undefined): string {
  if (event === undefined) return 'idle';
  return EVENT_TABLE[event ?? 'timeout'].threadStatus;
}

/** web_state's entry status of a turn read from the page (the table's `entry`); a turn with a box waiting is PENDING. */
export function pageEntryStatus(event: ThreadEvent | null, waiting: boolean): string {
  return waiting ? 'PENDING' : EVENT_TABLE[event ?? 'timeout'].entry;
}

/** The panel's words for an event. */
export function eventWords(event: ThreadEvent): string {
  return EVENT_TABLE[event].words;
}
