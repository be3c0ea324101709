import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { DOOR_SESSIONS } from '../protocol/access';
import { DOORS, type Door } from '../protocol/doors';
import { RelayError } from '../protocol/errors';
import { ATTACHMENTS_PREFIX, Attachments, attachmentStore, handleAttachmentRequest, sweepIntervalMs } from './attachments/http';
import { BrowserGateway, type GatewayOptions } from './gateway';
import { isPublicHost, type PublicUrl } from './public-url';
import { allowedOrigin } from './origin';
import { createSessionServer } from './server';
import { offeredAt, type ToolDefinition } from './tool';
import { cliCommand } from '../relay/invocation';

/**
 * `comet-relay serve`: Streamable HTTP at http://127.0.0.1:PORT/mcp. Loopback only, a bearer token
 * compared in constant time, Host and Origin checked against DNS rebinding, one MCP server (and
 * one relay connection) per MCP session. With a public URL (a tunnel in front), that one Host is
 * accepted too; it still listens on loopback only.
 */
export interface HttpOptions extends Omit<GatewayOptions, 'transport'> {
  tools: ToolDefinition[];
  port: number;
  token: string;
  /** Bind address; loopback by default and by design. */
  bindHost?: string;
  /** `--public-url`: also accept requests a tunnel forwards with this Host, with `publicToken` only. */
  publicUrl?: PublicUrl;
  /**
   * The only token the public address takes (`comet-relay token --public`), never `token`; and the
   * loopback names never take it. Required with `publicUrl`.
   */
  publicToken?: string;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** Live sessions of one door, or of both. */
  sessions(door?: Door): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function startHttpServer(options: HttpOptions): Promise<RunningHttpServer> {
  // One book per door, each with its own cap (lib/protocol/access.ts DOOR_SESSIONS): a session is
  // found only through the door that opened it, and a full book ends only its own door's sessions.
  const books = Object.fromEntries(
    DOORS.map((door) => [door, new SessionBook(options.settings.COMET_SESSION_IDLE_TIMEOUT, options.settings[DOOR_SESSIONS[door].capSetting])]),
  ) as Record<Door, SessionBook>;
  // What each door offers: a tool none of whose operations its door allows is not listed there.
  const toolsAt = Object.fromEntries(DOORS.map((door) => [door, options.tools.filter((tool) => offeredAt(tool, door))])) as Record<Door, ToolDefinition[]>;
  const bindHost = options.bindHost ?? '127.0.0.1';
  const tokenDigest = digest(options.token);
  if (options.publicUrl && !options.publicToken) {
    throw new RelayError('CONFIG_ERROR', `A public URL needs its own token: run \`${cliCommand('token --public')}\` once, then start serve again.`);
  }
  if (options.publicToken !== undefined && options.publicToken === options.token) {
    throw new RelayError('CONFIG_ERROR', `The public token must differ from the local one: run \`${cliCommand('token --public --rotate')}\`.`);
  }
  const publicDigest = options.publicToken === undefined ? undefined : digest(options.publicToken);
  let port = options.port;
  const store = attachmentStore(options);
  // Behind --public-url a client in the cloud uploads through the tunnel, so the public door's envelopes name it; a
  // local client's never leave this machine, and each door reads and attaches only its own sessions' files (review
  // 2026-12-05, http #2).
  const publicBase = options.publicUrl?.mcpUrl.replace(/\/mcp$/, '');
  const loopbackBase = async () => `http://${bindHost}:${port}`;
  const attachmentsAt: Record<Door, Attachments> = {
    loopback: new Attachments({ store, base: loopbackBase, door: 'loopback' }),
    public: new Attachments({ store, publicBase, base: async () => publicBase ?? (await loopbackBase()), door: 'public' }),
  };

  // Headers come at once from any client: a caller that trickles them (slowloris) is cut after 10 s, not Node's 60.
  const server = http.createServer({ headersTimeout: 10_000, connectionsCheckingInterval: 5_000 }, (req, res) => {
    void handle(req, res).catch((error) => {
      if (!res.headersSent) reply(res, 500, -32603, `Internal error: ${(error as Error).message}`);
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!allowedHost(req.headers.host, port, options.publicUrl)) {
      // Never the public door's address: a DNS-rebinding page can read this answer, and a tunnel's name is often its only secret
      // besides the token (review 10, door L4). Whoever set up --public-url knows it.
      const publicDoor = options.publicUrl ? ', or the --public-url address this server was given' : '';
      return reply(res, 403, -32000, `Host "${req.headers.host}" is not allowed: connect to 127.0.0.1:${port} or localhost:${port}${publicDoor}.`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigin(origin, port)) {
      return reply(res, 403, -32000, `Origin "${origin}" is not allowed to use this MCP server: calls from web pages are refused; call it from an MCP client.`);
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return reply(res, 400, -32000, `The request target ${JSON.stringify(req.url)} is not a path: the MCP endpoint is /mcp.`);
    }
    // Uploads carry their own one-time token (like an S3 presigned POST), not the bearer token.
    // Downloads need the bearer: the file is a person's document, and its URL travels in
    // transcripts (and through the tunnel with --public-url); the relay itself never fetches it.
    const upload = url.pathname === `${ATTACHMENTS_PREFIX}upload`;
    if (upload) return handleAttachmentRequest(store, req, res, url.pathname);
    const download = url.pathname.startsWith(ATTACHMENTS_PREFIX);
    if (!download && url.pathname !== '/mcp') return reply(res, 404, -32000, `Nothing at ${url.pathname}: the MCP endpoint is /mcp.`);
    // Each door takes its own key: what a cloud service holds never opens the loopback door, and the
    // local token never opens the public one, so either can be rotated without touching the other.
    const viaPublic = options.publicUrl !== undefined && isPublicHost(req.headers.host ?? '', options.publicUrl);
    if (!authorized(req.headers.authorization, viaPublic && publicDigest ? publicDigest : tokenDigest)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="comet-relay"');
      return reply(res, 401, -32001, refusal(req.headers.authorization, viaPublic, viaPublic ? tokenDigest : publicDigest));
    }
    if (download) return handleAttachmentRequest(store, req, res, url.pathname, viaPublic ? 'public' : 'loopback');

    const door: Door = viaPublic ? 'public' : 'loopback';
    const sessions = books[door];
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.use(sessionId, res, req.method === 'GET') : undefined;
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
    if (existing) {
      cancelOnHangUp(existing.transport, res, body);
      return existing.transport.handleRequest(req, res, body);
    }
    if (typeof sessionId === 'string') {
      return reply(res, 404, -32000, `Session ${sessionId} is unknown (it ended, was idle for too long, or the server restarted): initialize a new session.`);
    }
    if (!isInitializeRequest(body)) return reply(res, 400, -32600, 'No Mcp-Session-Id header: the first request of a session must be initialize.');
    // What the SDK would refuse is refused before room is made: a refused initialize ends nobody's session (review
    // 2026-12-05, http #4). The SDK's own words.
    const accept = String(req.headers.accept ?? '');
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return reply(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!String(req.headers['content-type'] ?? '').includes('application/json')) {
      return reply(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    if (!sessions.makeRoom()) {
      const setting = DOOR_SESSIONS[door].capSetting;
      return reply(res, 503, -32000, `All ${sessions.cap} sessions of the ${door} door are busy with calls (${setting}): try again when one ends, or raise the cap.`);
    }

    const transport = await openSession(door, sessions, res);
    await transport.handleRequest(req, res, body);
  }

  /**
   * A POST whose caller hung up before its answer can never get it (there is no event store: nothing resumes a
   * stream), so its requests are cancelled as the client would cancel them (review 2026-12-05, http #1): the browser
   * stops their work, and a thread tab they held is let go, instead of running on until the session's idle end.
   */
  function cancelOnHangUp(transport: StreamableHTTPServerTransport, res: http.ServerResponse, body: unknown): void {
    const ids = (Array.isArray(body) ? body : [body]).flatMap((m: { id?: unknown; method?: unknown } | null) =>
      m && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
    );
    if (ids.length === 0) return;
    res.once('close', () => {
      if (res.writableFinished) return;
      for (const requestId of ids) {
        transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the HTTP client hung up before the answer' } });
      }
    });
  }

  /**
   * A new session, put in its door's book once the SDK gives it its id (while it answers `initialize`, on `res`).
   * Its own function, so that the closures the transport keeps for its whole life hold the book and, until then,
   * that one response: not the handler's request, body and response, which an abandoned session would otherwise
   * keep until it is evicted.
   */
  async function openSession(door: Door, sessions: SessionBook, initializing: http.ServerResponse): Promise<StreamableHTTPServerTransport> {
    let res: http.ServerResponse | undefined = initializing;
    let tasksRunning = () => 0;
    const gateway = new BrowserGateway({ ...options, transport: 'http', door });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        if (res) sessions.add(id, { transport, gateway, tasksRunning: () => tasksRunning() }, res);
        res = undefined;
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.remove(transport.sessionId);
      gateway.close();
    };
    const mcp = createSessionServer({ tools: toolsAt[door], settings: options.settings, gateway, attachments: attachmentsAt[door], door, readOnly: options.readOnly });
    tasksRunning = () => mcp.tasksRunning();
    await mcp.connect(transport);
    return transport;
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
  // A listening server's own errors are told, never thrown: its sessions live on.
  server.on('error', (error) => process.stderr.write(`comet-relay serve: ${error.message}\n`));
  const address = server.address();
  if (address && typeof address === 'object') port = address.port;
  const stopSweeping = store.sweepEvery(sweepIntervalMs(options.settings));

  return {
    url: `http://${bindHost}:${port}/mcp`,
    port,
    sessions: (door?: Door) => (door ? books[door].size : books.loopback.size + books.public.size),
    async close() {
      stopSweeping();
      for (const book of Object.values(books)) await book.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Why a request was refused, naming the right token when it brought the other door's. */
function refusal(header: string | undefined, viaPublic: boolean, otherDoor: Buffer | undefined): string {
  const wrongDoor = otherDoor !== undefined && authorized(header, otherDoor);
  if (viaPublic) {
    // Said to anyone on the internet: the command in plain words, never this machine's paths (day-5 review F8).
    // The person reading it knows which state folder their serve was given; the text names none.
    const prints = "comet-relay's `token --public` prints it, run where this server runs and with the --home or COMET_RELAY_HOME this server was given, if any";
    return wrongDoor
      ? `This is the public door: it takes only the public token (${prints}), never the HTTP token.`
      : `Missing or wrong public token. Send "Authorization: Bearer <token>" (or the raw token); ${prints}.`;
  }
  return wrongDoor
    ? `The public token works only through the public door: clients on this machine use the HTTP token (\`${cliCommand('token')}\` prints it).`
    : `Missing or wrong HTTP token. Send "Authorization: Bearer <token>"; \`${cliCommand('token')}\` prints it.`;
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

function reply(res: http.ServerResponse, status: number, code: number, message: string): void {
  // A body left unread (a refused caller's, one past the limit) is not read to its end to keep the connection: Node
  // would, whatever its size, for anyone who can reach the port (review 10, door M1).
  if (!res.req.complete) res.setHeader('Connection', 'close');
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

interface Session {
  transport: StreamableHTTPServerTransport;
  gateway: BrowserGateway;
  /** MCP tasks it runs now: their calls were answered at once (CreateTaskResult), yet the session is in a call. */
  tasksRunning(): number;
}

interface Entry extends Session {
  /** HTTP requests of this session still open (a POST being answered, a GET event stream). */
  open: number;
  /** Of those, the GET event streams: a session holding only these listens, it is not in a call. */
  streams: number;
  lastUsed: number;
  /** When it last sent anything but a GET (its last call, or its initialize). */
  lastCall: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * The live MCP sessions. A session is in use while any of its HTTP requests is open; once the last
 * one closes, it may stay idle for `idleMs` and then ends, closing its relay connection (so it
 * leaves the side panel). At most `cap` sessions live at once: a new one ends the longest idle one,
 * else the one that has only listened (an event stream, no call) for longest. A session answering a
 * call is never ended for another. A stream is not a call: behind a tunnel, a stream whose remote caller
 * is gone can stay open for ever (the tunnel's daemon keeps its local connection), and a book full of
 * such streams would refuse every new caller of that door.
 */
class SessionBook {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly idleMs: number,
    readonly cap: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session for an incoming request, counted as in use until `res` closes (`stream`: a GET event stream). */
  use(id: string, res: http.ServerResponse, stream = false): Session | undefined {
    const entry = this.entries.get(id);
    if (entry) this.track(id, entry, res, stream);
    return entry;
  }

  add(id: string, session: Session, res: http.ServerResponse): void {
    const entry: Entry = { ...session, open: 0, streams: 0, lastUsed: Date.now(), lastCall: Date.now() };
    this.entries.set(id, entry);
    this.track(id, entry, res, false);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (entry?.idleTimer) clearTimeout(entry.idleTimer);
    this.entries.delete(id);
  }

  /** Ends the longest idle session, else the longest only listening, if the book is full. False when full of calls. */
  makeRoom(): boolean {
    if (this.entries.size < this.cap) return true;
    // A session running an MCP task is in a call between its polls (review 2026-12-05, http #3).
    const free = (e: Entry) => e.tasksRunning() === 0;
    const victim =
      this.oldest((e) => e.open === 0 && free(e), (e) => e.lastUsed) ?? this.oldest((e) => e.open === e.streams && free(e), (e) => e.lastCall);
    if (!victim) return false;
    this.end(victim[0], victim[1]);
    return true;
  }

  private oldest(fits: (entry: Entry) => boolean, since: (entry: Entry) => number): [string, Entry] | undefined {
    let oldest: [string, Entry] | undefined;
    for (const pair of this.entries) if (fits(pair[1]) && (!oldest || since(pair[1]) < since(oldest[1]))) oldest = pair;
    return oldest;
  }

  async closeAll(): Promise<void> {
    for (const [id, entry] of [...this.entries]) {
      this.remove(id);
      await entry.transport.close().catch(() => {});
    }
  }

  private track(id: string, entry: Entry, res: http.ServerResponse, stream: boolean): void {
    entry.open += 1;
    if (stream) entry.streams += 1;
    else entry.lastCall = Date.now();
    entry.lastUsed = Date.now();
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    res.once('close', () => {
      entry.open -= 1;
      if (stream) entry.streams -= 1;
      else entry.lastCall = Date.now();
      entry.lastUsed = Date.now();
      if (entry.open > 0 || this.entries.get(id) !== entry) return;
      this.idleEnd(id, entry);
    });
  }

  /** Ends the session after `idleMs` with nothing open, unless it runs an MCP task then (its hold bounds that). */
  private idleEnd(id: string, entry: Entry): void {
    entry.idleTimer = setTimeout(() => {
      if (entry.tasksRunning() > 0) this.idleEnd(id, entry);
      else this.end(id, entry);
    }, this.idleMs);
    entry.idleTimer.unref();
  }

  private end(id: string, entry: Entry): void {
    this.remove(id);
    void entry.transport.close().catch(() => {}); // its onclose closes the gateway
  }
}
