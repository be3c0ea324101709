import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { makeCertificate } from '../sim/server';

/**
 * A stand-in for a tunnel such as cloudflared or Tailscale Funnel: HTTPS in (a self-signed
 * certificate made by openssl), forwarded to a loopback HTTP server with `Host` rewritten to the
 * public name, streaming both ways. It records the JSON-RPC methods and tool names that passed,
 * so a test can show which tools a remote client really called.
 */
export interface Tunnel {
  /** `https://127.0.0.1:PORT`, standing in for the public address. */
  origin: string;
  /** The certificate to trust. */
  ca: Buffer;
  /** The Host sent to the origin server; change it to play a tunnel that forwards another name. */
  forwardHost: string;
  /** Each JSON-RPC request that passed: `method` or `tools/call NAME`; and the headers each came with. */
  seen: { call: string; headers: http.IncomingHttpHeaders }[];
  /** A fetch that trusts this tunnel's certificate (for MCP clients and plain requests). */
  fetch: typeof fetch;
  close(): Promise<void>;
}

export async function startTunnel(target: string, publicHost: string): Promise<Tunnel> {
  const targetUrl = new URL(target);
  const { key, cert, dir } = makeCertificate([publicHost]);
  fs.rmSync(dir, { recursive: true, force: true });
  const tunnel = { forwardHost: publicHost, seen: [] as Tunnel['seen'] };

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      record(body, req.headers);
      const upstream = http.request(
        { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: { ...req.headers, host: tunnel.forwardHost } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502);
        res.end(String(error));
      });
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });

  function record(body: Buffer, headers: http.IncomingHttpHeaders): void {
    if (body.length === 0) return;
    try {
      const messages = [JSON.parse(body.toString('utf8'))].flat() as { method?: string; params?: { name?: string } }[];
      for (const m of messages) {
        if (!m.method) continue;
        tunnel.seen.push({ call: m.method === 'tools/call' ? `tools/call ${m.params?.name}` : m.method, headers });
      }
    } catch {
      // not JSON: nothing to record
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const trustingFetch: typeof fetch = (input, init) =>
    new Promise<Response>((resolve, reject) => {
      if (init?.body != null && typeof init.body !== 'string') return reject(new Error('this fetch sends string bodies only (what MCP clients send)'));
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const request = https.request(url, { method: init?.method ?? 'GET', headers, ca: cert }, (res) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        const status = res.statusCode ?? 502;
        const empty = status === 204 || status === 304 || init?.method === 'HEAD';
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: out }));
      });
      request.on('error', reject);
      init?.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')), { once: true });
      request.end(typeof init?.body === 'string' ? init.body : undefined);
    });

  return Object.assign(tunnel, {
    origin: `https://127.0.0.1:${port}`,
    ca: cert,
    fetch: trustingFetch,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
