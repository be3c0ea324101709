import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings, type Settings } from '../../lib/config/settings';
import { type RunningHttpServer, startHttpServer } from '../../lib/mcp/http';
import { parsePublicUrl } from '../../lib/mcp/public-url';
import { allTools } from '../../lib/mcp/tools';
import { RelayClient } from '../../lib/relay/client';
import { NativeHost } from '../../lib/relay/host';
import { silentLogger } from '../../lib/relay/logger';
import type { Envelope } from '../../lib/protocol/messages';
import { FakeExtension } from '../support/fake-extension';
import { cliCommand, useGivenHome } from '../../lib/relay/invocation';

/**
 * `comet-relay serve` on a real port, with a real host behind it (a fake extension on the host's
 * stdin/stdout): the HTTP door's answers, and sessions that end when abandoned or crowded out.
 */
const TOKEN = 'T'.repeat(43);
const PUBLIC_TOKEN = 'P'.repeat(43);
const PUBLIC_HOST = 'relay.example.com';

let home: string;
let extension: FakeExtension;
let host: NativeHost;
let server: RunningHttpServer | undefined;
let observer: RelayClient;

beforeEach(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-http-'));
  extension = new FakeExtension();
  host = new NativeHost({ home, input: extension.toHost, output: extension.fromHost, logger: silentLogger });
  extension.hello();
  await extension.next('welcome');
  observer = new RelayClient({ home, client: { name: 'observer' }, transport: 'stdio', hostWaitMs: 2000 });
});

afterEach(async () => {
  observer.close();
  await server?.close();
  server = undefined;
  await host.stop('test over');
  fs.rmSync(home, { recursive: true, force: true });
});

