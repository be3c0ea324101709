import { performance } from 'node:perf_hooks';
import { TRACE_META } from '../../lib/mcp/server';
import type { SimWorld } from '../support/sim-harness';
import { textOf } from '../support/harness';
import { answerFinishedAt } from './sim-events';
import { median } from './stats';

/**
 * (a) ours: answer finished in the page → `comet_wait` resolved in this process. Each ask is a
 * comet_ask then a comet_wait from the same MCP client; the clock is the wall clock on both sides
 * (same machine). A fresh chat every `newChatEvery` asks keeps the thread short and mixes first turns
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
  /** Of each, the thread JSON fetch for the Markdown answer as the page timed it (`fetch()` to its body read), when one was made. */
  jsonFetchMs: number[];
  /** Each latency less its own JSON fetch, for the asks that made one: what the chain adds to the fetch. */
  beyondFetch: number[];
  /** Where each ask's latency went, hop by hop (WAIT_HOPS), for the asks whose trace had every moment. */
  hops: Record<string, number>[];
}

/**
 * The hops of a finished answer's way to the client, in order, from the trace's moments (the
 * page's and the worker's `…At`, lib/protocol/ports.ts traceClock): the path the answer waits on,
 * then (`read`, `readPort`) the page's read of the turn and its way to the worker, which run beside
 * the fetch. Each is timed where it happens; the host's `hostGotAt` splits the worker's way to the MCP process.
 */
export const WAIT_HOPS: [string, string][] = [
  ['seen', 'finished → the page\'s wait saw it'],
  ['toFetch', 'seen → JSON fetch started'],
  ['fetch', 'the JSON fetch (in the page)'],
  ['toWorker', 'fetched → the worker holds body and read'],
  ['worker', 'worker: answer made, reply sent'],
  ['toHost', 'worker → host (native messaging, the host\'s read)'],
  ['toMcp', 'host → mcp process (socket, its read)'],
  ['mcp', 'mcp process: result checked, text made'],
  ['toClient', 'mcp process → the client has its bytes (SDK, stdio)'],
  ['client', 'the client: its SDK reads the result'],
  ['read', 'beside it: seen → read sent'],
  ['readPort', 'read sent → worker'],
];

/**
 * The hops of an answer read from the page's ask stream (issue 30), in order: the tap's read of the page's stream
 * and its channel to the page script (`streamAt`, when the ask kit's reader had the end; from the moment the page's
 * own reader had the end event whole, not the body's close, which may come a millisecond or two later), the ask kit's
 * wait (`streamReadAt`), then the way back the DOM path's answer takes.
 */
export const STREAM_HOPS: [string, string][] = [
  ['tap', 'stream ended → the ask kit\'s reader had it (the tap, its channel, the last frame read)'],
  ['streamRead', 'the ask kit\'s wait: answer made from it'],
  ['reply', 'answer made → the page\'s reply sent'],
  ['readPort', 'reply sent → worker'],
  ['worker', 'worker: reply sent'],
  ['toHost', 'worker → host (native messaging, the host\'s read)'],
  ['toMcp', 'host → mcp process (socket, its read)'],
  ['mcp', 'mcp process: result checked, text made'],
  ['toClient', 'mcp process → the client has its bytes (SDK, stdio)'],
  ['client', 'the client: its SDK reads the result'],
];

export async function measureOurWait(world: SimWorld, options: WaitLatencyOptions): Promise<WaitLatencies> {
  const out: WaitLatencies = { latencies: [], jsonFetchMs: [], beyondFetch: [], hops: [] };
  const arrivals = clientArrivals(world);
  for (let i = 0; i < options.asks; i++) {
    const since = Date.now();
    const prompt = `${options.label} question ${i + 1} ${options.tag ?? ''}`.trim();
    const asked = await world.call('comet_ask', { prompt, newChat: i % (options.newChatEvery ?? 5) === 0 });
    if (asked.isError) throw new Error(`comet_ask failed: ${asked.text}`);
    const raw = await world.client.callTool({ name: 'comet_wait', arguments: { timeout: 30_000 }, _meta: { [TRACE_META]: true } }, undefined, { timeout: 120_000 });
    const returnedAt = performance.timeOrigin + performance.now();
    const lastBytesAt = arrivals.last;
    const text = textOf(raw);
    if (raw.isError) throw new Error(`comet_wait failed: ${text}`);
    if (!text.includes(`${options.label} question ${i + 1}`)) {
      throw new Error(`comet_wait returned an answer to another question:\n${text.slice(0, 300)}`);
    }
    const trace = (raw._meta?.[TRACE_META] as Record<string, number> | undefined) ?? {};
    // A client whose stdout this bench cannot watch: its whole way counts as the pipe's.
    const arrivedAt = trace.mcpSentAt !== undefined && lastBytesAt >= trace.mcpSentAt ? lastBytesAt : returnedAt;
    const finishedAt = await answerFinishedAt(world.page, since, options.from);
    if (finishedAt === undefined) throw new Error(`no ${options.from ?? 'answer-finished'} event in the page for "${prompt}"`);
    out.latencies.push(returnedAt - finishedAt);
    if (trace.fetchStartAt !== undefined && trace.fetchEndAt !== undefined) {
      out.jsonFetchMs.push(trace.fetchEndAt - trace.fetchStartAt);
      out.beyondFetch.push(returnedAt - finishedAt - (trace.fetchEndAt - trace.fetchStartAt));
    }
    const hops = options.from === 'ask-stream-ended' ? streamHopsOf(trace, finishedAt, returnedAt, arrivedAt) : hopsOf(trace, finishedAt, returnedAt, arrivedAt);
    if (hops) out.hops.push(hops);
  }
  return out;
}

