import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hostMemory } from '../bench/memory';
import { textOf } from './harness';
import type { SimWorld } from './sim-harness';

/**
 * The soak: for `seconds`, the whole chain under steady mixed use — `clients` MCP processes calling
 * comet_poll, comet_get_page_content, comet_list_tabs and comet_get_sources back to back, one of them
 * asking and waiting for a fresh answer in a loop, and a client that comes and goes every few
 * seconds. Counts calls and errors, and reads the host's resident memory at the start and the end.
 */
export interface SoakResult {
  seconds: number;
  calls: number;
  errors: number;
  asks: number;
  churned: number;
  callsPerSecond: number;
  hostRssStart?: number;
  hostRssEnd?: number;
  hostPeak?: number;
  firstError?: string;
  /** Errors by tool and the start of their text, most frequent first. */
  errorKinds: [string, number][];
}

const READS: [string, Record<string, unknown>][] = [
  ['comet_poll', { maxLength: 500 }],
  ['comet_get_page_content', { maxLength: 2000 }],
  ['comet_list_tabs', {}],
  ['comet_get_sources', {}],
];

export async function soak(world: SimWorld, options: { seconds: number; clients?: number }): Promise<SoakResult> {
  const count = options.clients ?? 4;
  const readers: Client[] = await Promise.all(Array.from({ length: count }, (_, i) => world.harness.stdioClient(`soak-${i + 1}`)));
  const result: SoakResult = { seconds: options.seconds, calls: 0, errors: 0, asks: 0, churned: 0, callsPerSecond: 0, hostRssStart: hostMemory(world.harness.home)?.currentBytes, errorKinds: [] };
  const kinds = new Map<string, number>();
  const failed = (what: string, text: string) => {
    result.errors += 1;
    result.firstError ??= `${what}: ${text.slice(0, 200)}`;
    // Ids, tab numbers and URLs vary; the words before them say what kind of failure it was.
    const kind = `${what}: ${text.replace(/https?:\/\/\S+/g, 'URL').replace(/\d+/g, 'N').slice(0, 90)}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  };
  const deadline = Date.now() + options.seconds * 1000;
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    result.calls += 1;
    try {
      const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
      if ((raw as { isError?: boolean }).isError) failed(name, textOf(raw));
    } catch (error) {
      failed(name, (error as Error).message);
    }
  };

  const reader = async (client: Client, offset: number) => {
    for (let i = offset; Date.now() < deadline; i++) {
      const [name, args] = READS[i % READS.length] as [string, Record<string, unknown>];
      await call(client, name, args);
    }
  };
  const asker = async () => {
    for (let i = 1; Date.now() < deadline; i++) {
      await call(world.client, 'comet_ask', { prompt: `Soak question ${i}`, newChat: i % 10 === 0 });
      await call(world.client, 'comet_wait', { timeout: 30_000 });
      result.asks += 1;
    }
  };
  const churn = async () => {
    while (Date.now() < deadline) {
      const visitor = await world.harness.stdioClient(`soak-visitor-${result.churned + 1}`);
      await call(visitor, 'comet_poll', {});
      await visitor.close();
      result.churned += 1;
      await new Promise((r) => setTimeout(r, 2000));
    }
  };

  const started = Date.now();
  await Promise.all([...readers.map((c, i) => reader(c, i)), asker(), churn()]);
  const elapsed = (Date.now() - started) / 1000;
  result.callsPerSecond = result.calls / elapsed;
  result.errorKinds = [...kinds].sort((a, b) => b[1] - a[1]);
  const end = hostMemory(world.harness.home);
  result.hostRssEnd = end?.currentBytes;
  result.hostPeak = end?.peakBytes;
  await Promise.all(readers.map((c) => c.close().catch(() => {})));
  return result;
}
