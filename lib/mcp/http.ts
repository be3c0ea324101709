import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { RelayError } from '../protocol/errors';
import { EXTENSION_ORIGIN } from '../protocol/identity';
import { BrowserGateway, type GatewayOptions } from './gateway';
import { isPublicHost, type PublicUrl } from './public-url';
import { createSessionServer } from './server';
import type { ToolDefinition } from './tool';

/**
 * `comet-relay serve`: Streamable HTTP at http://127.0.0.1:PORT/mcp. Loopback only, a bearer token
 * compared in constant time, Host and Origin checked against DNS rebinding, one McpServer (and
 * one relay connection) per MCP session. With a public URL (a tunnel in front), that one Host is
 * accepted too; it still listens on loopback only.
 */
export interface HttpOptions extends Omit<GatewayOptions, 'transport'> {
  tools: ToolDefinition[];
  port: number;
  token: string;
  /** Bind address; loopback by default and by design. */
  bindHost?: string;
  /** `--public-url`: also accept requests a tunnel forwards with this Host (the token is still required). */
  publicUrl?: PublicUrl;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface Session {
  transport: StreamableHTTPServerTransport;
  gateway: BrowserGateway;
}

export async function startHttpServer(options: HttpOptions): Promise<RunningHttpServer> {
  const sessions = new Map<string, Session>();
  const bindHost = options.bindHost ?? '127.0.0.1';
  const tokenDigest = digest(options.token);
  let port = options.port;

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error) => {
      if (!res.headersSent) reply(res, 500, -32603, `Internal error: ${(error as Error).message}`);
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!allowedHost(req.headers.host, port, options.publicUrl)) {
      const publicName = options.publicUrl ? `, localhost:${port} or ${options.publicUrl.mcpUrl}` : ` or localhost:${port}`;
      return reply(res, 403, -32000, `Host "${req.headers.host}" is not allowed: connect to 127.0.0.1:${port}${publicName}.`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigin(origin, port)) {
      return reply(res, 403, -32000, `Origin "${origin}" is not allowed to use this MCP server.`);
    }
    if (url.pathname !== '/mcp') return reply(res, 404, -32000, `Nothing at ${url.pathname}: the MCP endpoint is /mcp.`);
    if (!authorized(req.headers.authorization, tokenDigest)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="comet-relay"');
      return reply(res, 401, -32001, 'Missing or wrong bearer token. Send "Authorization: Bearer <token>"; `npx comet-relay token` prints the token.');
    }

    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (req.method !== 'POST') {
      if (!existing) return reply(res, 404, -32000, 'Unknown or missing Mcp-Session-Id: initialize a new session first.');
      return existing.transport.handleRequest(req, res);
    }

    let body: unknown;
    try {
      body = await readJson(req);
    } catch (error) {
      return reply(res, (error as { status?: number }).status ?? 400, -32700, (error as Error).message);
    }
    if (existing) return existing.transport.handleRequest(req, res, body);
    if (typeof sessionId === 'string') return reply(res, 404, -32000, `Session ${sessionId} is unknown (it ended or the server restarted): initialize a new session.`);
    if (!isInitializeRequest(body)) return reply(res, 400, -32600, 'No Mcp-Session-Id header: the first request of a session must be initialize.');

    const gateway = new BrowserGateway({ ...options, transport: 'http' });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, gateway });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      gateway.close();
    };
    const mcp = createSessionServer({ tools: options.tools, settings: options.settings, gateway });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new RelayError('CONFIG_ERROR', `Port ${options.port} on ${bindHost} is already in use (another comet-relay serve?). Stop that one or pick another port with --port.`));
      } else if (error.code === 'EACCES') {
        reject(new RelayError('CONFIG_ERROR', `Not allowed to listen on port ${options.port}: pick a port above 1023 with --port.`));
      } else reject(error);
    };
    server.once('error', onError);
    server.listen(options.port, bindHost, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  if (address && typeof address === 'object') port = address.port;

  return {
    url: `http://${bindHost}:${port}/mcp`,
    port,
    sessions: () => sessions.size,
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Accepts "Bearer <token>" and the raw token (the Agent API's `authorization` field sends it raw). */
export function authorized(header: string | undefined, expected: Buffer): boolean {
  if (!header) return false;
  const token = header.replace(/^Bearer\s+/i, '').trim();
  return timingSafeEqual(digest(token), expected);
}

export function allowedHost(host: string | undefined, port: number, publicUrl?: PublicUrl): boolean {
  if (!host) return false;
  if (publicUrl && isPublicHost(host, publicUrl)) return true;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

export function allowedOrigin(origin: string, port: number): boolean {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, EXTENSION_ORIGIN.replace(/\/$/, '')].includes(origin.toLowerCase());
}

function reply(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error(`Request body exceeds ${MAX_BODY_BYTES} bytes.`), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('Parse error: the request body is not JSON.'), { status: 400 });
  }
}