async function serve(settings: Partial<Settings> = {}, extra: Partial<Parameters<typeof startHttpServer>[0]> = {}): Promise<RunningHttpServer> {
  server = await startHttpServer({ home, settings: { ...readSettings({}), ...settings }, tools: allTools, token: TOKEN, port: 0, ...extra });
  return server;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request, so that Host, Origin and oversized bodies can be sent as an attacker would. */
function send(target: RunningHttpServer, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: options.path ?? '/mcp',
        method: options.method ?? 'POST',
        headers: {
          Host: `127.0.0.1:${target.port}`,
          Authorization: `Bearer ${TOKEN}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const initialize = (name: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
  });

/** initialize + initialized: the session attaches to the host under `name`. Returns its session id. */
async function openSession(target: RunningHttpServer, name: string): Promise<string> {
  const init = await send(target, { body: initialize(name) });
  expect(init.status).toBe(200);
  const id = String(init.headers['mcp-session-id']);
  const done = await send(target, { headers: { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(done.status).toBe(202);
  return id;
}

const attachedNames = async () => (await observer.hostStatus()).clients.map((c) => c.name).filter((n) => n !== 'observer').sort();

describe('serve: abandoned sessions end', () => {
  it('an initialize the SDK would refuse (Accept) ends no idle session at a full book (review 2026-12-05, http #4)', async () => {
    const target = await serve({ COMET_MAX_SESSIONS: 2 });
    const a = await openSession(target, 'agent-a');
    const b = await openSession(target, 'agent-b');
    for (let i = 0; i < 2; i++) {
      const refused = await send(target, { headers: { Accept: 'application/json' }, body: initialize('careless') });
      expect(refused.status).toBe(406);
      expect(refused.body).toMatch(/must accept both application\/json and text\/event-stream/);
    }
    const unsupported = await send(target, { headers: { 'Content-Type': 'text/plain' }, body: initialize('careless') });
    expect(unsupported.status).toBe(415);
    for (const id of [a, b]) {
      const alive = await send(target, { headers: { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
      expect(alive.status).toBe(200);
    }
  });

  it('a session running an MCP task is in a call between its polls: a newcomer at the cap is refused, the task runs on (review 2026-12-05, http #3)', async () => {
    const target = await serve({ COMET_MAX_SESSIONS: 1 });
    const runner = await openSession(target, 'task-runner');
    const headers = { 'Mcp-Session-Id': runner, 'Mcp-Protocol-Version': '2025-06-18' };
    const started = await send(target, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'call_perplexity_computer', arguments: { message: 'long task' }, task: { ttl: 3_600_000 } } }),
    });
    expect(started.body).toContain('"taskId"');
    await extension.next('request', (m) => m.kind === 'request' && m.method === 'threads.start');
    // Between the client's polls no request of the session is open.
    const newcomer = await send(target, { body: initialize('newcomer') });
    expect(newcomer.status).toBe(503);
    expect(newcomer.body).toMatch(/sessions of the loopback door are busy with calls/);
    expect(extension.received.filter((m) => m.kind === 'cancel')).toEqual([]);
    const poll = await send(target, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tasks/list' }) });
    expect(poll.status).toBe(200);
  });

  it("a task's result not fetched yet keeps its session: a newcomer at the cap is refused until its client has it (review 14c)", async () => {
    const target = await serve({ COMET_MAX_SESSIONS: 1 });
    const runner = await openSession(target, 'task-runner');
    const headers = { 'Mcp-Session-Id': runner, 'Mcp-Protocol-Version': '2025-06-18' };
    const call = (id: number, method: string, params: object) => send(target, { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
    const started = await call(5, 'tools/call', { name: 'call_perplexity_computer', arguments: { message: 'a task' }, task: { ttl: 3_600_000 } });
    const taskId = /"taskId":"([^"]+)"/.exec(started.body)?.[1] as string;
    const request = (await extension.next('request', (m) => m.kind === 'request' && m.method === 'threads.start')) as Extract<Envelope, { kind: 'request' }>;
    extension.send({ kind: 'error', id: request.id, error: { code: 'NO_PERPLEXITY_TAB', message: 'none in this test' } });
    await expect.poll(async () => (await call(6, 'tasks/get', { taskId })).body).toMatch(/"status":"failed"/);
    // Finished, its answer stored: the session waits for its client's tasks/result, as a running task does.
    const newcomer = await send(target, { body: initialize('newcomer') });
    expect(newcomer.status).toBe(503);
    const result = await call(7, 'tasks/result', { taskId });
    expect(result.status).toBe(200);
    expect(result.body).toContain('none in this test');
    // Fetched: the session is an idle one again, which a newcomer may take the place of.
    expect((await send(target, { body: initialize('newcomer') })).status).toBe(200);
  });

  it('a caller that hangs up mid tools/call: its browser call is cancelled at once, the session lives on (review 2026-12-05, http #1)', async () => {
    const target = await serve();
    const id = await openSession(target, 'hang-up');
    const req = http.request({
      host: '127.0.0.1',
      port: target.port,
      path: '/mcp',
      method: 'POST',
      headers: {
        Host: `127.0.0.1:${target.port}`,
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': id,
        'Mcp-Protocol-Version': '2025-06-18',
      },
    });
    req.on('error', () => {});
    req.on('response', (res) => res.resume());
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'comet_poll', arguments: {} } }));
    const forwarded = (await extension.next('request', (m) => m.kind === 'request' && m.method === 'page.poll')) as Extract<Envelope, { kind: 'request' }>;
    req.destroy(); // the client crashed, a tunnel dropped, the Agent API gave up
    const cancel = (await extension.next('cancel')) as Extract<Envelope, { kind: 'cancel' }>;
    expect(cancel.id).toBe(forwarded.id);
    expect(target.sessions()).toBe(1);
    // The session still answers its next call.
    const next = send(target, { headers: { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }) });
    expect((await next).status).toBe(200);
  });

  it('an idle session expires: it leaves the host (and so the panel) and its id is unknown afterwards', async () => {
    const target = await serve({ COMET_SESSION_IDLE_TIMEOUT: 300 });
    const id = await openSession(target, 'forgetful-agent');
    await expect.poll(attachedNames).toEqual(['forgetful-agent']);
    await expect.poll(() => target.sessions(), { timeout: 5000 }).toBe(0);
    await expect.poll(attachedNames).toEqual([]);
    const late = await send(target, { headers: { 'Mcp-Session-Id': id }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(late.status).toBe(404);
    expect(late.body).toMatch(/initialize a new session/);
  });

  it('a session in use does not expire, however long its call runs', async () => {
    const target = await serve({ COMET_SESSION_IDLE_TIMEOUT: 200 });
    const id = await openSession(target, 'busy-agent');
    // A GET stream held open counts as use (a live client keeps one).
    const stream = http.get({
      host: '127.0.0.1',
      port: target.port,
      path: '/mcp',
      headers: { Host: `127.0.0.1:${target.port}`, Authorization: `Bearer ${TOKEN}`, Accept: 'text/event-stream', 'Mcp-Session-Id': id },
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(target.sessions()).toBe(1);
    stream.destroy();
    await expect.poll(() => target.sessions(), { timeout: 5000 }).toBe(0);
  });

  it('at the cap, the longest idle session makes room for a new one', async () => {
    const target = await serve({ COMET_MAX_SESSIONS: 2 });
    const first = await openSession(target, 'agent-1');
    await openSession(target, 'agent-2');
    await openSession(target, 'agent-3');
    expect(target.sessions()).toBe(2);
    await expect.poll(attachedNames).toEqual(['agent-2', 'agent-3']);
    const evicted = await send(target, { headers: { 'Mcp-Session-Id': first }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(evicted.status).toBe(404);
  });

  it('abandoned sessions do not grow memory', async () => {
    const target = await serve({ COMET_SESSION_IDLE_TIMEOUT: 400 });
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const round = async (count: number) => {
      for (let i = 0; i < count; i++) await openSession(target, `abandoned-${i}`);
      await expect.poll(() => target.sessions(), { timeout: 10_000 }).toBe(0);
      await expect.poll(attachedNames, { timeout: 10_000 }).toEqual([]);
      await new Promise((r) => setTimeout(r, 50));
      gc();
      return process.memoryUsage().heapUsed;
    };
    const warm = await round(20);
    const after = await round(300);
    // Kept alive, 200 of them measured 14 MB; ended, the heap stays within a few MB of where it was.
    expect(after - warm).toBeLessThan(10 * 1024 * 1024);
  }, 60_000);
});

describe('serve: the HTTP door', () => {
  it('a request target that is no path: the Host is checked first, then 400 saying where the endpoint is (review 2026-12-05, http #5)', async () => {
    const target = await serve();
    const raw = (host: string) =>
      new Promise<Answer>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: target.port, path: '//', method: 'GET', headers: { Host: host } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    expect((await raw('evil.example')).status).toBe(403);
    const bad = await raw(`127.0.0.1:${target.port}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/is not a path: the MCP endpoint is \/mcp/);
  });

  it('a caller with no token cannot make the server read an endless body: an upload form past its limit is a 413, a refused POST closes the connection (review 10, door M1)', async () => {
    const target = await serve({ COMET_ATTACHMENT_MAX_BYTES: 100_000 });
    // One endless field, chunked, no key, no token, no file part: busboy would read it all to say "no file part".
    const streamed = await new Promise<{ status: string; written: number }>((resolve) => {
      const socket = net.connect(target.port, '127.0.0.1');
      let written = 0;
      let answered = false;
      const chunked = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
      const mb = chunked(Buffer.alloc(1 << 20, 0x61));
      socket.on('data', (d) => {
        if (answered) return;
        answered = true;
        resolve({ status: d.toString().split(' ')[1] ?? '', written });
        socket.destroy();
      });
      socket.on('error', () => !answered && resolve({ status: 'cut', written }));
      socket.on('close', () => !answered && resolve({ status: 'cut', written }));
      socket.on('connect', () => {
        socket.write(`POST /attachments/upload HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n`);
        socket.write(chunked(Buffer.from('--B\r\nContent-Disposition: form-data; name="x"\r\n\r\n')));
        const pump = () => {
          while (!answered && written < 64 << 20) {
            written += 1 << 20;
            if (!socket.write(mb)) return void socket.once('drain', pump);
          }
        };
        pump();
      });
    });
    expect(streamed.status).toBe('413');
    expect(streamed.written).toBeLessThan(16 << 20);
    // A declared size past the limit is refused before the body.
    const declared = await rawHead(target.port, `POST /attachments/upload HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 1000000000\r\n\r\n`);
    expect(declared).toMatch(/^HTTP\/1\.1 413 [\s\S]*Connection: close/i);
    // A POST refused for its token, its body never sent: answered at once, the connection closed, nothing waited for.
    const refused = await rawHead(target.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 401 [\s\S]*Connection: close/i);
  });

  it('401 without the token or with a wrong one, naming how to get it', async () => {
    const target = await serve();
    const missing = await send(target, { headers: { Authorization: '' }, body: initialize('x') });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/Bearer/);
    expect(missing.body).toContain(cliCommand('token'));
    expect((await send(target, { headers: { Authorization: `Bearer ${'W'.repeat(43)}` }, body: initialize('x') })).status).toBe(401);
  });

  it('403 for a foreign Host or Origin (DNS rebinding), before the token is even looked at', async () => {
    const target = await serve();
    expect((await send(target, { headers: { Host: `evil.example:${target.port}` }, body: initialize('x') })).status).toBe(403);
    expect((await send(target, { headers: { Origin: 'https://evil.example' }, body: initialize('x') })).status).toBe(403);
    expect((await send(target, { headers: { Origin: `http://localhost:${target.port}` }, body: initialize('x') })).status).toBe(200);
  });

  it("the foreign Host's 403, which a rebinding page can read, never names the public door's address (review 10, door L4)", async () => {
    const target = await serve({}, { publicUrl: parsePublicUrl(`https://${PUBLIC_HOST}`), publicToken: PUBLIC_TOKEN });
    const refused = await send(target, { headers: { Host: `evil.example:${target.port}` }, body: initialize('x') });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`connect to 127.0.0.1:${target.port} or localhost:${target.port}, or the --public-url address`);
    expect(refused.body).not.toContain(PUBLIC_HOST);
  });

  it('the public door takes only the public token, and the loopback door refuses it', async () => {
    const target = await serve({}, { publicUrl: parsePublicUrl(`https://${PUBLIC_HOST}`), publicToken: PUBLIC_TOKEN });
    const viaPublic = (authorization: string) => send(target, { headers: { Host: PUBLIC_HOST, Authorization: authorization }, body: initialize('cloud') });
    const localThroughPublic = await viaPublic(`Bearer ${TOKEN}`);
    expect(localThroughPublic.status).toBe(401);
    expect(localThroughPublic.body).toContain("it takes only the public token (comet-relay's `token --public` prints it, run where this server runs and with the --home or COMET_RELAY_HOME this server was given, if any), never the HTTP token");
    // Nothing of this machine's paths to a caller from the internet (day-5 review F8).
    useGivenHome('/home/someone/.secret-home');
    try {
      const again = await viaPublic('Bearer wrong');
      expect(again.status).toBe(401);
      expect(again.body).not.toContain('/home/someone');
      expect(again.body).not.toContain(cliCommand('').trim());
    } finally {
      useGivenHome(undefined);
    }
    expect((await viaPublic(PUBLIC_TOKEN)).status).toBe(200); // raw, as the Agent API sends it

    const publicOnLoopback = await send(target, { headers: { Authorization: `Bearer ${PUBLIC_TOKEN}` }, body: initialize('local') });
    expect(publicOnLoopback.status).toBe(401);
    expect(publicOnLoopback.body).toContain('The public token works only through the public door');
    expect((await send(target, { body: initialize('local') })).status).toBe(200);
  });

  it('a public URL without its own token, or with the local one, does not start', async () => {
    const publicUrl = parsePublicUrl(`https://${PUBLIC_HOST}`);
    await expect(serve({}, { publicUrl })).rejects.toThrow(`run \`${cliCommand('token --public')}\` once`);
    await expect(serve({}, { publicUrl, publicToken: TOKEN })).rejects.toThrow('must differ from the local one');
  });

  it('413 for a body over the limit', async () => {
    const target = await serve();
    const huge = Buffer.alloc(5 * 1024 * 1024, 0x20);
    const answer = await send(target, { body: huge });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatch(/exceeds/);
  });

  it('404 for an unknown session, 400 for a first request that is not initialize', async () => {
    const target = await serve();
    const unknown = await send(target, { headers: { 'Mcp-Session-Id': 'no-such-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(unknown.status).toBe(404);
    expect((await send(target, { method: 'GET', headers: { 'Mcp-Session-Id': 'no-such-session' } })).status).toBe(404);
    expect((await send(target, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })).status).toBe(400);
  });
});

