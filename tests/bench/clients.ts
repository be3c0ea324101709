import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, ROOT } from '../support/harness';

/**
 * (o) Real MCP clients accept what `comet-relay config` prints for them, and connect: each client's
 * own CLI, installed on first use into .cache/mcp-clients (the npm registry is needed once; a few
 * hundred MB, so opt-in: `npm run bench -- --only o`). Each runs with a scratch HOME, so nothing of
 * the user's own client settings is read or written.
 *
 * Gemini CLI is checked for now (`gemini mcp add` as printed, then `gemini mcp list`: Connected);
 * it needs Node 20+ and starts servers only in a trusted folder (GEMINI_CLI_TRUST_WORKSPACE).
 */
export const GEMINI_CLI = '@google/gemini-cli@0.61.0';
const CLIENTS_DIR = path.join(ROOT, '.cache', 'mcp-clients');

export interface ClientCheck {
  client: string;
  ok: boolean;
  detail: string;
}

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

async function ensureClient(spec: string, bin: string, log: (text: string) => void): Promise<string> {
  const file = path.join(CLIENTS_DIR, 'node_modules', '.bin', bin);
  if (fs.existsSync(file)) return file;
  log(`installing ${spec} into ${path.relative(ROOT, CLIENTS_DIR)} (once)`);
  fs.mkdirSync(CLIENTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(CLIENTS_DIR, 'package.json'), '{ "private": true }\n');
  const installed = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', spec], { cwd: CLIENTS_DIR, timeoutMs: 900_000 });
  if (installed.code !== 0) throw new Error(`npm install ${spec} failed: ${installed.out.slice(-1000)}`);
  return file;
}

/** `comet-relay config gemini`'s command line, run by Gemini CLI itself, then its own `mcp list`. */
export async function geminiAccepts(env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const gemini = await ensureClient(GEMINI_CLI, 'gemini', log);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-gemini-'));
  try {
    const printed = await run(process.execPath, [CLI, 'config', 'gemini', '--home', String(env.COMET_RELAY_HOME)], { env });
    const line = printed.out.split('\n').find((l) => l.startsWith('gemini mcp add '));
    if (!line) return { client: 'gemini', ok: false, detail: `config gemini printed no command line: ${printed.out.slice(0, 200)}` };
    const clientEnv = { ...env, HOME: home, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    // The printed line, word for word, through a shell as a person would paste it.
    const added = await run('/bin/sh', ['-c', `"${gemini}" ${line.slice('gemini '.length)}`], { env: clientEnv, cwd: home });
    if (added.code !== 0) return { client: 'gemini', ok: false, detail: `gemini mcp add refused it: ${added.out.slice(-300)}` };
    const listed = await run(gemini, ['mcp', 'list'], { env: clientEnv, cwd: home, timeoutMs: 120_000 });
    const row = listed.out.split('\n').find((l) => l.includes('comet-relay:')) ?? listed.out.slice(-200);
    return { client: 'gemini', ok: /Connected/.test(row), detail: row.replace(/\u001b\[[0-9;]*m/g, '').trim() };
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
