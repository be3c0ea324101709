import type { TaskStatus, ThreadEvent } from './threads';

/**
 * What each Computer event means, in one table that every layer reads: the MCP result's
 * `task_status` (the seed "Perplexity Computer MCP Server", its table "Events and MCP Tasks
 * states", exactly), read_thread's `status` words as Perplexity names a thread's state, and the
 * side panel's words for it. The panel's own status (working / waiting / done / error) is derived
 * from `task_status`, never listed again.
 */
export const EVENT_TABLE = {
  complete: { taskStatus: 'completed', threadStatus: 'idle', words: 'Done' },
  error: { taskStatus: 'failed', threadStatus: 'idle', words: 'Failed' },
  access_denied: { taskStatus: 'failed', threadStatus: 'idle', words: 'Computer is not available for this account' },
  cancelled: { taskStatus: 'cancelled', threadStatus: 'idle', words: 'Cancelled' },
  ask_user_question: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Asks you a question' },
  confirm_action: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Asks you to approve an action' },
  auth_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs you to sign in' },
  interaction_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs a form filled in Perplexity' },
  two_factor_required: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Needs a two-factor code' },
  insufficient_credits: { taskStatus: 'input_required', threadStatus: 'waiting_for_user', words: 'Out of credits' },
  sleep: { taskStatus: 'working', threadStatus: 'sleeping', words: 'Sleeping' },
  waiting: { taskStatus: 'working', threadStatus: 'waiting', words: 'Waiting on something outside Perplexity' },
  timeout: { taskStatus: 'working', threadStatus: 'running', words: 'Still working' },
} as const satisfies Record<ThreadEvent, { taskStatus: TaskStatus; threadStatus: string; words: string }>;

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

/** The panel's words for an event. */
export function eventWords(event: ThreadEvent): string {
  return EVENT_TABLE[event].words;
}
