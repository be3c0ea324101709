import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Attachments, attachmentStore, startAttachmentListener } from '../../lib/mcp/attachments/http';
import { AttachmentStore, filenameProblem } from '../../lib/mcp/attachments/store';

/** Upload envelopes on a real loopback listener: multipart POSTs, one-time tokens, limits, expiry, cleanup. */

let home: string;
let now: number;
let store: AttachmentStore;
let listener: Awaited<ReturnType<typeof startAttachmentListener>>;
let attachments: Attachments;

beforeEach(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-attach-'));
  now = Date.parse('2026-12-01T10:00:00Z');
  store = new AttachmentStore({ home, maxBytes: 1000, ttlMs: 60_000, now: () => now });
  listener = await startAttachmentListener(store);
  attachments = new Attachments({ store, base: async () => listener.base });
});
afterEach(async () => {
  await listener.close();
  fs.rmSync(home, { recursive: true, force: true });
});

function form(fields: Record<string, string>, file?: { name?: string; bytes: Uint8Array<ArrayBuffer> | string; filename?: string }): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  if (file) body.append(file.name ?? 'file', new Blob([file.bytes]), file.filename ?? 'upload.bin');
  return body;
}

async function upload(url: string, body: FormData | string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, text: await response.text() };
}

describe('create_attachment_upload envelopes', () => {
  it('a multipart POST with the envelope fields stores the file; attachment_urls then reads it for the page', async () => {
    const envelope = await attachments.envelope({ filename: 'report v2.pdf', mimeType: 'application/pdf', sizeBytes: 11 });
    expect(envelope.upload_url).toBe(`${listener.base}/attachments/upload`);
    expect(envelope.attachment_url).toMatch(new RegExp(`^${listener.base}/attachments/[0-9a-f-]{36}/report%20v2\\.pdf$`));
    expect(Object.keys(envelope.upload_fields)).toEqual(['key', 'token']);
    expect(envelope.max_bytes).toBe(11);

    const stored = await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'hello world' }));
    expect(stored.status).toBe(204);
    expect(attachments.payloads([envelope.attachment_url])).toEqual([
      { filename: 'report v2.pdf', mimeType: 'application/pdf', data: Buffer.from('hello world').toString('base64') },
    ]);
    const folder = path.join(home, 'attachments', envelope.upload_fields.key as string);
    expect(fs.readdirSync(folder).sort()).toEqual(['claimed', 'data', 'meta.json']);
    expect(fs.statSync(path.join(folder, 'data')).mode & 0o777).toBe(0o600);
  });

  it("a disk that fails as the file is kept (full, or not ours to write) is said as comet-relay's, never as the client's form (review 14c)", async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const rename = fs.renameSync;
    const spy = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(from).endsWith('data.partial')) throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      return rename(from, to);
    });
    const stored = await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }));
    spy.mockRestore();
    expect(stored).toEqual({
      status: 500,
      text: 'comet-relay could not store the file (ENOSPC: no space left on device, rename): check the free space and permissions of COMET_RELAY_HOME/attachments, then request a new envelope.\n',
    });
  });

  it('refuses a wrong token, a reused token, a file before the fields, an over-size file, and a non-multipart body', async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 5 });
    const url = envelope.upload_url;
    expect(await upload(url, form({ ...envelope.upload_fields, token: 'guess' }, { bytes: 'abc' }))).toMatchObject({ status: 403, text: expect.stringMatching(/wrong token/) });
    expect(await upload(url, 'key=x', { 'Content-Type': 'application/x-www-form-urlencoded' })).toMatchObject({ status: 415 });

    const fileFirst = new FormData();
    fileFirst.append('file', new Blob(['abc']), 'a.txt');
    fileFirst.append('key', envelope.upload_fields.key as string);
    expect(await upload(url, fileFirst)).toMatchObject({ status: 400, text: expect.stringMatching(/before the file part/) });

    expect(await upload(url, form(envelope.upload_fields, { bytes: 'abcdef' }))).toMatchObject({ status: 413, text: expect.stringMatching(/larger than 5 bytes/) });
    // The token was used by the refused upload: it never works twice.
    expect(await upload(url, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 409, text: expect.stringMatching(/already used/) });
    expect(fs.existsSync(path.join(home, 'attachments', envelope.upload_fields.key as string, 'data.partial'))).toBe(false);

    const fresh = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await upload(url, form(fresh.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
    expect(await upload(url, form(fresh.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 409 });
  });

  it('refuses more than the configured limit whatever the envelope declared, and an envelope over the limit', async () => {
    await expect(attachments.envelope({ filename: 'big.bin', mimeType: 'application/octet-stream', sizeBytes: 1001 })).rejects.toThrow(/size_bytes 1001 is over the limit of 1000 bytes/);
    const envelope = await attachments.envelope({ filename: 'big.bin', mimeType: 'application/octet-stream', sizeBytes: 1000 });
    const result = await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: new Uint8Array(4000) }));
    expect(result.status).toBe(413);
  });

  it.each([
    ['../../etc/passwd', /path separator/],
    ['a\\b.txt', /path separator/],
    ['..', /not "\." or "\.\."/],
    ['x\u0000.pdf', /control characters/],
    ['', /1 to 255/],
    ['con:1.txt', /must not contain any of/],
    ['\ud800.pdf', /well-formed Unicode/],
    ['a\udfff', /well-formed Unicode/],
  ])('refuses the filename %j, and leaves nothing in the store', async (filename, message) => {
    expect(filenameProblem(filename)).toMatch(message);
    await expect(attachments.envelope({ filename, mimeType: 'text/plain', sizeBytes: 1 })).rejects.toThrow(/^filename /);
    // A refused name stores no envelope: leftovers would count against the cap for the ttl (review 10, crash F4).
    expect(fs.existsSync(path.join(home, 'attachments')) ? fs.readdirSync(path.join(home, 'attachments')) : []).toEqual([]);
  });

  it('takes a name of paired surrogates (an emoji) whole', async () => {
    const envelope = await attachments.envelope({ filename: 'chart 📈.png', mimeType: 'image/png', sizeBytes: 1 });
    expect(envelope.attachment_url).toMatch(/\/chart%20%F0%9F%93%88\.png$/);
  });

  it('only attachment URLs of this relay are read: other hosts, paths, query strings, wrong names, missing uploads', async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const id = envelope.upload_fields.key;
    const bad = [
      `https://evil.example/attachments/${id}/a.txt`,
      `http://127.0.0.1.evil.example/attachments/${id}/a.txt`,
      `http://127.0.0.1:9/x/attachments/${id}/a.txt`,
      `${envelope.attachment_url}?x=1`,
      `http://user:pw@127.0.0.1:9/attachments/${id}/a.txt`,
      'file:///etc/passwd',
      'not a url',
    ];
    for (const url of bad) expect(() => attachments.payloads([url]), url).toThrow(/is not (an attachment_url this comet-relay issued|a URL)/);
    expect(() => attachments.payloads([envelope.attachment_url.replace('a.txt', 'b.txt')])).toThrow(/names no upload here/);
    expect(() => attachments.payloads([envelope.attachment_url])).toThrow(/attachment_urls\[0\] .* was never uploaded/);
  });

  it('expires envelopes and files, and cleans up only folders it made, only its own files', async () => {
    const unused = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const used = await attachments.envelope({ filename: 'b.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await upload(used.upload_url, form(used.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
    const root = path.join(home, 'attachments');
    const foreign = path.join(root, '11111111-2222-4333-8444-555555555555');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'meta.json'), '{"kind":"someone else"}');
    const notOurs = path.join(root, 'notes.txt');
    fs.writeFileSync(notOurs, 'keep me');
    const extra = path.join(root, used.upload_fields.key as string, 'user-file');
    fs.writeFileSync(extra, 'keep me too');

    now += 61_000;
    expect(await upload(unused.upload_url, form(unused.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 410 });
    expect(() => attachments.payloads([used.attachment_url])).toThrow(/names no upload here|expired/);
    store.sweep();
    expect(fs.existsSync(path.join(root, unused.upload_fields.key as string))).toBe(false);
    expect(fs.existsSync(foreign)).toBe(true);
    expect(fs.readFileSync(notOurs, 'utf8')).toBe('keep me');
    expect(fs.readFileSync(extra, 'utf8')).toBe('keep me too');
    expect(fs.readdirSync(path.join(root, used.upload_fields.key as string))).toEqual(['user-file']);
  });

  it('behind --public-url envelopes name the public address, and only it (or loopback) is accepted back', async () => {
    const published = new Attachments({ store, publicBase: 'https://relay.example.com', base: async () => 'https://relay.example.com' });
    const envelope = await published.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(envelope.upload_url).toBe('https://relay.example.com/attachments/upload');
    expect(await upload(`${listener.base}/attachments/upload`, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
    expect(published.payloads([envelope.attachment_url])[0]?.data).toBe(Buffer.from('abc').toString('base64'));
    const id = envelope.upload_fields.key;
    expect(published.payloads([`${listener.base}/attachments/${id}/a.txt`])).toHaveLength(1);
    expect(() => published.payloads([`https://relay.example.com.evil.example/attachments/${id}/a.txt`])).toThrow(/not an attachment_url this comet-relay issued/);
    expect(() => published.payloads([`http://relay.example.com/attachments/${id}/a.txt`])).toThrow(/not an attachment_url this comet-relay issued/);
  });

  it("one door's upload does not attach at the other (review 2026-12-05, http #2)", async () => {
    const publicDoor = new Attachments({ store, publicBase: 'https://relay.example.com', base: async () => 'https://relay.example.com', door: 'public' });
    const envelope = await publicDoor.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await upload(`${listener.base}/attachments/upload`, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
    expect(publicDoor.payloads([envelope.attachment_url])).toHaveLength(1);
    const loopbackDoor = new Attachments({ store, publicBase: 'https://relay.example.com', base: async () => listener.base });
    expect(() => loopbackDoor.payloads([envelope.attachment_url])).toThrow(/names no upload here/);
    const local = await loopbackDoor.envelope({ filename: 'b.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await upload(local.upload_url, form(local.upload_fields, { bytes: 'xyz' }))).toMatchObject({ status: 204 });
    expect(() => publicDoor.payloads([local.attachment_url])).toThrow(/names no upload here/);
  });

  it('a refusal decided before the body is all sent is answered after it: the client hears 409, not EPIPE', async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
    // The same token again, sent the way fetch sends a form: in pieces. The server refuses at the file
    // part's first byte; the rest of the body is still on its way.
    const boundary = 'comet-relay-test';
    const fields = Object.entries(envelope.upload_fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    const head = `${fields.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\na`;
    const rest = ['b', `c\r\n--${boundary}--\r\n`];
    let claimed!: () => void;
    const claim = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const realClaim = store.claim.bind(store);
    store.claim = (key, token) => {
      claimed();
      return realClaim(key, token);
    };
    const url = new URL(envelope.upload_url);
    const socket = net.connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true });
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const closed = new Promise<string | undefined>((resolve) => {
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      socket.on('close', () => resolve(undefined));
    });
    const contentLength = Buffer.byteLength(head + rest.join(''));
    socket.write(`POST /attachments/upload HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${contentLength}\r\n\r\n${head}`);
    await claim;
    // Room for an early answer (the bug) to arrive before the rest of the body goes out.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answeredEarly = answer.length > 0;
    for (const piece of rest) {
      socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.end();
    expect(await closed).toBeUndefined();
    expect(answeredEarly).toBe(false);
    expect(answer).toMatch(/^HTTP\/1\.1 409 [\s\S]*already used/);
  });

  it('the listener answers only its own Host and only /attachments/', async () => {
    const port = new URL(listener.base).port;
    const http = await import('node:http');
    const status = (pathname: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: pathname, headers: { Host: host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await status('/attachments/upload', `evil.example:${port}`)).toBe(403);
    expect(await status('/mcp', `127.0.0.1:${port}`)).toBe(404);
    expect(await status('/attachments/upload', `127.0.0.1:${port}`)).toBe(405);
  });
});

describe('attachments beside /mcp in comet-relay serve', () => {
  it('an envelope from the MCP endpoint is uploaded to the same server without the bearer token; other hosts are refused', async () => {
    const { startHttpServer } = await import('../../lib/mcp/http');
    const { readSettings } = await import('../../lib/config/settings');
    const { allTools } = await import('../../lib/mcp/tools');
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { NativeHost } = await import('../../lib/relay/host');
    const { silentLogger } = await import('../../lib/relay/logger');
    const { FakeExtension } = await import('../support/fake-extension');
    // A browser whose policy lets files be stored: create_attachment_upload asks it first (review 10, door I1).
    const extension = new FakeExtension();
    const host = new NativeHost({ home, input: extension.toHost, output: extension.fromHost, logger: silentLogger });
    extension.hello();
    await extension.next('welcome');
    const asked: unknown[] = [];
    extension.answerRequests((request) => {
      asked.push([request.method, request.params]);
      return {};
    });
    const token = 't'.repeat(43);
    const serve = await startHttpServer({ home, settings: readSettings({}), tools: allTools, token, port: 0 });
    const client = new Client({ name: 'unit-http', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      const raw = await client.callTool({ name: 'create_attachment_upload', arguments: { filename: 'n.md', mime_type: 'text/markdown', size_bytes: 3 } });
      const envelope = raw.structuredContent as { upload_url: string; attachment_url: string; upload_fields: Record<string, string> };
      expect(envelope.upload_url).toBe(`http://127.0.0.1:${serve.port}/attachments/upload`);
      expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
      expect(fs.readFileSync(path.join(home, 'attachments', envelope.upload_fields.key as string, 'data'), 'utf8')).toBe('abc');
      const evil = await fetch(envelope.attachment_url, { headers: { Origin: 'https://evil.example' } });
      expect(evil.status).toBe(403);
      expect(asked).toEqual([['attachments.admit', { filename: 'n.md', sizeBytes: 3 }]]);
    } finally {
      await client.close();
      await serve.close();
      await host.stop('test over');
    }
  });
});

/**
 * Starts a multipart upload by hand and stops after the file's first bytes, so a test can act
 * while the file is still arriving. `finish()` sends the rest and resolves with the raw answer.
 */
async function partialUpload(envelope: { upload_url: string; upload_fields: Record<string, string> }, first: string, rest: string) {
  const boundary = 'comet-relay-slow';
  const fields = Object.entries(envelope.upload_fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const head = `${fields.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${first}`;
  const tail = `${rest}\r\n--${boundary}--\r\n`;
  const url = new URL(envelope.upload_url);
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString();
  });
  const closed = new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  const length = Buffer.byteLength(head + tail);
  socket.write(`POST /attachments/upload HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${head}`);
  const partial = path.join(home, 'attachments', envelope.upload_fields.key as string, 'data.partial');
  // The file is arriving once its first bytes are on disk.
  for (let i = 0; i < 200 && !(fs.existsSync(partial) && fs.statSync(partial).size >= first.length); i++) await new Promise((r) => setTimeout(r, 10));
  return {
    async finish() {
      socket.write(tail);
      await closed;
      return answer;
    },
  };
}

describe('uploads in flight, downloads that fail, and cleanup', () => {
  it('a sweep never removes an upload still arriving when its envelope expires: the file is stored and readable', async () => {
    const envelope = await attachments.envelope({ filename: 'slow.bin', mimeType: 'application/octet-stream', sizeBytes: 600 });
    const slow = await partialUpload(envelope, 'a'.repeat(300), 'b'.repeat(300));
    now += 61_000; // past expires_at while the bytes keep coming
    store.sweep();
    expect(fs.existsSync(path.join(home, 'attachments', envelope.upload_fields.key as string))).toBe(true);
    expect(await slow.finish()).toMatch(/^HTTP\/1\.1 204 /);
    expect(attachments.payloads([envelope.attachment_url])[0]?.data).toBe(Buffer.from('a'.repeat(300) + 'b'.repeat(300)).toString('base64'));
  });

  it('an upload whose folder vanished while it arrived (a purge, a tmp cleaner) is refused with 410; the process lives on', async () => {
    const envelope = await attachments.envelope({ filename: 'gone.bin', mimeType: 'application/octet-stream', sizeBytes: 600 });
    const slow = await partialUpload(envelope, 'a'.repeat(300), 'b'.repeat(300));
    fs.rmSync(path.join(home, 'attachments', envelope.upload_fields.key as string), { recursive: true, force: true });
    expect(await slow.finish()).toMatch(/^HTTP\/1\.1 410 [\s\S]*removed while the file was arriving[\s\S]*create_attachment_upload/);
    // Still answering.
    expect((await fetch(`${listener.base}/attachments/upload`)).status).toBe(405);
  });

  it('a request target that is no path (`//[`) is a 400, never a throw that ends the process (review 10, crash F1)', async () => {
    const url = new URL(listener.base);
    for (const target of ['//[', '//']) {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect({ host: url.hostname, port: Number(url.port) });
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        socket.on('end', () => resolve(text));
        socket.on('error', () => resolve(text));
        socket.write(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 (400|404) /);
    }
    expect((await fetch(`${listener.base}/attachments/upload`)).status).toBe(405);
  });

  it('a whole request whose form ends inside the file part is refused with 400; the process lives on (threads review H1)', async () => {
    const envelope = await attachments.envelope({ filename: 'cut.bin', mimeType: 'application/octet-stream', sizeBytes: 100 });
    const boundary = 'cut';
    const fields = Object.entries(envelope.upload_fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    // A proxy or a client that cut the form: the Content-Length is right, the closing boundary never comes.
    const body = `${fields.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\nhalf a file`;
    const url = new URL(envelope.upload_url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port) });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
      socket.write(
        `POST /attachments/upload HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*(Unexpected end|ended before the file was complete)[\s\S]*create_attachment_upload/);
    // The half file goes once its stream is closed, which may be just after the answer.
    const partial = path.join(home, 'attachments', envelope.upload_fields.key as string, 'data.partial');
    for (let i = 0; i < 100 && fs.existsSync(partial); i++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(partial)).toBe(false);
    expect((await fetch(`${listener.base}/attachments/upload`)).status).toBe(405);
  });

  it("the mcp listener takes uploads only: no download, whoever has the URL (review 10, door L1)", async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 5 });
    expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'hello' }))).toMatchObject({ status: 204 });
    for (const method of ['GET', 'HEAD']) {
      const refused = await fetch(envelope.attachment_url, { method });
      expect(refused.status).toBe(404);
      if (method === 'GET') expect(await refused.text()).toMatch(/only takes uploads, at \/attachments\/upload; pass an attachment_url to a tool/);
    }
    expect((await fetch(`${listener.base}/attachments/upload`)).status).toBe(405);
    expect(attachments.payloads([envelope.attachment_url])[0]?.data).toBe(Buffer.from('hello').toString('base64'));
  });

  it('the mcp upload listener refuses a foreign Origin, like serve', async () => {
    const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const refused = await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }), { Origin: 'https://evil.example' });
    expect(refused).toMatchObject({ status: 403, text: expect.stringMatching(/Origin "https:\/\/evil\.example" is not allowed/) });
    expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }), { Origin: new URL(listener.base).origin })).toMatchObject({ status: 204 });
  });
});

describe("the browser's leave to store an upload (review 10, door I1)", () => {
  it('is asked once the fields are sound and before anything is stored; a refusal stores nothing', async () => {
    const asks: string[] = [];
    const refuse = async () => {
      asks.push('asked');
      throw new Error('[PERMISSION_DENIED] comet-relay is read-only');
    };
    await expect(attachments.envelope({ filename: '../x.pdf', mimeType: 'application/pdf', sizeBytes: 3 }, refuse)).rejects.toThrow(/filename must not contain a path separator/);
    expect(asks).toEqual([]);
    await expect(attachments.envelope({ filename: 'x.pdf', mimeType: 'application/pdf', sizeBytes: 3 }, refuse)).rejects.toThrow(/read-only/);
    expect(asks).toEqual(['asked']);
    expect(fs.existsSync(path.join(home, 'attachments')) ? fs.readdirSync(path.join(home, 'attachments')) : []).toEqual([]);
    const made = await attachments.envelope({ filename: 'x.pdf', mimeType: 'application/pdf', sizeBytes: 3 }, async () => void asks.push('allowed'));
    expect(asks).toEqual(['asked', 'allowed']);
    expect(fs.readdirSync(path.join(home, 'attachments'))).toEqual([made.upload_fields.key]);
  });
});

describe('downloads from comet-relay serve', () => {
  it('GET attachment_url needs the bearer token (the file is a person\'s document, and the URL travels in transcripts); the upload does not', async () => {
    const { startHttpServer } = await import('../../lib/mcp/http');
    const { readSettings } = await import('../../lib/config/settings');
    const token = 't'.repeat(43);
    const serve = await startHttpServer({ home, settings: readSettings({}), tools: [], token, port: 0 });
    try {
      const served = new Attachments({ store: new AttachmentStore({ home, maxBytes: 1000, ttlMs: 60_000 }), base: async () => `http://127.0.0.1:${serve.port}` });
      const envelope = await served.envelope({ filename: 'n.md', mimeType: 'text/markdown', sizeBytes: 3 });
      expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
      const anonymous = await fetch(envelope.attachment_url);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).toMatch(/HTTP token/);
      const withToken = await fetch(envelope.attachment_url, { headers: { Authorization: `Bearer ${token}` } });
      expect(withToken.status).toBe(200);
      expect(await withToken.text()).toBe('abc');
      expect(withToken.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await serve.close();
    }
  });

  it('a download whose file cannot be read answers 404 (or cuts the body) instead of killing the process; one must name its file', async () => {
    const { startHttpServer } = await import('../../lib/mcp/http');
    const { readSettings } = await import('../../lib/config/settings');
    const token = 't'.repeat(43);
    const serve = await startHttpServer({ home, settings: readSettings({}), tools: [], token, port: 0 });
    const get = (url: string, method = 'GET') => fetch(url, { method, headers: { Authorization: `Bearer ${token}` } });
    try {
      const served = new Attachments({ store: new AttachmentStore({ home, maxBytes: 1000, ttlMs: 60_000 }), base: async () => `http://127.0.0.1:${serve.port}` });
      const envelope = await served.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 5 });
      expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'hello' }))).toMatchObject({ status: 204 });
      expect((await get(envelope.attachment_url.replace(/a\.txt$/, 'whatever'))).status).toBe(404);
      fs.rmSync(path.join(home, 'attachments', envelope.upload_fields.key as string, 'data'));
      expect((await get(envelope.attachment_url, 'HEAD')).status).toBe(404);
      const gone = await get(envelope.attachment_url);
      expect(gone.status).toBe(404);
      expect(await gone.text()).toMatch(/could not be read.*upload it again/);
      // A directory where the file should be: open succeeds, read fails (EISDIR) after the headers.
      const other = await served.envelope({ filename: 'b.txt', mimeType: 'text/plain', sizeBytes: 5 });
      expect(await upload(other.upload_url, form(other.upload_fields, { bytes: 'hello' }))).toMatchObject({ status: 204 });
      const data = path.join(home, 'attachments', other.upload_fields.key as string, 'data');
      fs.rmSync(data);
      fs.mkdirSync(data);
      const broken = await get(other.attachment_url).then(
        async (response) => ({ status: response.status, body: await response.text().catch(() => 'cut') }),
        () => ({ status: 0, body: 'cut' }),
      );
      expect(broken.status === 404 || broken.body === 'cut').toBe(true);
      expect((await get(`http://127.0.0.1:${serve.port}/attachments/upload`)).status).toBe(405);
    } finally {
      await serve.close();
    }
  });
});

