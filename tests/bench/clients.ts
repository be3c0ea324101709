import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, ROOT } from '../support/harness';
import { startServe } from './conformance';

/**
 * (o) Real MCP clients accept what `comet-relay config` prints for them, and connect: each client's
 * own CLI, installed on first use into .cache/mcp-clients/<client> (the npm registry is needed once;
 * about 1.3 GB for all five, so opt-in: `npm run bench -- --only o`). Every client runs with a
 * scratch HOME (and XDG folders, CODEX_HOME), so nothing of the user's own client settings is read
 * or written; every command has a time limit, so the row ends by itself.
 *
 * Each package below ships its native binary as an optional platform package on the npm registry
 * (`@anthropic-ai/claude-code-linux-x64`, `@openai/codex-linux-x64`, `opencode-linux-x64`), so an
 * install needs nothing but the registry. None of them needs a login to list its MCP servers.
 * The MCP servers answer initialize and tools/list without a browser; here they run with the
 * bench's COMET_RELAY_HOME, beside its host.
 */
export const CLIENT_PACKAGES = {
  gemini: { spec: '@google/gemini-cli@0.61.0', bin: 'gemini' },
  'claude-code': { spec: '@anthropic-ai/claude-code@2.1.332', bin: 'claude' },
  codex: { spec: '@openai/codex@0.171.0', bin: 'codex' },
  opencode: { spec: 'opencode-ai@1.18.33', bin: 'opencode' },
  'mcp-remote': { spec: 'mcp-remote@0.15.1', bin: 'mcp-remote-client' },
} as const;
type ClientKey = keyof typeof CLIENT_PACKAGES;

const CLIENTS_DIR = path.join(ROOT, '.cache', 'mcp-clients');
const STEP_MS = 120_000;

export interface ClientCheck {
  /** What was checked, e.g. "Claude Code (config http)". */
  client: string;
  /** The client's own `--version` line. */
  version: string;
  /** The client's command that proved it, as run. */
  command: string;
  ok: boolean;
  /** The line of the client's output that says so (or why not). */
  detail: string;
}

interface Ran {
  code: number;
  out: string;
}

/** Runs one command with a time limit; stdin stays open (mcp-remote shuts down when it ends). */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? STEP_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').trim();

