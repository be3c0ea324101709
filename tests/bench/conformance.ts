import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { readToken } from '../../lib/install/token';
import { CLI, ROOT } from '../support/harness';

/**
 * (i) Real third-party clients against our servers: the MCP conformance suite against
 * `comet-relay serve`, and the MCP Inspector CLI against `comet-relay mcp`. Both are installed on
 * first use into .cache/mcp-tools (gitignored; the npm registry is needed once), so neither weighs
 * on `npm ci`. Conformance 0.1.13 is the newest that runs on Node 20 (0.1.16 needs Node 22 and
 * gives the same results on these scenarios).
 *
 * The suite's client sends no Authorization header, so it talks to serve through a small proxy that
 * adds the bearer token, the way a configured client would; it passes foreign Host and Origin
 * headers through untouched, so the DNS-rebinding scenario still meets serve's own checks.
 */
export const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.13';
export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const TOOLS_DIR = path.join(ROOT, '.cache', 'mcp-tools');

/** The server scenarios that apply to a server with our capabilities (tools only, Streamable HTTP). */
export const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

export interface ScenarioResult {
  scenario: string;
  passed: number;
  total: number;
  failure?: string;
}

export interface InspectorCheck {
  what: string;
  ok: boolean;
  detail: string;
}

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/** Installs the two tools into .cache/mcp-tools unless they are there already. */
export async function ensureTools(log: (text: string) => void): Promise<{ conformance: string; inspector: string }> {
  const bin = (name: string) => path.join(TOOLS_DIR, 'node_modules', '.bin', name);
  if (!fs.existsSync(bin('conformance')) || !fs.existsSync(bin('mcp-inspector'))) {
    log(`installing ${CONFORMANCE} and ${INSPECTOR} into ${path.relative(ROOT, TOOLS_DIR)} (once)`);
    fs.mkdirSync(TOOLS_DIR, { recursive: true });
    fs.writeFileSync(path.join(TOOLS_DIR, 'package.json'), '{ "private": true }\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = await run(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', CONFORMANCE, INSPECTOR], { cwd: TOOLS_DIR, timeoutMs: 600_000 });
    if (installed.code !== 0) throw new Error(`npm install of the MCP tools failed: ${installed.out.slice(-2000)}`);
  }
  return { conformance: bin('conformance'), inspector: bin('mcp-inspector') };
}

/** Adds the bearer token; maps the proxy's own Host/Origin to serve's, and leaves any other as it came. */
function tokenProxy(targetPort: number, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const port = (server.address() as { port: number }).port;
    const own = (value: string | undefined) => value !== undefined && new RegExp(`^(http://)?(localhost|127\\.0\\.0\\.1|\\[::1\\]):${port}$`, 'i').test(value);
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (own(req.headers.host)) headers.host = String(req.headers.host).replace(`:${port}`, `:${targetPort}`);
    if (own(req.headers.origin)) headers.origin = String(req.headers.origin).replace(`:${port}`, `:${targetPort}`);
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/**
 * Starts `comet-relay serve` on a free port for `env`'s COMET_RELAY_HOME (the bench's conformance
 * and clients rows); its port and a stop. Fails naming serve's output if it exits or stays silent.
 */
export async function startServe(env: NodeJS.ProcessEnv): Promise<{ port: number; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 10_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving MCP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${output}`));
    });
  });
  return { port, pid: child.pid ?? -1, stop: () => child.kill() };
}

export async function conformanceAgainstServe(binary: string, env: NodeJS.ProcessEnv, home: string, scenarios = APPLICABLE_SCENARIOS): Promise<ScenarioResult[]> {
  const serve = await startServe(env);
  const token = readToken(home);
  if (!token) throw new Error(`no token in ${home} after serve started`);
  const proxy = await tokenProxy(serve.port, token);
  try {
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      const { out } = await run(binary, ['server', '--url', proxy.url, '--scenario', scenario], { env });
      const summary = /Passed: (\d+)\/(\d+)/.exec(out);
      const failure = /Error: ([^\n]+)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''))?.[1];
      results.push({ scenario, passed: Number(summary?.[1] ?? 0), total: Number(summary?.[2] ?? 0), ...(failure ? { failure } : {}) });
    }
    return results;
  } finally {
    await proxy.close();
    serve.stop();
  }
}

/** The Inspector's CLI mode driving `comet-relay mcp` over stdio. */
export async function inspectorAgainstMcp(binary: string, env: NodeJS.ProcessEnv): Promise<InspectorCheck[]> {
  const envArgs = ['COMET_RELAY_HOME', 'COMET_HOST_WAIT'].flatMap((key) => (env[key] ? ['-e', `${key}=${env[key]}`] : []));
  const inspect = async (...method: string[]) => {
    const { code, out } = await run(binary, ['--cli', ...envArgs, process.execPath, CLI, 'mcp', ...method], { env });
    return { code, json: firstJsonObject(out), out };
  };
  const text = (json: Record<string, unknown> | undefined) => ((json?.content as { text?: string }[] | undefined)?.[0]?.text ?? '').slice(0, 160);
  const checks: InspectorCheck[] = [];
  const list = await inspect('--method', 'tools/list');
  const tools = (list.json?.tools as { name: string }[] | undefined) ?? [];
  checks.push({ what: 'tools/list', ok: tools.length >= 13, detail: `${tools.length} tools` });
  const tabs = await inspect('--method', 'tools/call', '--tool-name', 'comet_list_tabs');
  checks.push({ what: 'tools/call comet_list_tabs', ok: tabs.json?.isError !== true && /===/.test(text(tabs.json)), detail: text(tabs.json).split('\n')[0] ?? tabs.out.slice(0, 160) });
  const bad = await inspect('--method', 'tools/call', '--tool-name', 'comet_poll', '--tool-arg', 'maxLength=lots');
  checks.push({ what: 'tools/call comet_poll maxLength=lots', ok: bad.json?.isError === true && text(bad.json).includes('maxLength'), detail: text(bad.json) || bad.out.slice(0, 160) });
  return checks;
}

/** The Inspector prints the result, then (for an isError result) a second object: take the first. */
function firstJsonObject(out: string): Record<string, unknown> | undefined {
  const lines = out.slice(Math.max(0, out.indexOf('{'))).split('\n');
  for (let end = 1; end <= lines.length; end++) {
    try {
      return JSON.parse(lines.slice(0, end).join('\n')) as Record<string, unknown>;
    } catch {
      // not complete yet
    }
  }
  return undefined;
}