describe('serve: every door its own (review 2026-12-02 #9, #25, #6)', () => {
  it("each door's uploads are its own: a local client's envelope stays on this machine, and the other door neither reads nor attaches the file (review 2026-12-05, http #2)", async () => {
    const target = await serve({}, { publicUrl: parsePublicUrl(`https://${PUBLIC_HOST}`), publicToken: PUBLIC_TOKEN });
    // The browser lets each file be stored (its policy has no Read-only on).
    extension.answerRequests((request) => (request.method === 'attachments.admit' ? {} : undefined));
    const publicHeaders = { Host: PUBLIC_HOST, Authorization: `Bearer ${PUBLIC_TOKEN}` };
    const envelopeOf = async (headers: Record<string, string>, session: string, filename: string) => {
      const made = await send(target, {
        headers: { ...headers, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_attachment_upload', arguments: { filename, mime_type: 'application/pdf', size_bytes: 11 } } }),
      });
      return JSON.parse(JSON.parse(made.body.split('data: ')[1] as string).result.content[0].text) as { upload_url: string; attachment_url: string; upload_fields: Record<string, string> };
    };
    const upload = async (envelope: { upload_fields: Record<string, string> }, text: string) => {
      const boundary = 'XyZ';
      const fields = Object.entries(envelope.upload_fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
      const form = `${fields.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.pdf"\r\nContent-Type: application/pdf\r\n\r\n${text}\r\n--${boundary}--\r\n`;
      expect((await send(target, { path: '/attachments/upload', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, Authorization: '' }, body: form })).status).toBe(204);
    };
    const local = await openSession(target, 'claude-code-on-this-machine');
    const mine = await envelopeOf({}, local, 'tax-return.pdf');
    expect(mine.upload_url).toBe(`http://127.0.0.1:${target.port}/attachments/upload`);
    await upload(mine, 'SECRET DATA');
    const path = new URL(mine.attachment_url).pathname;
    expect((await send(target, { method: 'GET', path })).body).toBe('SECRET DATA');
    expect((await send(target, { method: 'GET', path, headers: publicHeaders })).status).toBe(404);

    const init = await send(target, { headers: publicHeaders, body: initialize('agent-api') });
    const cloud = String(init.headers['mcp-session-id']);
    await send(target, { headers: { ...publicHeaders, 'Mcp-Session-Id': cloud, 'Mcp-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const theirs = await envelopeOf(publicHeaders, cloud, 'brief.pdf');
    expect(theirs.upload_url).toBe(`https://${PUBLIC_HOST}/attachments/upload`);
    await upload(theirs, 'CLOUD DATA');
    expect((await send(target, { method: 'GET', path: new URL(theirs.attachment_url).pathname, headers: publicHeaders })).body).toBe('CLOUD DATA');
    expect((await send(target, { method: 'GET', path: new URL(theirs.attachment_url).pathname })).status).toBe(404);
  });

  it('create_attachment_upload obeys --read-only like every acting operation (review 2026-12-05, http #2)', async () => {
    const target = await serve({}, { readOnly: true, tools: allTools });
    const id = await openSession(target, 'reader');
    const made = await send(target, {
      headers: { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_attachment_upload', arguments: { filename: 'a.pdf', mime_type: 'application/pdf', size_bytes: 1 } } }),
    });
    // Offered here (the tool list given whole), so only the gateway's check stands between it and the store.
    expect(made.body).toContain('[PERMISSION_DENIED] comet-relay was started with --read-only, so create_attachment_upload may not run attachments.store.');
  });

  const publicDoor = { publicUrl: parsePublicUrl(`https://${PUBLIC_HOST}`), publicToken: PUBLIC_TOKEN };
  const viaPublic = { Host: PUBLIC_HOST, Authorization: PUBLIC_TOKEN };

  /** initialize + initialized through the public door. */
  async function openPublicSession(target: RunningHttpServer, name: string): Promise<string> {
    const init = await send(target, { headers: viaPublic, body: initialize(name) });
    expect(init.status).toBe(200);
    const id = String(init.headers['mcp-session-id']);
    const done = await send(target, {
      headers: { ...viaPublic, 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(done.status).toBe(202);
    return id;
  }

  const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

  it('public sessions never end a local one: each door has its own book and cap', async () => {
    const target = await serve({ COMET_MAX_SESSIONS: 3, COMET_MAX_PUBLIC_SESSIONS: 2 }, publicDoor);
    const local = await openSession(target, 'local-agent');
    for (let i = 0; i < 3; i++) await openPublicSession(target, `cloud-${i}`);
    expect(target.sessions('public')).toBe(2);
    expect(target.sessions('loopback')).toBe(1);
    const stillThere = await send(target, { headers: { 'Mcp-Session-Id': local }, body: toolsList });
    expect(stillThere.status).toBe(200);
  });

  it('a public caller holding every public slot busy leaves the local door open', async () => {
    const target = await serve({ COMET_MAX_PUBLIC_SESSIONS: 1 }, publicDoor);
    const busy = await openPublicSession(target, 'cloud-busy');
    // A call in flight: the fake extension never answers the request the host forwards to it.
    const call = send(target, {
      headers: { ...viaPublic, 'Mcp-Session-Id': busy, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'comet_poll', arguments: {} } }),
    }).catch(() => undefined);
    await extension.next('request');
    const refused = await send(target, { headers: viaPublic, body: initialize('cloud-2') });
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('COMET_MAX_PUBLIC_SESSIONS');
    expect((await send(target, { body: initialize('local-agent') })).status).toBe(200);
    await server?.close();
    server = undefined;
    await call;
  });

  it('a session that only listens (an event stream, no call) is ended for a new caller: a stream a tunnel keeps open for a gone caller never fills the door', async () => {
    const target = await serve({ COMET_MAX_PUBLIC_SESSIONS: 1 }, publicDoor);
    const listening = await openPublicSession(target, 'cloud-gone');
    const stream = http.get({ host: '127.0.0.1', port: target.port, path: '/mcp', headers: { ...viaPublic, Accept: 'text/event-stream', 'Mcp-Session-Id': listening } });
    stream.on('error', () => {});
    await new Promise((r) => setTimeout(r, 200));
    const fresh = await send(target, { headers: viaPublic, body: initialize('cloud-new') });
    expect(fresh.status).toBe(200);
    expect(target.sessions('public')).toBe(1);
    expect((await send(target, { headers: { ...viaPublic, 'Mcp-Session-Id': listening }, body: toolsList })).status).toBe(404);
    stream.destroy();
  });

  it('a session is found only through the door that opened it', async () => {
    const target = await serve({}, publicDoor);
    const local = await openSession(target, 'local-agent');
    const borrowed = await send(target, { headers: { ...viaPublic, 'Mcp-Session-Id': local }, body: toolsList });
    expect(borrowed.status).toBe(404);
    const cloud = await openPublicSession(target, 'cloud');
    expect((await send(target, { headers: { 'Mcp-Session-Id': cloud }, body: toolsList })).status).toBe(404);
  });

  it('a public-door caller is shown by its door, whatever its client calls itself, and its calls carry the door', async () => {
    const target = await serve({}, publicDoor);
    const cloud = await openPublicSession(target, 'Claude Code');
    await openSession(target, 'local-agent');
    await expect.poll(async () => (await observer.hostStatus()).clients.filter((c) => c.name !== 'observer').map((c) => [c.name, c.door]).sort()).toEqual([
      ['Agent API (public door)', 'public'],
      ['local-agent', 'loopback'],
    ]);
    const call = send(target, {
      headers: { ...viaPublic, 'Mcp-Session-Id': cloud, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'comet_poll', arguments: {} } }),
    });
    const request = (await extension.next('request', (m) => m.kind === 'request' && m.method === 'page.poll')) as Extract<Envelope, { kind: 'request' }>;
    expect(request.origin).toMatchObject({ door: 'public', clientName: 'Agent API (public door)', tool: 'comet_poll' });
    extension.send({ kind: 'error', id: request.id, error: { code: 'NO_PERPLEXITY_TAB', message: 'none in this test' } });
    expect((await call).status).toBe(200);
  });

  it('the public door does not offer the tab list; the loopback door does', async () => {
    const target = await serve({}, publicDoor);
    const cloud = await openPublicSession(target, 'cloud');
    const local = await openSession(target, 'local-agent');
    const publicList = await send(target, { headers: { ...viaPublic, 'Mcp-Session-Id': cloud, 'Mcp-Protocol-Version': '2025-06-18' }, body: toolsList });
    const localList = await send(target, { headers: { 'Mcp-Session-Id': local, 'Mcp-Protocol-Version': '2025-06-18' }, body: toolsList });
    expect(publicList.body).toContain('"comet_poll"');
    expect(publicList.body).toContain('"comet_screenshot"');
    expect(publicList.body).not.toContain('"comet_list_tabs"');
    expect(publicList.body).not.toContain('"comet_switch_tab"');
    expect(localList.body).toContain('"comet_list_tabs"');
  });
});

/** Sends `head` (and no body) on a raw socket; resolves with all the server sent once it closed the connection. */
function rawHead(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => {});
    socket.on('connect', () => socket.write(head));
  });
}
