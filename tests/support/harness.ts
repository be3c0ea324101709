import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import { listHosts } from '../../lib/relay/discovery';
import { findChromium, QUIET_FLAGS } from './chromium';

/**
 * Everything an end-to-end test needs, for real: Chromium with the built extension, the real
 * `comet-relay host` registered into a temporary profile (install --user-data-dir --home), and
 * MCP clients started as separate processes. Nothing of ours is mocked.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');
export const EXTENSION_DIR = path.join(ROOT, '.output', 'chrome-mv3');

export type SiteRouter = (context: BrowserContext) => Promise<void>;

export interface HarnessOptions {
  /** Installs the simulated (or a placeholder) perplexity.ai into the context. */
  site?: SiteRouter;
  /** Skip registering the native host (to test what a missing host looks like). */
  registerHost?: boolean;
  extraEnv?: Record<string, string>;
  /**
   * More Chromium flags: `--host-resolver-rules` of a standalone simulated site (tests/sim/server.ts)
   * reach tabs the extension opens itself, which Playwright's routing does not intercept in time.
   */
  browserArgs?: string[];
  /** Share another harness's COMET_RELAY_HOME (two browsers, two hosts, one discovery folder). */
  home?: string;
  /** The comet-relay CLI to install and run (default: this repository's dist/cli.js). */
  cli?: string;
  /** The extension folder Chromium loads (default: this repository's build). */
  extensionDir?: string;
  /** The browser to start (default findChromium()); e.g. a ManagedPolicy's wrapper (tests/support/managed-policy.ts). */
  executablePath?: string;
  /** Run by close() after the browser is closed (e.g. a sim server this harness's browser used). */
  onClose?: () => Promise<void>;
}

export class Harness {
  readonly clients: Client[] = [];
  private readonly children: ChildProcess[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly home: string,
    readonly userDataDir: string,
    readonly worker: Worker,
    readonly env: NodeJS.ProcessEnv,
    readonly cli: string,
    private readonly onClose?: () => Promise<void>,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const cli = options.cli ?? CLI;
    const extensionDir = options.extensionDir ?? EXTENSION_DIR;
    for (const built of [cli, path.join(extensionDir, 'manifest.json')]) {
      if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first.`);
    }
    const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cr-home-'));
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-profile-'));
    const env = { ...process.env, COMET_RELAY_HOME: home, ...options.extraEnv };
    if (options.registerHost !== false) {
      const installed = spawnSync(process.execPath, [cli, 'install', '--user-data-dir', userDataDir, '--home', home], { env, encoding: 'utf8' });
      if (installed.status !== 0) {
        throw new Error(`comet-relay install exited with ${installed.status ?? installed.signal}:\n${installed.stdout}${installed.stderr}`);
      }
    }
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: options.executablePath ?? findChromium(),
      headless: true,
      viewport: { width: 1100, height: 800 },
      args: [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`, ...QUIET_FLAGS, ...(options.browserArgs ?? [])],
    });
    await options.site?.(context);
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    return new Harness(context, home, userDataDir, worker, env, cli, options.onClose);
  }

  get extensionId(): string {
    return new URL(this.worker.url()).host;
  }

  /** Waits until the extension's host has written its discovery record. */
  async waitForHost(timeoutMs = 15_000, exceptPid?: number) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const host = listHosts(this.home).find((h) => h.pid !== exceptPid);
      if (host) return host;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`No comet-relay host registered in ${this.home} within ${timeoutMs} ms; see ${this.home}/logs/host.log`);
  }

  async openPerplexity(url = 'https://www.perplexity.ai/'): Promise<Page> {
    const page = await this.context.newPage();
    await page.goto(url);
    return page;
  }

  async openPanel(): Promise<Page> {
    const page = await this.context.newPage();
    await page.goto(`chrome-extension://${this.extensionId}/sidepanel.html`);
    return page;
  }

  /** An MCP client on `comet-relay mcp`, a child process speaking stdio. */
  async stdioClient(name = 'e2e-stdio', args: string[] = []): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [this.cli, 'mcp', ...args],
      env: this.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    this.clients.push(client);
    return client;
  }

  /** Starts `comet-relay serve` on a free port and returns its URL and token (and what it printed on stderr so far). */
  async startServe(args: string[] = []): Promise<{ url: string; token: string; process: ChildProcess; stderr: () => string }> {
    const child = spawn(process.execPath, [this.cli, 'serve', '--port', '0', ...args], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 10_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /serving MCP at (\S+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    const token = execFileSync(process.execPath, [this.cli, 'token'], { env: this.env }).toString().trim();
    return { url, token, process: child, stderr: () => output };
  }

  async httpClient(url: string, token: string, name = 'e2e-http'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    this.clients.push(client);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close().catch(() => {})));
    for (const child of this.children) child.kill();
    await this.context.close().catch(() => {});
    await this.onClose?.().catch(() => {});
    fs.rmSync(this.userDataDir, { recursive: true, force: true });
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}
