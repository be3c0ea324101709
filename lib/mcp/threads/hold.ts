import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ThreadAnswer, ThreadCheckpoint, ThreadCheckpointInteraction, ThreadReply } from '../../protocol/threads/threads';
import { RelayError } from '../../protocol/errors';
import { INTERACTION_TEXT_MAX } from '../../protocol/limits';
import type { ToolBrowser } from '../gateway';
import { clip, type Elicit } from '../tool';
import { checkpointResult, notSentResult, questionText, stoppedWaitingResult, type ThreadResult } from './result';

/**
 * How long a turn's submit or an answer to a thread's prompt may take in the browser: its tab opened or reloaded, a
 * queue behind an acting call on the thread, the page's controls. One figure for the answer tools and for an answer
 * given inside a held call (review 15a, F5: 60 s there, 90 s here, so a slow answer read "refused" in one and taken
 * in the other).
 */
export const SUBMIT_TIMEOUT_MS = 90_000;

/**
 * Holding a thread call: after a turn is submitted, wait (event-driven, through threads.wait) for
 * the first final state or actionable checkpoint, up to the hold, and return the seed's result —
 * `timeout` when the hold ran out while the task keeps running. While held, every new step goes
 * out as a progress notification, and one goes out at least every `progressMs`; the first names the
 * thread_id, so a client that gives up early can still read_thread. A client that declared
 * elicitation answers questions and confirmations inside the call, which then goes on waiting.
 */

export interface HoldOptions {
  browser: ToolBrowser;
  signal: AbortSignal;
  progress(message: string): void;
  holdMs: number;
  /** When the call began (default: now): the hold counts from there, the submit's time included (the seed's "for up to two minutes"). */
  since?: number;
  progressMs: number;
  tabCap: number;
  /** Present when the client declared elicitation (and the call is not an MCP task). */
  elicit?: Elicit;
}

/** threads.wait's bounds on the steps a caller says it heard (lib/protocol/threads/threads.ts). */
const HEARD_MAX = 1000;
const HEARD_STEP_MAX = 2000;

/** Extra time the relay allows a threads.wait beyond its own timeout before giving up on the browser. */
const WAIT_GRACE_MS = 30_000;

export async function holdThread(options: HoldOptions, submitted: { threadId: string; turn: number }): Promise<ThreadResult> {
  const { threadId } = submitted;
  const beat = heartbeat(options, `thread_id ${threadId}`, 'working. If this call is cut off, call read_thread with this thread_id.');
  const answered = new Set<string>();
  // The steps this call heard of its current turn, so that each of its waits sends only the others (the page's
  // record is per tab). Within threads.wait's bounds: the newest HEARD_MAX, none longer than a step may be (a longer
  // one is only heard again; day-3 review M1).
  let heard: string[] = [];
  const onStep = (step: string) => {
    if (step.length <= HEARD_STEP_MAX && !heard.includes(step)) heard = [...heard, step].slice(-HEARD_MAX);
    beat.step(step);
  };
  let turn = submitted.turn;
  try {
    return await holdLoop();
  } catch (error) {
    const cause = RelayError.from(error);
    // The caller is gone: nobody to answer. Anything else ends the wait, not the task.
    if (options.signal.aborted || cause.code === 'CANCELLED') throw error;
    return stoppedWaitingResult(threadId, cause);
  } finally {
    beat.stop();
  }

  async function holdLoop(): Promise<ThreadResult> {
    let since = options.since ?? Date.now();
    for (;;) {
      const timeoutMs = Math.max(0, options.holdMs - (Date.now() - since));
      const checkpoint = await options.browser.call(
        'threads.wait',
        { threadId, turn, timeoutMs, heard, tabCap: options.tabCap },
        { signal: options.signal, timeoutMs: timeoutMs + WAIT_GRACE_MS, onProgress: onStep },
      );
      const heldMs = Date.now() - since;
      const interaction = options.elicit ? elicitable(checkpoint, answered) : undefined;
      if (!interaction || !options.elicit) return checkpointResult(checkpoint, heldMs);
      const reply = await askThePerson(options.elicit, threadId, interaction, options.signal);
      if (!reply) return checkpointResult(checkpoint, heldMs);
      answered.add(interaction.followupUuid);
      beat.step(`answered in the call: ${interaction.type}`);
      let next: Awaited<ReturnType<typeof respond>>;
      try {
        next = await respond(interaction, reply);
      } catch (error) {
        const cause = RelayError.from(error);
        if (options.signal.aborted || cause.code === 'CANCELLED') throw error;
        return await refusedReplyResult(interaction, reply, cause);
      }
      if ('notSent' in next) return notSentResult(next);
      // A new turn: its steps are new, whatever their words.
      if (next.turn !== turn) heard = [];
      turn = next.turn;
      // The person answered inside the call: the turn that started gets a hold of its own.
      since = Date.now();
    }
  }

  function respond(interaction: ThreadCheckpointInteraction, reply: ThreadReply) {
    return options.browser.call(
      'threads.respond',
      { threadId, followupUuid: interaction.followupUuid, about: clip(interaction.text, INTERACTION_TEXT_MAX), reply, tabCap: options.tabCap },
      { signal: options.signal, timeoutMs: SUBMIT_TIMEOUT_MS },
    );
  }

  /**
   * The page did not take the person's answer (not a choice it offers, the box answered
   * meanwhile, the page too slow): the thread still waits on someone, so the agent gets what it
   * waits on now, with the refusal and the person's own words, never a bare "still working".
   */
  async function refusedReplyResult(interaction: ThreadCheckpointInteraction, reply: ThreadReply, cause: RelayError): Promise<ThreadResult> {
    const refusal =
      `The page refused the person's ${interaction.type === 'confirm_action' ? 'decision' : 'answer'} given in the MCP client (${replyWords(reply)}): ` +
      `[${cause.code}] ${cause.message}`;
    let result: ThreadResult;
    try {
      result = checkpointResult(await options.browser.call('threads.state', { threadId, tabCap: options.tabCap }, { signal: options.signal, timeoutMs: 30_000 }));
    } catch (error) {
      if (options.signal.aborted) throw error;
      result = stoppedWaitingResult(threadId, RelayError.from(error));
    }
    return { ...result, text: `${refusal}\n\n${result.text}` };
  }
}

