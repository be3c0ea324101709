import { TRACE_META } from '../../lib/mcp/server';
import type { SimWorld } from '../support/sim-harness';
import { textOf } from '../support/harness';
import { answerFinishedAt } from './sim-events';

/**
 * (a) ours: answer finished in the page → `comet_wait` resolved in this process. Each ask is a
 * comet_ask then a comet_wait from the same MCP client; the clock is Date.now() on both sides (same
 * machine). A fresh chat every `newChatEvery` asks keeps the thread short and mixes first turns
 * (navigation + new page) with follow-ups.
 */
export interface WaitLatencyOptions {
  asks: number;
  /** Appended to the prompt, e.g. "#scenario:keywords". */
  tag?: string;
  newChatEvery?: number;
  label: string;
  /** From what the page had: the answer drawn (default) or, issue 30, the end of its ask stream. */
  from?: 'answer-finished' | 'ask-stream-ended';
}

export interface WaitLatencies {
  latencies: number[];
  /**
   * Of each, the round trip of the thread JSON fetch the worker makes once the page says the turn
   * finished (its Markdown answer; the trace's `json`), when one was made.
   */
  jsonFetchMs: number[];
  /** Each latency less its JSON fetch, for the asks that made one: the page's reader and the chain. */
  lessJson: number[];
}

export async function measureOurWait(world: SimWorld, options: WaitLatencyOptions): Promise<WaitLatencies> {
  const latencies: number[] = [];
  const jsonFetchMs: number[] = [];
  const lessJson: number[] = [];
  for (let i = 0; i < options.asks; i++) {
    const since = Date.now();
    const prompt = `${options.label} question ${i + 1} ${options.tag ?? ''}`.trim();
    const asked = await world.call('comet_ask', { prompt, newChat: i % (options.newChatEvery ?? 5) === 0 });
    if (asked.isError) throw new Error(`comet_ask failed: ${asked.text}`);
    const raw = await world.client.callTool({ name: 'comet_wait', arguments: { timeout: 30_000 }, _meta: { [TRACE_META]: true } }, undefined, { timeout: 120_000 });
    const returnedAt = Date.now();
    const text = textOf(raw);
    if (raw.isError) throw new Error(`comet_wait failed: ${text}`);
    if (!text.includes(`${options.label} question ${i + 1}`)) {
      throw new Error(`comet_wait returned an answer to another question:\n${text.slice(0, 300)}`);
    }
    const json = (raw._meta?.[TRACE_META] as Record<string, number> | undefined)?.json;
    const finishedAt = await answerFinishedAt(world.page, since, options.from);
    if (finishedAt === undefined) throw new Error(`no ${options.from ?? 'answer-finished'} event in the page for "${prompt}"`);
    latencies.push(returnedAt - finishedAt);
    if (json !== undefined) {
      jsonFetchMs.push(json);
      lessJson.push(returnedAt - finishedAt - json);
    }
  }
  return { latencies, jsonFetchMs, lessJson };
}
