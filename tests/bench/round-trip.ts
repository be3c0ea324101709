import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Worker } from 'playwright-core';
import { RelayClient } from '../../lib/relay/client';

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
