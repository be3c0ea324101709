/**
 * Where a turn's script stands at a given moment, computed from the server's own data: what the
 * thread JSON (thread-json.ts) serves. The page script (client/thread.ts) plays the same script
 * event by event with the same rules, so both sources agree.
 */
import { interactionIdOf } from './task-paths';
import type { AssetSpec, BlockSpec } from './task-types';
import type { InteractionEvent, TurnData, TurnReply } from '../types';

export type TurnPhase = 'working' | 'paused' | 'sleeping' | 'finished' | 'stopped' | 'error' | 'blocked';

export interface TurnState {
  phase: TurnPhase;
  steps: string[];
  /** Each step's script time (ms after startedAt) and icon, beside `steps`. */
  stepEvents: { t: number; icon: string }[];
  /** Script time of the first answer tokens and of the finish, once reached. */
  answerAt?: number;
  finishedAt?: number;
  /** Answer tokens revealed so far (Infinity once finished). */
  tokens: number;
  plan: { text: string; done: boolean }[];
  /** Every asset produced so far, in order (versions included). */
  assets: AssetSpec[];
  /** Required interactions waiting for a reply. */
  pending: InteractionEvent[];
  /** Interactions already answered, with their reply. */
  answered: { event: InteractionEvent; reply: TurnReply & { at?: number } }[];
  /** Sign-ins offered but not waited on. */
  optional: InteractionEvent[];
  error?: string;
  block?: BlockSpec;
  /** While sleeping: when the script goes on (server clock, ms). */
  wakeAt?: number;
  /** While paused: the script time (ms after startedAt) at which it paused. */
  pausedAt?: number;
}

/** The reply a turn holds for this interaction, if any. */
export function replyFor(turn: TurnData, event: InteractionEvent): (TurnReply & { at?: number }) | undefined {
  return turn.replies?.[interactionIdOf(turn, event)] ?? turn.reply;
}

export function turnStateAt(turn: TurnData, now: number): TurnState {
  const state: TurnState = { phase: 'working', steps: [], stepEvents: [], tokens: 0, plan: [], assets: [], pending: [], answered: [], optional: [] };
  const events = turn.script.events;
  const elapsed = now - turn.startedAt;
  const limit = turn.stoppedAfter ?? events.length;
  for (let i = 0; i < Math.min(limit, events.length); i++) {
    const ev = events[i];
    if (!ev) break;
    if (turn.stoppedAfter === null && ev.t > elapsed) break;
    // A group of interactions pauses the script; only more interactions at the same moment join it.
    if (state.pending.length > 0 && !(ev.type === 'interaction' && ev.t === state.pausedAt)) break;
    if (ev.type !== 'sleep') state.wakeAt = undefined;
    switch (ev.type) {
      case 'step':
        state.steps.push(ev.text);
        state.stepEvents.push({ t: ev.t, icon: ev.icon });
        break;
      case 'tokens':
        state.tokens = ev.upto;
        state.answerAt ??= ev.t;
        break;
      case 'finish':
        state.tokens = Number.POSITIVE_INFINITY;
        state.phase = 'finished';
        state.answerAt ??= ev.t;
        state.finishedAt = ev.t;
        break;
      case 'error':
        state.error = ev.message;
        state.phase = 'error';
        break;
      case 'interaction': {
        if (ev.optional) {
          state.optional.push(ev);
          break;
        }
        const reply = replyFor(turn, ev);
        if (reply) state.answered.push({ event: ev, reply });
        else {
          state.pending.push(ev);
          state.pausedAt = ev.t;
        }
        break;
      }
      case 'plan':
        state.plan = ev.goals.map((text) => ({ text, done: false }));
        break;
      case 'goal-done': {
        const goal = state.plan[ev.index];
        if (goal) goal.done = true;
        break;
      }
      case 'files':
        state.assets.push(...ev.assets);
        break;
      case 'sleep':
        state.wakeAt = turn.startedAt + ev.t + ev.wakeInMs;
        break;
      case 'block':
        state.block = ev.block;
        state.phase = 'blocked';
        break;
    }
    if (state.phase !== 'working') break;
  }
  if (turn.stoppedAfter !== null && state.phase === 'working') state.phase = 'stopped';
  else if (state.phase === 'working' && state.pending.length > 0) state.phase = 'paused';
  else if (state.phase === 'working' && state.wakeAt !== undefined) state.phase = 'sleeping';
  if (state.phase !== 'paused') {
    state.pending = [];
    state.pausedAt = undefined;
  }
  return state;
}
