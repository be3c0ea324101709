import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Trace } from '../../lib/protocol/messages';
import { RelayClient } from '../../lib/relay/client';
import type { SimWorld } from '../support/sim-harness';

/**
 * (s) `comet-relay export --all` on the simulated library (tests/sim/json/library.ts): threads a second
 * through the whole chain, the CLI's peak resident memory (VmHWM) for a small and a large library
 * (flat: a page of the list and the threads under way are all it holds), and one JSON page's time
 * through the chain (client → host → worker → the tab's fetch → back) beside the page's own fetch.
 */
export interface ExportRun {
  threads: number;
  ms: number;
  peakBytes: number;
  code: number | null;
  files: number;
  stdout: string;
}

function highWater(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // gone
  }
}

/** One `export --all` of a library of `threads` threads (the 25-turn one among them), into a new folder. */
export async function exportRun(world: SimWorld, threads: number): Promise<ExportRun> {
  world.site.library.seed({ threads, longTurns: 25 });
  world.site.library.rateLimit = null;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [world.harness.cli, 'export', '--all', '--out', out], { env: world.harness.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stdout += chunk;
    });
    let peakBytes = 0;
    const sampler = setInterval(() => {
      if (child.pid) peakBytes = Math.max(peakBytes, highWater(child.pid));
    }, 25);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(sampler);
    const ms = performance.now() - started;
    const files = fs.readdirSync(out).filter((f) => f.endsWith('.md')).length;
    return { threads, ms, peakBytes, code, files, stdout };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** `library.thread` of one-page threads, traced: the whole call as the client sees it, and the page's own part. */
export async function pageTimes(world: SimWorld, count: number): Promise<{ total: number[]; page: number[] }> {
  const slugs = world.site.library.threads.filter((t) => t.turns.length <= world.site.library.pageCap).slice(0, count).map((t) => t.slug);
  const client = new RelayClient({ home: world.harness.home, client: { name: 'bench-export' }, transport: 'stdio' });
  const total: number[] = [];
  const page: number[] = [];
  try {
    for (const slug of slugs) {
      const trace: Trace = {};
      const started = performance.now();
      const thread = await client.call('library.thread', { thread: slug }, { timeoutMs: 30_000, trace });
      if (thread.pages !== 1) throw new Error(`${slug} took ${thread.pages} pages; this measure wants one`);
      total.push(performance.now() - started);
      if (typeof trace.page === 'number') page.push(trace.page);
    }
  } finally {
    client.close();
  }
  return { total, page };
}