function hopsOf(t: Record<string, number>, finishedAt: number, returnedAt: number, arrivedAt: number): Record<string, number> | undefined {
  const { seenAt, pageSentAt, workerGotAt, workerSentAt, fetchStartAt, fetchEndAt, jsonGotAt, relayGotAt, mcpSentAt } = t;
  if (seenAt === undefined || pageSentAt === undefined || workerGotAt === undefined || workerSentAt === undefined || relayGotAt === undefined || mcpSentAt === undefined) return undefined;
  const fetched = fetchStartAt !== undefined && fetchEndAt !== undefined && jsonGotAt !== undefined;
  const holds = fetched ? Math.max(jsonGotAt, workerGotAt) : workerGotAt;
  return {
    seen: seenAt - finishedAt,
    toFetch: fetched ? fetchStartAt - seenAt : 0,
    fetch: fetched ? fetchEndAt - fetchStartAt : 0,
    toWorker: holds - (fetched ? fetchEndAt : seenAt),
    worker: workerSentAt - holds,
    ...socketHops(t, workerSentAt, relayGotAt),
    mcp: mcpSentAt - relayGotAt,
    toClient: arrivedAt - mcpSentAt,
    client: returnedAt - arrivedAt,
    read: pageSentAt - seenAt,
    readPort: workerGotAt - pageSentAt,
  };
}

function streamHopsOf(t: Record<string, number>, endedAt: number, returnedAt: number, arrivedAt: number): Record<string, number> | undefined {
  const { streamAt, streamReadAt, pageSentAt, workerGotAt, workerSentAt, relayGotAt, mcpSentAt } = t;
  if (!streamAt || streamReadAt === undefined || pageSentAt === undefined || workerGotAt === undefined || workerSentAt === undefined || relayGotAt === undefined || mcpSentAt === undefined) return undefined;
  return {
    tap: streamAt - endedAt,
    streamRead: streamReadAt - streamAt,
    reply: pageSentAt - streamReadAt,
    readPort: workerGotAt - pageSentAt,
    worker: workerSentAt - workerGotAt,
    ...socketHops(t, workerSentAt, relayGotAt),
    mcp: mcpSentAt - relayGotAt,
    toClient: arrivedAt - mcpSentAt,
    client: returnedAt - arrivedAt,
  };
}

/** When the bench's MCP client last received bytes from `comet-relay mcp`'s stdout (before its SDK reads them). */
function clientArrivals(world: SimWorld): { last: number } {
  const arrivals = { last: 0 };
  const child = (world.client.transport as unknown as { _process?: { stdout?: NodeJS.ReadableStream } })._process;
  child?.stdout?.prependListener('data', () => {
    arrivals.last = performance.timeOrigin + performance.now();
  });
  return arrivals;
}

/** The way from the worker to the MCP process, split where the host says when it had the reply (`hostGotAt`). */
function socketHops(t: Record<string, number>, workerSentAt: number, relayGotAt: number): Record<string, number> {
  const got = t.hostGotAt;
  return got === undefined ? { toHost: relayGotAt - workerSentAt, toMcp: 0 } : { toHost: got - workerSentAt, toMcp: relayGotAt - got };
}

/** Median ms per hop over the asks, in `table` order (WAIT_HOPS, or STREAM_HOPS for the stream's). */
export function waitHopLine(hops: readonly Record<string, number>[], table: [string, string][] = WAIT_HOPS): string {
  return table.map(([key, name]) => `${name} ${median(hops.map((h) => h[key] ?? 0)).toFixed(2)}`).join(' → ');
}
