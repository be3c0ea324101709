import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ROOT } from '../support/harness';

/** The lines that say where and how the numbers were taken. */
export function environmentLines(browser: string): string[] {
  const cpus = os.cpus();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT }).toString().trim();
    if (dirty) commit += ' (with uncommitted changes)';
  } catch {}
  return [
    `- command: \`npm run bench\` (tests/bench/run.ts), commit ${commit}`,
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus.length} CPU × ${cpus[0]?.model.trim() ?? 'unknown'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}`,
    `- Node ${process.version}; ${browser}, headless`,
  ];
}