/** A reply as the person gave it, quoted back so it is not lost when the page refuses it. */
function replyWords(reply: ThreadReply): string {
  if (reply.kind === 'answers') return Object.entries(reply.answers).map(([id, answer]) => `${id}: ${JSON.stringify(answer)}`).join('; ');
  if (reply.kind === 'connected') return reply.message;
  return `${reply.kind}: ${JSON.stringify(reply.reason)}`;
}

/**
 * Progress for one phase of a call: `opening` at once, then each step, and a beat at least every
 * `progressMs` (which keeps a client that resets its timeout on progress waiting). Every message
 * starts with `label`: `thread_id …` once the thread is known, so a client that gives up after
 * any of them knows what to read_thread.
 */
export function heartbeat(options: Pick<HoldOptions, 'progress' | 'progressMs'>, label: string, opening: string, doing = 'working') {
  const since = Date.now();
  let latest = '';
  options.progress(`${label}: ${opening}`);
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - since) / 1000);
    options.progress(`${label}: still ${doing} (${seconds} s)${latest ? `; latest step: ${latest}` : ''}`);
  }, options.progressMs);
  return {
    step(text: string) {
      latest = text;
      options.progress(`${label}: ${text}`);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** A question or confirmation the person can answer in the client, not answered yet in this call. */
function elicitable(checkpoint: ThreadCheckpoint, answered: Set<string>): ThreadCheckpointInteraction | undefined {
  if (checkpoint.event !== 'ask_user_question' && checkpoint.event !== 'confirm_action') return undefined;
  return checkpoint.interactions.find(
    (i) => i.requiresUserResponse && (i.type === 'ask_user_question' || i.type === 'confirm_action') && !answered.has(i.followupUuid),
  );
}

async function askThePerson(elicit: Elicit, threadId: string, interaction: ThreadCheckpointInteraction, signal: AbortSignal): Promise<ThreadReply | undefined> {
  let result: ElicitResult;
  try {
    result = await elicit(elicitationFor(threadId, interaction), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    // The client could not ask (or gave up): the agent gets the checkpoint and answers with a tool.
    return undefined;
  }
  return replyFromElicitation(interaction, result);
}

/**
 * The form the client shows the person: per question a pick of its choices (several when it is
 * multi-select) or a text field when it has none; or approve/deny with a reason.
 */
export function elicitationFor(threadId: string, interaction: ThreadCheckpointInteraction): ElicitRequestFormParams {
  if (interaction.type === 'confirm_action') {
    return {
      mode: 'form',
      message: `Perplexity Computer (thread ${threadId}) asks for your confirmation:\n\n${interaction.text}`,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', title: 'Your decision', enum: ['approve', 'deny'], enumNames: ['Approve', 'Deny'] },
          reason: { type: 'string', title: 'Reason (optional)' },
        },
        required: ['decision'],
      },
    };
  }
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  questionsOf(interaction).forEach((question, index) => {
    const title = question.text || `Question ${index + 1}`;
    const options = question.options ?? [];
    // The page takes only its own choices for a choice question: offer exactly those.
    properties[`answer_${index + 1}`] = !options.length
      ? { type: 'string', title }
      : question.multiple
        ? { type: 'array', title, items: { type: 'string', enum: options }, minItems: 1 }
        : { type: 'string', title, enum: options };
  });
  return {
    mode: 'form',
    message: `Perplexity Computer (thread ${threadId}) asks:\n\n${questionText(interaction)}`,
    requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
  };
}

/** The person's answer as a thread reply; undefined when they declined or cancelled. */
export function replyFromElicitation(interaction: ThreadCheckpointInteraction, result: ElicitResult): ThreadReply | undefined {
  if (result.action !== 'accept' || !result.content) return undefined;
  const content = result.content;
  if (interaction.type === 'confirm_action') {
    const reason = typeof content.reason === 'string' && content.reason.trim() ? content.reason.trim() : undefined;
    if (content.decision === 'approve') return { kind: 'approve', reason: reason ?? 'Approved by the person in the MCP client.' };
    if (content.decision === 'deny') return { kind: 'deny', reason: reason ?? 'Denied by the person in the MCP client.' };
    return undefined;
  }
  const answers: Record<string, ThreadAnswer> = {};
  questionsOf(interaction).forEach((question, index) => {
    const value = content[`answer_${index + 1}`];
    // A multi-select's choices go as a list: the page picks each.
    if (Array.isArray(value)) {
      if (value.length) answers[question.id] = value.map(String);
    } else if (value !== undefined) answers[question.id] = String(value);
  });
  return Object.keys(answers).length ? { kind: 'answers', answers } : undefined;
}

function questionsOf(interaction: ThreadCheckpointInteraction) {
  return interaction.questions?.length ? interaction.questions : [{ id: interaction.followupUuid, text: interaction.text, options: undefined }];
}
