import { performance } from 'node:perf_hooks';
import type { SimWorld } from '../support/sim-harness';
import { sleep } from './stats';

/**
 * (m) The host killed (SIGKILL, as a crash, after 1.5 s of service) → the next call that succeeds. The clock starts at the
 * kill; the bench client then calls comet_poll back to back, as an agent retrying would, until one
 * returns the page's state. What it covers: the browser noticing the host is gone, the extension's
 * first reconnect attempt, the new host's start-up and handshake, the MCP process finding the new
 * host (discovery) and the call itself.
 */
export interface Reconnect {
  latencies: number[];
  /** Calls that failed before the first success, over all rounds. */
  failedCalls: number;
}

export async function measureReconnect(world: SimWorld, rounds = 8): Promise<Reconnect> {
  const result: Reconnect = { latencies: [], failedCalls: 0 };
  for (let round = 0; round < rounds; round++) {
    const host = await world.harness.waitForHost();
    // A host that has served a while, as one that crashes in use has: the extension retries a
    // host that dies within a second of its handshake only with backoff (QUICK_RETRY_AFTER_UP_MS).
    await sleep(1500);
    process.kill(host.pid, 'SIGKILL');
    const killed = performance.now();
    for (;;) {
      const raw = (await world.client.callTool({ name: 'comet_poll', arguments: { maxLength: 100 } }, undefined, { timeout: 30_000 })) as {
        isError?: boolean;
        structuredContent?: { status?: string };
      };
      if (!raw.isError && raw.structuredContent?.status) break;
      result.failedCalls += 1;
      if (performance.now() - killed > 20_000) throw new Error('no call succeeded within 20 s of killing the host');
    }
    result.latencies.push(performance.now() - killed);
  }
  return result;
}
