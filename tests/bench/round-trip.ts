import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Worker } from 'playwright-core';
import { TRACE_META } from '../../lib/mcp/server';
import { RelayClient } from '../../lib/relay/client';
import { median } from './stats';

/**
 * (b) Round trips, one call at a time, after a warm-up:
 *   - comet_poll through the whole chain: SDK client → stdio → `comet-relay mcp` → socket → host →
 *     native messaging → service worker → content script → back;
 *   - for where the time goes: an MCP `ping` (client ↔ `comet-relay mcp` only) and `host.status`
 *     from this process over the host's socket (socket ↔ host only).
 */
async function timeCalls(count: number, warmUp: number, call: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await call();
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call();
    out.push(performance.now() - t);
  }
  return out;
}

export async function pollRoundTrips(client: Client, count = 500, warmUp = 50): Promise<number[]> {
  return timeCalls(count, warmUp, async () => {
    const result = (await client.callTool({ name: 'comet_poll', arguments: {} })) as { isError?: boolean; structuredContent?: { status?: string } };
    if (result.isError || !result.structuredContent?.status) throw new Error(`comet_poll failed: ${JSON.stringify(result).slice(0, 300)}`);
  });
}

export async function mcpPingRoundTrips(client: Client, count = 200, warmUp = 20): Promise<number[]> {
  return timeCalls(count, warmUp, async () => {
    await client.ping();
  });
}

export async function hostOnlyRoundTrips(home: string, count = 200, warmUp = 20): Promise<number[]> {
  const relay = new RelayClient({ home, client: { name: 'bench-host-only' }, transport: 'stdio' });
  try {
    return await timeCalls(count, warmUp, async () => {
      await relay.hostStatus({ timeoutMs: 5000 });
    });
  } finally {
    relay.close();
  }
}

/**
 * Diagnostic: runs `fn` with the service worker's `chrome.storage.session.set` replaced by a no-op,
 * then puts it back. The worker saves the side panel's activity feed (and threads) there after every
 * call; this shows how much of a round trip those writes cost.
 */
export async function withSessionStorageWritesOff<T>(worker: Worker, fn: () => Promise<T>): Promise<T> {
  await worker.evaluate(() => {
    const session = (globalThis as unknown as { chrome: { storage: { session: Record<string, unknown> } } }).chrome.storage.session;
    session.__benchSet = session.set;
    session.set = async () => {};
  });
  try {
    return await fn();
  } finally {
    await worker.evaluate(() => {
      const session = (globalThis as unknown as { chrome: { storage: { session: Record<string, unknown> } } }).chrome.storage.session;
      session.set = session.__benchSet;
      delete session.__benchSet;
    });
  }
}

/** The hops of a round trip, in the order a call passes them, and how each is derived from the trace. */
type Hops = Record<'total' | 'mcp' | 'relay' | 'host' | 'worker' | 'port' | 'page', number>;

const HOPS: [string, (t: Hops) => number][] = [
  ['client ↔ mcp (stdio, both SDKs)', (t) => t.total - t.mcp],
  ['mcp process', (t) => t.mcp - t.relay],
  ['socket ↔ host', (t) => t.relay - t.host],
  ['native messaging (browser process)', (t) => t.host - t.worker],
  ['worker', (t) => t.worker - t.port],
  ['worker ↔ page port', (t) => t.port - t.page],
  ['page read', (t) => t.page],
];

export interface PollProfile {
  totals: number[];
  /** Median milliseconds per hop, in the order the call passes them. */
  hops: [string, number][];
}

/**
 * comet_poll with the trace asked for (lib/mcp/server.ts TRACE_META): every hop reports how long it
 * held the call, measured on its own clock, so no clocks are compared across processes. The
 * difference between two nested hops is the time spent between them.
 */
export async function pollProfile(client: Client, count = 200, warmUp = 20): Promise<PollProfile> {
  const traces: Hops[] = [];
  const totals = await timeCalls(count, warmUp, async () => {
    const t = performance.now();
    const result = (await client.callTool({ name: 'comet_poll', arguments: {}, _meta: { [TRACE_META]: true } })) as { _meta?: Record<string, unknown> };
    const total = performance.now() - t;
    const trace = result._meta?.[TRACE_META] as Record<string, number> | undefined;
    for (const key of ['mcp', 'relay', 'host', 'worker', 'port', 'page']) {
      if (typeof trace?.[key] !== 'number') throw new Error(`the traced comet_poll came back without "${key}": ${JSON.stringify(result._meta)}`);
    }
    traces.push({ ...(trace as Hops), total });
  });
  const hops = HOPS.map(([name, of]): [string, number] => [name, median(traces.slice(-count).map(of))]);
  return { totals, hops };
}

/** Median ms per hop of traced calls (each with its client-side `total`); a hop a trace lacks is left out. */
export function hopMedians(traces: readonly Record<string, number>[]): [string, number][] {
  const full = traces.filter((t) => ['total', 'mcp', 'relay', 'host', 'worker', 'port', 'page'].every((k) => typeof t[k] === 'number')) as Hops[];
  return full.length ? HOPS.map(([name, of]): [string, number] => [name, median(full.map(of))]) : [];
}

export function profileLine(profile: PollProfile): string {
  return profile.hops.map(([name, value]) => `${name} ${value.toFixed(2)}`).join(' → ');
}

/**
 * (b) comet_poll of a turn still streaming, one traced call after another from the ask until the answer is done: for
 * every poll that read the turn working, with something to show, from `source` (the page's ask stream, or the page's
 * text when the sim sends none), its round trip and the page's own time on it (the trace's `page`).
 */
export async function pollsWhileStreaming(client: Client, source: 'stream' | 'page', ask: () => Promise<void>): Promise<{ roundTrips: number[]; pageMs: number[] }> {
  await ask();
  const out = { roundTrips: [] as number[], pageMs: [] as number[] };
  const until = performance.now() + 30_000;
  for (;;) {
    const t = performance.now();
    const result = (await client.callTool({ name: 'comet_poll', arguments: {}, _meta: { [TRACE_META]: true } })) as {
      isError?: boolean;
      structuredContent?: { status?: string; response?: string; answerSource?: string };
      _meta?: Record<string, unknown>;
    };
    const took = performance.now() - t;
    const snap = result.structuredContent;
    if (result.isError || !snap?.status) throw new Error(`comet_poll failed: ${JSON.stringify(result).slice(0, 300)}`);
    if (snap.status === 'completed') return out;
    if (snap.status === 'working' && snap.response && snap.answerSource === source) {
      out.roundTrips.push(took);
      const page = (result._meta?.[TRACE_META] as { page?: number } | undefined)?.page;
      if (page !== undefined) out.pageMs.push(page);
    }
    if (performance.now() > until) throw new Error(`the answer was still "${snap.status}" after 30 s of polls`);
  }
}
