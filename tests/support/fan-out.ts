import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness } from './harness';
import { textOf } from './harness';

/**
 * (e) 8 stdio MCP clients (8 `comet-relay mcp` processes) × 200 calls at once, `inFlight` calls per
 * client at a time. Three calls in four are comet_get_page_content with a maxLength no other call in
 * the run uses; the answer must echo it ("[Truncated: showing N of …") and carry exactly N characters
 * of page text, so an answer that crossed to another call or session is caught. The fourth is a
 * comet_poll (response cut to 200 characters), which must parse and carry a status.
 */
/** A call with no answer by then counts as an error (a lost call). */
const CALL_TIMEOUT_MS = 30_000;

export interface FanOutResult {
  clients: number;
  perClient: number;
  ok: number;
  errors: number;
  crossed: number;
  wallMs: number;
  latencies: number[];
  firstProblem?: string;
}

/** Told when every client is connected and the calls begin, and when the last call has ended (before the clients close). */
export interface FanOutHooks {
  started?(): void;
  finished?(): void;
}

export async function fanOut(harness: Harness, pageTextLength: number, clients = 8, perClient = 200, inFlight = 4, hooks: FanOutHooks = {}): Promise<FanOutResult> {
  const distinct = clients * Math.ceil((perClient * 3) / 4);
  if (pageTextLength <= distinct) {
    throw new Error(`the page text (${pageTextLength} chars) is too short to give each of ${distinct} calls its own maxLength`);
  }
  let nextMaxLength = 1;
  const sessions: Client[] = await Promise.all(Array.from({ length: clients }, (_, i) => harness.stdioClient(`bench-fan-${i + 1}`)));
  const result: FanOutResult = { clients, perClient, ok: 0, errors: 0, crossed: 0, wallMs: 0, latencies: [] };
  const problem = (text: string) => {
    result.firstProblem ??= text;
  };

  const one = async (client: Client, c: number, i: number) => {
    const t = performance.now();
    try {
      if (i % 4 === 3) {
        const raw = (await client.callTool({ name: 'comet_poll', arguments: { maxLength: 200 } }, undefined, { timeout: CALL_TIMEOUT_MS })) as { isError?: boolean };
        const status = raw.isError ? undefined : (JSON.parse(textOf(raw)) as { status?: string }).status;
        if (!status) throw new Error(`comet_poll: ${textOf(raw).slice(0, 200)}`);
        result.ok += 1;
      } else {
        const maxLength = nextMaxLength++; // unique in the run
        const raw = (await client.callTool({ name: 'comet_get_page_content', arguments: { maxLength } }, undefined, { timeout: CALL_TIMEOUT_MS })) as { isError?: boolean };
        if (raw.isError) throw new Error(textOf(raw).slice(0, 200));
        const text = textOf(raw);
        const echo = /\n\n\[Truncated: showing (\d+) of \d+ characters[^\]]*\]$/.exec(text);
        const body = echo ? text.slice(text.indexOf('\n\n') + 2, echo.index) : '';
        if (Number(echo?.[1]) === maxLength && body.length === maxLength) result.ok += 1;
        else {
          result.crossed += 1;
          problem(`client ${c + 1} asked maxLength ${maxLength}, got "${echo?.[0] ?? text.slice(-120)}" with ${body.length} chars`);
        }
      }
    } catch (error) {
      result.errors += 1;
      problem(`client ${c + 1} call ${i + 1}: ${(error as Error).message}`);
    }
    result.latencies.push(performance.now() - t);
  };

  hooks.started?.();
  const start = performance.now();
  await Promise.all(
    sessions.map(async (client, c) => {
      let next = 0;
      const lane = async () => {
        while (next < perClient) await one(client, c, next++);
      };
      await Promise.all(Array.from({ length: inFlight }, lane));
    }),
  );
  result.wallMs = performance.now() - start;
  hooks.finished?.();
  await Promise.all(sessions.map((s) => s.close().catch(() => {})));
  return result;
}
