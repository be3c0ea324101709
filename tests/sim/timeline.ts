/**
 * Builders for scenario scripts (scenarios.ts, tasks/tasks.ts): a timeline of events at speed-1 times,
 * the step icons, and the paragraph helper. Scaling by speed happens in scenarios.ts.
 */
import type { Block, InteractionEvent, Inline, ScriptEvent } from './types';
import type { AssetSpec, BlockSpec } from './tasks/task-types';

export class Timeline {
  readonly events: ScriptEvent[] = [];
  step(t: number, icon: string, text: string): this {
    this.events.push({ t, type: 'step', icon, text });
    return this;
  }
  /** Reveal tokens from..to in `chunks` equal chunks spread over [t0, t1]. */
  stream(t0: number, t1: number, from: number, to: number, chunks: number): this {
    for (let i = 1; i <= chunks; i++) {
      const upto = Math.round(from + ((to - from) * i) / chunks);
      this.events.push({ t: Math.round(t0 + ((t1 - t0) * i) / chunks), type: 'tokens', upto });
    }
    return this;
  }
  finish(t: number): this {
    this.events.push({ t, type: 'finish' });
    return this;
  }
  ask(t: number, prompt: string, options?: string[]): this {
    this.events.push({ t, type: 'interaction', kind: 'ask_user_question', prompt, ...(options ? { options } : {}) });
    return this;
  }
  confirm(t: number, prompt: string): this {
    this.events.push({ t, type: 'interaction', kind: 'confirm_action', prompt });
    return this;
  }
  /** Any interaction, with the fields task scenarios set (ids, several questions, a connector…). */
  interaction(t: number, ev: Omit<InteractionEvent, 't' | 'type'>): this {
    this.events.push({ t, type: 'interaction', ...ev });
    return this;
  }
  error(t: number, message: string): this {
    this.events.push({ t, type: 'error', message });
    return this;
  }
  plan(t: number, goals: string[]): this {
    this.events.push({ t, type: 'plan', goals });
    return this;
  }
  goalDone(t: number, index: number): this {
    this.events.push({ t, type: 'goal-done', index });
    return this;
  }
  files(t: number, assets: AssetSpec[]): this {
    this.events.push({ t, type: 'files', assets });
    return this;
  }
  sleep(t: number, wakeInMs: number, reason: string): this {
    this.events.push({ t, type: 'sleep', wakeInMs, reason });
    return this;
  }
  block(t: number, block: BlockSpec): this {
    this.events.push({ t, type: 'block', block });
    return this;
  }
}

export const I = {
  prepare: 'pplx-icon-sparkles',
  search: 'pplx-icon-search',
  review: 'pplx-icon-list',
  read: 'pplx-icon-file-text',
  found: 'pplx-icon-circle-check',
  blocks: 'pplx-icon-blocks',
  worldSearch: 'pplx-icon-world-search',
  bolt: 'pplx-icon-bolt',
  click: 'pplx-icon-click',
};

export function p(...inlines: Inline[]): Block {
  return { type: 'p', inlines };
}