async function ensureClient(key: ClientKey, log: (text: string) => void): Promise<string> {
  const { spec, bin } = CLIENT_PACKAGES[key];
  const dir = path.join(CLIENTS_DIR, key);
  const file = path.join(dir, 'node_modules', '.bin', bin);
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const wanted = spec.slice(spec.lastIndexOf('@') + 1);
  const installed = path.join(dir, 'node_modules', name, 'package.json');
  if (fs.existsSync(file) && fs.existsSync(installed) && JSON.parse(fs.readFileSync(installed, 'utf8')).version === wanted) return file;
  log(`installing ${spec} into ${path.relative(ROOT, dir)} (once)`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  const done = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', spec], { cwd: dir, timeoutMs: 900_000 });
  if (done.code !== 0) throw new Error(`npm install ${spec} failed: ${done.out.slice(-1000)}`);
  if (!fs.existsSync(file)) throw new Error(`npm install ${spec} left no ${bin} (its platform package may be missing for ${process.platform}-${process.arch})`);
  return file;
}

/** A scratch home for one client: HOME, the XDG folders and CODEX_HOME all inside it. */
function scratch(prefix: string, env: NodeJS.ProcessEnv): { home: string; env: NodeJS.ProcessEnv; done(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const clientEnv: NodeJS.ProcessEnv = {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    CODEX_HOME: path.join(home, '.codex'),
    // Claude Code: no update checks, telemetry or error reports from a bench.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  delete clientEnv.CLAUDE_CONFIG_DIR;
  delete clientEnv.GEMINI_CLI_HOME;
  delete clientEnv.OPENCODE_CONFIG;
  return { home, env: clientEnv, done: () => fs.rmSync(home, { recursive: true, force: true }) };
}

async function versionOf(bin: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { out } = await run(bin, ['--version'], { env, timeoutMs: 30_000 });
  return plain(out.split('\n').filter((l) => l.trim() && !l.startsWith('WARNING')).pop() ?? '?');
}

/** What `comet-relay config <client>` prints, for the bench's COMET_RELAY_HOME. */
async function printed(client: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<string> {
  const { code, out } = await run(process.execPath, [CLI, 'config', client, '--home', String(env.COMET_RELAY_HOME), ...extra], { env });
  if (code !== 0) throw new Error(`comet-relay config ${client} exited with ${code}: ${out.slice(0, 300)}`);
  return out;
}

/** The printed line that starts with `prefix`, run through a shell word for word, as a person would paste it. */
function pasted(text: string, prefix: string, bin: string): string | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${prefix} `));
  return line && `"${bin}" ${line.slice(prefix.length + 1)}`;
}

/** The first JSON value in a printed snippet. */
function firstJson(text: string): Record<string, unknown> {
  const start = text.indexOf('{');
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  throw new Error(`no JSON in: ${text.slice(0, 200)}`);
}

function check(client: string, version: string, command: string, ok: boolean, detail: string): ClientCheck {
  return { client, version, command, ok, detail: plain(detail).replace(/\s+/g, ' ') };
}

/** Gemini CLI: `gemini mcp add …` as printed, then `gemini mcp list` → Connected (only in a trusted folder). */
async function gemini(env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const bin = await ensureClient('gemini', log);
  const box = scratch('cr-gemini-', env);
  try {
    const clientEnv = { ...box.env, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    const version = await versionOf(bin, clientEnv);
    const line = pasted(await printed('gemini', env), 'gemini', bin);
    if (!line) return check('Gemini CLI', version, 'config gemini', false, 'config gemini printed no `gemini mcp add` line');
    const added = await run('/bin/sh', ['-c', line], { env: clientEnv, cwd: box.home });
    if (added.code !== 0) return check('Gemini CLI', version, 'gemini mcp add (as printed)', false, `refused: ${added.out.slice(-300)}`);
    const listed = await run(bin, ['mcp', 'list'], { env: clientEnv, cwd: box.home });
    const row = listed.out.split('\n').find((l) => l.includes('comet-relay:')) ?? listed.out.slice(-200);
    return check('Gemini CLI', version, 'gemini mcp list', /Connected/.test(row), row);
  } finally {
    box.done();
  }
}

/** Claude Code: a printed `claude mcp add …` line, then `claude mcp list` → Connected. No login needed. */
async function claude(label: string, text: string, env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const bin = await ensureClient('claude-code', log);
  const box = scratch('cr-claude-', env);
  try {
    const version = await versionOf(bin, box.env);
    const line = pasted(text, 'claude', bin);
    if (!line) return check(label, version, 'claude mcp add', false, 'config printed no `claude mcp add` line');
    const added = await run('/bin/sh', ['-c', line], { env: box.env, cwd: box.home });
    if (added.code !== 0) return check(label, version, 'claude mcp add (as printed)', false, `refused: ${added.out.slice(-300)}`);
    const listed = await run(bin, ['mcp', 'list'], { env: box.env, cwd: box.home });
    const row = listed.out.split('\n').find((l) => l.startsWith('comet-relay:')) ?? listed.out.slice(-200);
    return check(label, version, 'claude mcp list', /✔ Connected|\bConnected\b/.test(row) && !/Failed/.test(row), row);
  } finally {
    box.done();
  }
}

/**
 * Codex: the printed TOML as CODEX_HOME/config.toml; `codex mcp get comet-relay --json` must show it
 * parsed, with tool_timeout_sec read. `mcp list`/`get` only read the configuration, so the
 * connection is shown by Codex's own app-server (the JSON-RPC service behind its IDE extensions):
 * `mcpServerStatus/list` starts the configured servers and returns the tools each one listed.
 */
async function codex(env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const bin = await ensureClient('codex', log);
  const box = scratch('cr-codex-', env);
  try {
    const codexHome = String(box.env.CODEX_HOME);
    fs.mkdirSync(codexHome, { recursive: true });
    const version = await versionOf(bin, box.env);
    const text = await printed('codex', env);
    const toml = text.slice(text.indexOf('[mcp_servers.'), text.indexOf('\n# Or the command line'));
    fs.writeFileSync(path.join(codexHome, 'config.toml'), toml);
    const got = await run(bin, ['mcp', 'get', 'comet-relay', '--json'], { env: box.env, cwd: box.home });
    const json = got.out.slice(got.out.indexOf('{'), got.out.lastIndexOf('}') + 1);
    let entry: { transport?: { command?: string; env?: Record<string, string> }; tool_timeout_sec?: number };
    try {
      entry = JSON.parse(json);
    } catch {
      return check('Codex', version, 'codex mcp get comet-relay --json', false, `refused: ${got.out.slice(-300)}`);
    }
    const parsed = entry.tool_timeout_sec === 600 && entry.transport?.command === process.execPath && entry.transport.env?.COMET_RELAY_HOME === env.COMET_RELAY_HOME;
    const parsedText = `tool_timeout_sec ${entry.tool_timeout_sec}, env COMET_RELAY_HOME ${entry.transport?.env?.COMET_RELAY_HOME === env.COMET_RELAY_HOME ? 'set' : 'missing'}`;
    if (!parsed) return check('Codex', version, 'codex mcp get comet-relay --json', false, `parsed wrong: command ${entry.transport?.command}, ${parsedText}`);
    const status = await codexServerStatus(bin, box.env, box.home);
    const tools = Object.keys(status?.tools ?? {}).length;
    return check(
      'Codex',
      version,
      'codex mcp get comet-relay --json; codex app-server → mcpServerStatus/list',
      tools > 0,
      `${parsedText}; mcpServerStatus/list: ${status ? `${status.name} ${status.serverInfo?.version ?? '?'}, ${tools} tools` : 'no comet-relay entry'}`,
    );
  } finally {
    box.done();
  }
}

interface CodexServerStatus {
  name: string;
  serverInfo?: { version?: string };
  tools?: Record<string, unknown>;
}

/** Asks `codex app-server` (JSON lines on stdio) for the status of its MCP servers; comet-relay's entry, or undefined. */
function codexServerStatus(bin: string, env: NodeJS.ProcessEnv, cwd: string): Promise<CodexServerStatus | undefined> {
  return new Promise((resolve) => {
    const child = spawn(bin, ['app-server'], { env, cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    const finish = (status: CodexServerStatus | undefined) => {
      clearTimeout(timer);
      child.kill();
      resolve(status);
    };
    const timer = setTimeout(() => finish(undefined), 60_000);
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    child.on('error', () => finish(undefined));
    child.stdin.on('error', () => {});
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let message: { id?: number; result?: { data?: CodexServerStatus[] } };
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.id === 1) {
          send({ method: 'initialized' });
          send({ id: 2, method: 'mcpServerStatus/list', params: {} });
        } else if (message.id === 2) finish(message.result?.data?.find((s) => s.name === 'comet-relay'));
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'comet-relay-bench', title: 'comet-relay bench', version: '1' } } });
  });
}

/**
 * opencode: the printed opencode.json in the project folder; `opencode mcp list` → connected, and
 * `opencode debug config` (the configuration it resolved) still holds the tool-call timeout.
 */
async function opencode(env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const bin = await ensureClient('opencode', log);
  const box = scratch('cr-opencode-', env);
  try {
    const version = await versionOf(bin, box.env);
    const project = path.join(box.home, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'opencode.json'), `${JSON.stringify(firstJson(await printed('opencode', env)), null, 2)}\n`);
    const listed = await run(bin, ['mcp', 'list', '--pure'], { env: box.env, cwd: project });
    const row = plain(listed.out).split('\n').find((l) => l.includes('comet-relay')) ?? listed.out.slice(-200);
    const resolved = await run(bin, ['debug', 'config', '--pure'], { env: box.env, cwd: project });
    let timeout: unknown;
    try {
      timeout = (firstJson(resolved.out) as { mcp?: Record<string, { timeout?: number }> }).mcp?.['comet-relay']?.timeout;
    } catch {
      timeout = 'unreadable';
    }
    return check('opencode', version, 'opencode mcp list --pure; opencode debug config --pure', /\bconnected\b/.test(row) && timeout === 600_000, `${row}; resolved timeout ${timeout}`);
  } finally {
    box.done();
  }
}

/** mcp-remote's own client, with the url and header of `config http`, lists the tools of `serve`. */
async function mcpRemote(text: string, env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck> {
  const bin = await ensureClient('mcp-remote', log);
  const box = scratch('cr-mcp-remote-', env);
  try {
    const version = JSON.parse(fs.readFileSync(path.join(CLIENTS_DIR, 'mcp-remote', 'node_modules', 'mcp-remote', 'package.json'), 'utf8')).version;
    const entry = (firstJson(text).mcpServers as Record<string, { url: string; headers: Record<string, string> }>)['comet-relay'];
    if (!entry) return check('mcp-remote', version, 'config http', false, 'config http printed no comet-relay entry');
    const headers = Object.entries(entry.headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
    const listed = await run(bin, [entry.url, ...headers], { env: box.env, cwd: box.home, timeoutMs: 60_000 });
    const tools = /Tools: (\{[\s\S]*?\n\})/.exec(listed.out)?.[1];
    const count = tools ? (JSON.parse(tools).tools as unknown[]).length : 0;
    const detail = tools ? `Tools: ${count} tools listed` : (listed.out.split('\n').find((l) => /error|fatal/i.test(l)) ?? listed.out.slice(-300));
    return check('mcp-remote', version, `mcp-remote-client ${entry.url} --header 'Authorization: Bearer …'`, count > 0, detail);
  } finally {
    box.done();
  }
}

/** Every client `config` prints for whose own CLI is on the npm registry, one after another. */
export async function clientChecks(env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<ClientCheck[]> {
  const guarded = async (client: string, step: () => Promise<ClientCheck>): Promise<ClientCheck> => {
    log(`(o) ${client}`);
    try {
      return await step();
    } catch (error) {
      return check(client, '?', '', false, (error as Error).message.slice(0, 300));
    }
  };
  const results: ClientCheck[] = [];
  results.push(await guarded('Gemini CLI', () => gemini(env, log)));
  results.push(await guarded('Claude Code', async () => claude('Claude Code', await printed('claude-code', env), env, log)));
  results.push(await guarded('Codex', () => codex(env, log)));
  results.push(await guarded('opencode', () => opencode(env, log)));
  const serve = await startServe(env);
  try {
    const http = await printed('http', env, ['--port', String(serve.port)]);
    results.push(await guarded('mcp-remote', () => mcpRemote(http, env, log)));
    results.push(await guarded('Claude Code (config http)', () => claude('Claude Code (config http)', http, env, log)));
  } finally {
    serve.stop();
  }
  return results;
}
