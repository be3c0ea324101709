import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';
import { findChromium, QUIET_FLAGS } from '../support/chromium';

/**
 * (a)'s floor: the processes a streamed answer crosses on its way to `comet_wait`'s caller, with no code of ours in
 * them. A page's main world reads an SSE stream through its own `fetch` (paced as the sim paces a `short` answer); when
 * it has the end event it tells a content script, which sends 1.2 kB to an extension worker, which sends it to a
 * native host (Node, started by the browser), which writes it to a peer on a unix socket (Node, the MCP process's
 * place), which writes a line to its stdout, read here (the client's place). Each process stamps the message, so the
 * floor is known hop by hop; what comet-relay's own row adds to it is our code and the two MCP SDKs.
 */
export const FLOOR_HOPS: [string, string][] = [
  ['toWorker', 'content script → worker'],
  ['toHost', 'worker → native host (its read)'],
  ['toPeer', 'native host → peer (socket, its read)'],
  ['toClient', 'peer → this process (stdout)'],
];

export interface ChainFloor {
  /** The page's moment the stream ended → this process had the line, per message. */
  totals: number[];
  hops: Record<string, number>[];
}

const here = path.join(path.dirname(new URL(import.meta.url).pathname), 'chain-floor');
const HOST_NAME = 'dev.comet_relay.bench_floor';
const epochMs = createRequire(import.meta.url)(path.join(here, 'clock.cjs')) as () => number;

/** Measures `count` messages (after two to warm up); each stream lasts about half a second. */
export async function measureChainFloor(count: number): Promise<ChainFloor> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-floor-'));
  const socket = path.join(scratch, 'peer.sock');
  const lines: Record<string, number>[] = [];
  let peer: ChildProcess | undefined;
  let server: http.Server | undefined;
  let context: Awaited<ReturnType<typeof chromium.launchPersistentContext>> | undefined;
  try {
    peer = spawn(process.execPath, [path.join(here, 'peer.cjs'), socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    const listening = onLines(peer, (line, at) => {
      if (line === 'listening') return;
      const m = JSON.parse(line) as { t: number; worker: number; host: number; peer: number };
      lines.push({ total: at - m.t, toWorker: m.worker - m.t, toHost: m.host - m.worker, toPeer: m.peer - m.host, toClient: at - m.peer });
    });
    server = await servePage();
    const launcher = path.join(scratch, 'host.sh');
    fs.writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${path.join(here, 'host.cjs')}" "${socket}"\n`, { mode: 0o755 });
    const profile = path.join(scratch, 'profile');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: findChromium(),
      headless: true,
      args: [`--disable-extensions-except=${here}`, `--load-extension=${here}`, ...QUIET_FLAGS],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    // The host's manifest names the extension, whose id comes from its folder: written before the worker's first message.
    fs.mkdirSync(path.join(profile, 'NativeMessagingHosts'), { recursive: true });
    fs.writeFileSync(
      path.join(profile, 'NativeMessagingHosts', `${HOST_NAME}.json`),
      JSON.stringify({ name: HOST_NAME, description: 'bench floor', path: launcher, type: 'stdio', allowed_origins: [`chrome-extension://${new URL(worker.url()).host}/`] }),
    );
    await listening;
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    const deadline = Date.now() + 30_000 + count * 3_000;
    while (lines.length < count + 2) {
      if (Date.now() > deadline) throw new Error(`the chain's floor: ${lines.length} of ${count + 2} messages came through`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await context?.close().catch(() => {});
    peer?.kill();
    server?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const measured = lines.slice(2, count + 2);
  return { totals: measured.map((l) => l.total as number), hops: measured };
}

/** Calls `onLine` with each line of the child's stdout and the moment it was read; resolves on the first line. */
function onLines(child: ChildProcess, onLine: (line: string, at: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let rest = '';
    child.once('exit', (code) => reject(new Error(`the chain's floor: its peer exited (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const at = epochMs();
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line, at);
      resolve();
    });
  });
}

/** The page, and its stream: 20 frames 25 ms apart, then the end event, again and again. */
async function servePage(): Promise<http.Server> {
  const page = `<!doctype html><title>floor</title><script>
    const clock = () => performance.timeOrigin + performance.now();
    async function ask() {
      const reader = (await fetch('/stream', { method: 'POST' })).body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.includes('event: end_of_stream\\n')) window.dispatchEvent(new CustomEvent('floor-stream-ended', { detail: String(clock()) }));
      }
      setTimeout(ask, 300);
    }
    setTimeout(ask, 500);
  </script>`;
  const server = http.createServer(async (request, response) => {
    if (request.url !== '/stream') return void response.end(page);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < 20; i++) {
      response.write(`event: message\ndata: {"frame":${i},"text":"${'y'.repeat(300)}"}\n\n`);
      await new Promise((r) => setTimeout(r, 25));
    }
    response.end('event: end_of_stream\ndata: {}\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
