import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readToken } from '../../lib/install/token';
import { startServe } from './conformance';

/**
 * (r) `comet-relay serve` under session churn: MCP clients that open a session, list the tools and close it, and
 * clients that open one and vanish (the Agent API opens one per call and never says goodbye). After a warm-up, its
 * resident memory should stay flat however many come and go: only COMET_MAX_SESSIONS sessions are ever kept.
 * Measured with no browser connected: a session's own cost is what churns, not the browser's.
 */
export interface ChurnResult {
  idleBytes: number;
  warmBytes: number;
  afterBytes: number;
  sessions: number;
  closed: number;
  abandoned: number;
  /** Calls that failed (an answer other than 2xx), which would make the figure meaningless. */
  failures: string[];
  /** Still answering a new session after the churn. */
  answering: boolean;
}

function rss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** One client's whole life: initialize, initialized, tools/list, and a DELETE when it closes properly. */
async function oneSession(port: number, token: string, close: boolean, failures: string[]): Promise<boolean> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'churn', version: '1' } } }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (!init.ok || !id) {
    failures.push(`initialize: ${init.status}`);
    return false;
  }
  const session = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  const initialized = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await initialized.text();
  const list = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  const listed = await list.text();
  if (!list.ok || !listed.includes('comet_ask')) failures.push(`tools/list: ${list.status}`);
  if (close) {
    const gone = await fetch(url, { method: 'DELETE', headers: session });
    await gone.text();
    if (!gone.ok) failures.push(`DELETE: ${gone.status}`);
  }
  return true;
}

export async function serveChurn(sessions = 1000, warmUp = 200): Promise<ChurnResult> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-churn-'));
  const serve = await startServe({ ...process.env, COMET_RELAY_HOME: home });
  const { port, pid } = serve;
  const failures: string[] = [];
  try {
    const token = readToken(home);
    if (!token) throw new Error(`serve wrote no token in ${home}`);
    await new Promise((r) => setTimeout(r, 500));
    const idleBytes = rss(pid);
    for (let i = 0; i < warmUp; i++) await oneSession(port, token, i % 2 === 0, failures);
    await new Promise((r) => setTimeout(r, 500));
    const warmBytes = rss(pid);
    let closed = 0;
    let abandoned = 0;
    for (let i = 0; i < sessions; i++) {
      const close = i % 2 === 0;
      if (await oneSession(port, token, close, failures)) close ? closed++ : abandoned++;
    }
    await new Promise((r) => setTimeout(r, 500));
    const afterBytes = rss(pid);
    const answering = await oneSession(port, token, true, failures);
    return { idleBytes, warmBytes, afterBytes, sessions, closed, abandoned, failures: [...new Set(failures)], answering };
  } finally {
    serve.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const result = await serveChurn(Number(process.argv[2] ?? 1000));
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  console.log(`idle ${mb(result.idleBytes)}, after warm-up ${mb(result.warmBytes)}, after ${result.sessions} more (${result.closed} closed, ${result.abandoned} abandoned) ${mb(result.afterBytes)}: +${mb(result.afterBytes - result.warmBytes)}; answering: ${result.answering}; failures: ${result.failures.join(', ') || 'none'}`);
}
