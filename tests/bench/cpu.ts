import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { Harness } from '../support/harness';

/**
 * CPU time by role (Linux /proc) over a stretch of the bench: where a call's work goes when the
 * whole chain is busy. Processes are told apart by their command lines: the MCP processes
 * (`cli.js mcp`), the host, this bench process, and the harness's Chromium (its profile folder),
 * split into the browser process, the extension's process (its service worker) and the pages'
 * renderers. Sampled every 100 ms, so a process that exits keeps what it used until then.
 */
export type Role = 'bench (MCP clients)' | 'mcp processes' | 'host' | 'browser process' | 'extension worker' | 'page renderer' | 'other Chromium';

const ORDER: Role[] = ['bench (MCP clients)', 'mcp processes', 'host', 'browser process', 'extension worker', 'page renderer', 'other Chromium'];
const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

function roleOf(pid: number, args: string, harness: Harness): Role | undefined {
  if (pid === process.pid) return 'bench (MCP clients)';
  if (args.includes(harness.cli) && / mcp\b/.test(args)) return 'mcp processes';
  if (/ host\b|chrome-extension:\/\//.test(args) && args.includes('cli.js')) return 'host';
  if (!args.includes(harness.userDataDir)) return undefined;
  if (!args.includes('--type=')) return 'browser process';
  if (args.includes('--type=renderer')) return args.includes('--extension-process') ? 'extension worker' : 'page renderer';
  return 'other Chromium';
}

export interface CpuSampler {
  /** CPU ms per role since start(), in a fixed order (roles with no process omitted). */
  stop(): [Role, number][];
}

export function sampleCpu(harness: Harness): CpuSampler {
  if (os.platform() !== 'linux') return { stop: () => [] };
  const seen = new Map<number, { role: Role; first: number; last: number }>();
  const sample = (firstPass: boolean) => {
    const listing = execFileSync('ps', ['-eo', 'pid=,args='], { maxBuffer: 8 * 1024 * 1024 }).toString();
    for (const line of listing.split('\n')) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      const pid = Number(m[1]);
      const role = roleOf(pid, m[2] ?? '', harness);
      if (!role) continue;
      let ticks: number;
      try {
        const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        ticks = Number(fields[11]) + Number(fields[12]);
      } catch {
        continue; // exited meanwhile
      }
      const known = seen.get(pid);
      // A process that appears after the start counts from zero: it did all its work inside the stretch.
      if (!known) seen.set(pid, { role, first: firstPass ? ticks : 0, last: ticks });
      else known.last = ticks;
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 100);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      const byRole = new Map<Role, number>();
      for (const { role, first, last } of seen.values()) byRole.set(role, (byRole.get(role) ?? 0) + (last - first) * TICK_MS);
      return ORDER.filter((role) => byRole.has(role)).map((role) => [role, byRole.get(role) as number]);
    },
  };
}
