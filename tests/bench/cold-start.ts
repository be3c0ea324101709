import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/**
 * (l) Cold start as a client sees it: spawn `comet-relay mcp`, send `initialize`, then (after the
 * `initialized` notification) `tools/list`, and stop the clock at the tools/list reply. Plain JSON
 * lines on stdio, so the client's own parsing costs nothing. Beside it, in the same run and
 * alternating with it, a bare `node -e 0` from spawn to exit: the floor any Node program pays here.
 */
export interface ColdStart {
  mcp: number[];
  bare: number[];
  /** How many tools the first tools/list listed (a sanity check). */
  tools: number;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-cold-start', version: '1.0.0' } },
};

function bareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

function mcpToFirstList(cli: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; tools: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'mcp'], { stdio: ['pipe', 'pipe', 'ignore'], env });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('comet-relay mcp did not answer tools/list within 10 s'));
    }, 10_000);
    let buffer = '';
    child.once('error', reject);
    child.stdout.on('data', (data: Buffer) => {
      buffer += data.toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 1) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
        } else if (message.id === 2) {
          const ms = performance.now() - started;
          clearTimeout(timer);
          child.stdin.end(); // stdin closing ends the session: the process exits by itself
          child.once('exit', () => resolve({ ms, tools: message.result?.tools?.length ?? 0 }));
        }
      }
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

export async function measureColdStart(cli: string, env: NodeJS.ProcessEnv, rounds = 15): Promise<ColdStart> {
  const result: ColdStart = { mcp: [], bare: [], tools: 0 };
  // One of each first, unmeasured: the file cache then holds node and our files for both.
  await bareNode();
  await mcpToFirstList(cli, env);
  for (let i = 0; i < rounds; i++) {
    result.bare.push(await bareNode());
    const { ms, tools } = await mcpToFirstList(cli, env);
    result.mcp.push(ms);
    result.tools = tools;
  }
  return result;
}