describe('upload cleanup and caps', () => {
  it('a folder left without its meta.json by a process that ended goes once a ttl old, only with nothing else in it (review 8)', () => {
    const dir = path.join(home, 'attachments');
    const folder = (id: string, ageMs: number, files: string[]) => {
      const full = path.join(dir, id);
      fs.mkdirSync(full, { recursive: true });
      for (const file of files) fs.writeFileSync(path.join(full, file), '{');
      const at = (now - ageMs) / 1000;
      fs.utimesSync(full, at, at);
    };
    const ids = ['0b0f6e3c-1c2d-4e5f-8a9b-0c1d2e3f4a5b', '1b0f6e3c-1c2d-4e5f-8a9b-0c1d2e3f4a5b', '2b0f6e3c-1c2d-4e5f-8a9b-0c1d2e3f4a5b', '3b0f6e3c-1c2d-4e5f-8a9b-0c1d2e3f4a5b'];
    folder(ids[0] as string, 120_000, ['meta.json.tmp']); // ended between its folder and its meta.json, two ttls ago
    folder(ids[1] as string, 120_000, []);
    folder(ids[2] as string, 1_000, ['meta.json.tmp']); // maybe still being made
    folder(ids[3] as string, 120_000, ['meta.json.tmp', 'notes.txt']); // holds something not ours
    store.sweep();
    expect(fs.readdirSync(dir).sort()).toEqual([ids[2], ids[3]]);
    expect(fs.readdirSync(path.join(dir, ids[3] as string)).sort()).toEqual(['notes.txt']);
  });

  it('an envelope whose meta.json cannot be written leaves no folder behind: one without it is nobody\'s to sweep (review 8, long-run #8)', () => {
    const write = vi.spyOn(fs, 'writeFileSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    try {
      expect(() => store.create({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1 }, 'http://127.0.0.1:1')).toThrow(/ENOSPC/);
    } finally {
      write.mockRestore();
    }
    expect(fs.readdirSync(path.join(home, 'attachments'))).toEqual([]);
  });

  it('expired files go on a timer, without another attachment call', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const envelope = await attachments.envelope({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expect(await upload(envelope.upload_url, form(envelope.upload_fields, { bytes: 'abc' }))).toMatchObject({ status: 204 });
      const folder = path.join(home, 'attachments', envelope.upload_fields.key as string);
      const stop = store.sweepEvery(60_000);
      now += 61_000;
      expect(fs.existsSync(folder)).toBe(true);
      vi.advanceTimersByTime(60_000);
      expect(fs.existsSync(folder)).toBe(false);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('the settings cap how many uploads and how many bytes are kept, and the refusal names the cap', async () => {
    const { readSettings } = await import('../../lib/config/settings');
    const capped = attachmentStore({ home, settings: readSettings({ COMET_ATTACHMENT_MAX_FILES: '2', COMET_ATTACHMENT_MAX_TOTAL_BYTES: '1500', COMET_ATTACHMENT_MAX_BYTES: '1000' }) });
    const some = new Attachments({ store: capped, base: async () => listener.base });
    await some.envelope({ filename: 'a.bin', mimeType: 'application/octet-stream', sizeBytes: 1000 });
    await expect(some.envelope({ filename: 'b.bin', mimeType: 'application/octet-stream', sizeBytes: 600 })).rejects.toThrow(
      /size_bytes 600 does not fit: the kept uploads hold 1000 of 1500 bytes \(COMET_ATTACHMENT_MAX_TOTAL_BYTES\)/,
    );
    await some.envelope({ filename: 'b.bin', mimeType: 'application/octet-stream', sizeBytes: 500 });
    await expect(some.envelope({ filename: 'c.bin', mimeType: 'application/octet-stream', sizeBytes: 1 })).rejects.toThrow(/2 uploads are already kept \(COMET_ATTACHMENT_MAX_FILES is 2\)/);
    // The public door has the caps to itself: the local clients' uploads do not fill them, nor its uploads theirs (review 10, door M2).
    const remote = new Attachments({ store: capped, publicBase: 'https://relay.example.com', base: async () => 'https://relay.example.com', door: 'public' });
    await remote.envelope({ filename: 'r1.bin', mimeType: 'application/octet-stream', sizeBytes: 1000 });
    await remote.envelope({ filename: 'r2.bin', mimeType: 'application/octet-stream', sizeBytes: 1 });
    await expect(remote.envelope({ filename: 'r3.bin', mimeType: 'application/octet-stream', sizeBytes: 1 })).rejects.toThrow(/2 uploads through the public door are already kept/);
    await expect(some.envelope({ filename: 'c.bin', mimeType: 'application/octet-stream', sizeBytes: 1 })).rejects.toThrow(/^2 uploads are already kept/);
  });

  it('serve and mcp sweep when they start, and then on their timer', async () => {
    const { startHttpServer } = await import('../../lib/mcp/http');
    const { onDemandAttachments } = await import('../../lib/mcp/attachments/http');
    const { readSettings } = await import('../../lib/config/settings');
    const expiredEnvelope = () => {
      const old = new AttachmentStore({ home, maxBytes: 1000, ttlMs: 10_000, now: () => Date.now() - 3_600_000 });
      const envelope = old.create({ filename: 'old.txt', mimeType: 'text/plain', sizeBytes: 1 }, 'http://127.0.0.1:1');
      return path.join(home, 'attachments', envelope.upload_fields.key as string);
    };
    const first = expiredEnvelope();
    const serve = await startHttpServer({ home, settings: readSettings({}), tools: [], token: 't'.repeat(43), port: 0 });
    await serve.close();
    expect(fs.existsSync(first)).toBe(false);
    const second = expiredEnvelope();
    const local = onDemandAttachments({ home, settings: readSettings({}) });
    await local.close();
    expect(fs.existsSync(second)).toBe(false);
  });
});
