import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * What install, uninstall and doctor are given in unit tests: a fake Linux home with a built CLI
 * (`repo/dist/cli.js`) in a temporary folder, removed when the test ends. Nothing outside it is
 * touched. Call it inside a test.
 */
export function linuxInstallHome(name: string, env: Record<string, string> = {}) {
  const homedir = fs.mkdtempSync(path.join(os.tmpdir(), `cr-${name}-`));
  onTestFinished(() => fs.rmSync(homedir, { recursive: true, force: true }));
  const cliPath = path.join(homedir, 'repo', 'dist', 'cli.js');
  fs.mkdirSync(path.dirname(cliPath), { recursive: true });
  fs.writeFileSync(cliPath, '// built\n');
  return { homedir, cliPath, platform: 'linux' as const, env: { ...env }, nodePath: process.execPath };
}
