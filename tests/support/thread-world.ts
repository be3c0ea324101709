import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import { type SimServer, startSimServer } from '../sim/server';
import { createSimSite, type SimOptions, type SimSite } from '../sim/site';
import { CLI, Harness, textOf } from './harness';

/**
 * The world the thread e2e tests share: the simulated site, Chromium with the extension, the real
 * host, and real MCP clients on `comet-relay mcp` — one with a hold long enough for any scenario,
 * one whose hold is short so `timeout` can be seen. Progress beats are fast so tests see them.
 */
export const LONG_HOLD_MS = 90_000;
export const SHORT_HOLD_MS = 2500;

export interface ThreadCall {
  raw: Awaited<ReturnType<Client['callTool']>>;
  text: string;
  isError: boolean;
  /** The seed's object (structuredContent). */
  result: Record<string, unknown> & { thread_id?: string; event?: string; task_status?: string };
  progress: string[];
}

export class ThreadWorld {
  private constructor(
    readonly harness: Harness,
    private readonly server: SimServer,
    readonly site: SimSite,
    readonly page: Page,
    readonly client: Client,
    readonly quick: Client,
  ) {}

  static async start(options: Partial<SimOptions> = {}): Promise<ThreadWorld> {
    const site = createSimSite({ generation: 'B', scenario: 'short', speed: 4, ...options });
    // A standalone server (not Playwright routing): it also reaches the tabs the extension opens itself.
    const server = await startSimServer({ port: 0, site });
    const harness = await Harness.start({
      browserArgs: server.chromiumArgs,
      extraEnv: { COMET_THREAD_HOLD_MS: String(LONG_HOLD_MS), COMET_THREAD_PROGRESS_MS: '1000' },
    });
    await harness.waitForHost();
    const page = await harness.openPerplexity();
    const client = await spawnClient(harness, 'threads-agent');
    const quick = await spawnClient(harness, 'threads-quick', { env: { COMET_THREAD_HOLD_MS: String(SHORT_HOLD_MS) } });
    return new ThreadWorld(harness, server, site, page, client, quick);
  }

  /** One tool call with progress collected; generous client timeout (the hold is what ends it). */
  async call(name: string, args: Record<string, unknown> = {}, client: Client = this.client): Promise<ThreadCall> {
    return this.begin(name, args, client).done;
  }

  /** Starts a call; `progress` fills while it is held. */
  begin(name: string, args: Record<string, unknown> = {}, client: Client = this.client): { progress: string[]; done: Promise<ThreadCall> } {
    const progress: string[] = [];
    const done = client
      .callTool({ name, arguments: args }, undefined, {
        timeout: LONG_HOLD_MS + 60_000,
        onprogress: (p) => progress.push(p.message ?? ''),
      })
      .then((raw) => ({
        raw,
        text: textOf(raw),
        isError: Boolean(raw.isError),
        result: (raw.structuredContent ?? {}) as ThreadCall['result'],
        progress,
      }));
    return { progress, done };
  }

  /** The background tab a thread lives in. */
  threadPage(threadId: string): Page | undefined {
    return this.harness.context.pages().find((p) => p.url().includes(threadId));
  }

  async close(): Promise<void> {
    await this.harness.close();
    await this.server.close();
  }
}

/** An MCP client on its own `comet-relay mcp` process, with extra env and client capabilities. */
export async function spawnClient(
  harness: Harness,
  name: string,
  options: { env?: Record<string, string>; capabilities?: ClientOptions['capabilities'] } = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: { ...(harness.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  harness.clients.push(client);
  return client;
}

/** POSTs a file to an upload envelope the way an S3 presigned POST is used: fields first, then `file`. */
export async function uploadTo(envelope: { upload_url: string; upload_fields: Record<string, string> }, bytes: string, filename: string): Promise<number> {
  const form = new FormData();
  for (const [key, value] of Object.entries(envelope.upload_fields)) form.append(key, value);
  form.append('file', new Blob([bytes]), filename);
  const response = await fetch(envelope.upload_url, { method: 'POST', body: form });
  await response.arrayBuffer();
  return response.status;
}
