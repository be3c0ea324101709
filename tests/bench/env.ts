import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ROOT } from '../support/harness';

/** The commit measured, marked when the working tree has uncommitted changes. */
export function commitLabel(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT }).toString().trim();
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

/** The 1-, 5- and 15-minute load averages: other work on the machine shows in every timing. */
export function loadLine(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(', ');
}

/** The lines that say where and how the numbers were taken. */
export function environmentLines(browser: string, loadAtStart: string): string[] {
  const cpus = os.cpus();
  return [
    `- command: \`npm run bench\` (tests/bench/run.ts), commit ${commitLabel()}`,
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus.length} CPU × ${cpus[0]?.model.trim() ?? 'unknown'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}; load average ${loadAtStart} at the start, ${loadLine()} at the end`,
    `- Node ${process.version}; ${browser}, headless`,
  ];
}
