import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { RelayError } from '../protocol/errors';
import { MAX_FRAME_DEPTH, splitIntoChunks } from '../protocol/framing';
import { PROTOCOL_VERSION, protocolSkew } from '../protocol/identity';
import { MAX_PARAMS_DEPTH, nestsDeeperThan } from '../protocol/limits';
import { isRequestId, MAX_ENVELOPE_ID } from '../protocol/envelope-check';
import { callerName } from '../protocol/doors';
import type { BrowserInfo, Envelope, Hello, ProfileInfo, Request } from '../protocol/messages';
import type { AttachedClient } from '../protocol/methods';
import { FramedConnection } from './connection';
import { codeStamp, isProcessAlive, readHostRecord, removeHostRecord, writeHostRecord } from './discovery';
import type { Logger } from './logger';
import { PackFeed } from './pack-feed';
import { PACKS_CHANGED_EVENT } from '../protocol/pack-events';
import { traceClock } from '../protocol/ports';
import { hostKey, proveHost } from './host-proof';
import { pipeNonce, socketPath } from './paths';
import { ensurePrivateDir } from './private-dir';
import { VERSION } from './version';
import { hostForm } from './invocation';

/**
 * `comet-relay host`: started by the browser through native messaging, one per browser profile.
 * It speaks to the extension on stdin/stdout and to any number of MCP processes on a local socket,
 * renumbering request ids so that every reply, progress note and error reaches only the client
 * that asked.
 */
export interface HostOptions {
  home: string;
  input: Readable;
  output: Writable;
  logger: Logger;
  /** The extension origin the browser passed as our first argument, for the log. */
  callerOrigin?: string;
}

interface ClientSession {
  info: AttachedClient;
  connection: FramedConnection;
  socket: net.Socket;
  pending: Set<string>;
}

interface PendingCall {
  client: ClientSession;
  originalId: string;
  /** When a traced request (the bench's profile) arrived: its result then says how long we held it. */
  tracedAt?: bigint;
}

interface ExtensionState {
  profile: ProfileInfo;
  browser: BrowserInfo;
  version: string;
  connectedAt: string;
  portOpenedAt?: number;
}

export class NativeHost {
  private readonly extension: FramedConnection;
  private readonly clients = new Map<string, ClientSession>();
  private readonly pending = new Map<string, PendingCall>();
  private state?: ExtensionState;
  private server?: net.Server;
  private socketFile?: string;
  private socketInode?: number;
  private sequence = 0;
  /**
   * Prefixes every client id of this host, so no id it forwards can equal one a previous host of the
   * same profile forwarded: an orphan's late reply then matches nothing here and is dropped. The
   * pid and start time make it unique; nothing about it is secret (so no node:crypto in the host).
   */
  private readonly lifetime = `${process.pid.toString(36)}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  private readonly startedAt = new Date().toISOString();
  /** Written into the record; its HMAC of each client's challenge shows the client this is the host it read of. */
  private readonly key = hostKey();
  /** Taken at start: the code this process runs, whatever is written over its file later. */
  private readonly code = codeStamp();
  private stopped = false;
  /** The selector sets folder, offered to the extension at the handshake and on every change. */
  private packFeed?: PackFeed;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(private readonly options: HostOptions) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.extension = new FramedConnection(options.input, options.output, {
      onMessage: (message) => this.fromExtension(message),
      onInvalid: (problem) => options.logger.warn('rejected a frame from the extension', { problem }),
      onClose: () => void this.stop('the browser closed the native messaging port'),
    });
    options.logger.info('host started', { caller: options.callerOrigin, version: VERSION });
  }

  /** Calls forwarded to the browser and not yet answered, cancelled or abandoned (for tests and status). */
  get openCallCount(): number {
    return this.pending.size;
  }

  private get log(): Logger {
    return this.options.logger;
  }

  // ── extension side ──────────────────────────────────────────────────────────

  private fromExtension(message: Envelope): void {
    switch (message.kind) {
      case 'hello':
        void this.onExtensionHello(message);
        return;
      case 'ping':
        this.toExtension({ kind: 'pong', t: message.t });
        return;
      case 'result':
      case 'error':
      case 'progress':
        this.routeReply(message);
        return;
      case 'request':
        this.answerLocally(message, (reply) => this.toExtension(reply));
        return;
      case 'event':
        for (const client of this.clients.values()) client.connection.send(message);
        return;
      default:
        this.log.warn('ignored a message from the extension', { kind: message.kind });
    }
  }

  private async onExtensionHello(hello: Hello): Promise<void> {
    if (this.stopped) return; // its socket path and record may belong to a newer host already
    if (hello.role !== 'extension' || !hello.profile || !hello.browser) {
      this.log.warn('extension hello lacks profile or browser', { role: hello.role });
      return;
    }
    if (hello.protocolVersion !== PROTOCOL_VERSION) {
      const message = protocolSkew({ role: 'extension', protocol: hello.protocolVersion }, { protocol: PROTOCOL_VERSION, version: VERSION });
      this.log.error('version mismatch with the extension', { extension: hello.version });
      this.toExtension({ kind: 'incompatible', protocolVersion: PROTOCOL_VERSION, version: VERSION, message });
      return;
    }
    this.state = {
      profile: hello.profile,
      browser: hello.browser,
      version: hello.version,
      connectedAt: new Date().toISOString(),
      ...(hello.portOpenedAt !== undefined ? { portOpenedAt: hello.portOpenedAt } : {}),
    };
    try {
      await this.listen(hello.profile.id);
    } catch (error) {
      if (this.stopped) return;
      this.log.error('could not open the local socket', { error: String(error) });
      this.toExtension({
        kind: 'event',
        event: 'host.error',
        data: { message: `The host could not open its local socket: ${(error as Error).message}` },
      });
      return;
    }
    // The port closed while the socket opened, or a newer host had it (see listen): this one
    // announces nothing.
    if (this.stopped) return;
    // How a person runs this comet-relay: the extension says every command it prints with it.
    const form = hostForm();
    this.toExtension({ kind: 'welcome', protocolVersion: PROTOCOL_VERSION, version: VERSION, pid: process.pid, ...form });
    this.packFeed ??= new PackFeed(this.options.home, this.log, (offer) => this.toExtension({ kind: 'event', event: PACKS_CHANGED_EVENT, data: offer }));
    this.packFeed.start();
    this.publishClients();
    this.log.info('extension connected', { profile: hello.profile, browser: hello.browser.version });
  }

  private toExtension(message: Envelope): void {
    const json = JSON.stringify(message);
    for (const piece of splitIntoChunks(json, `c${process.pid}-${++this.sequence}`)) this.extension.sendRaw(piece);
  }

  private routeReply(message: Extract<Envelope, { kind: 'result' | 'error' | 'progress' }>): void {
    const call = this.pending.get(message.id);
    if (!call) return; // the client left or cancelled, or an older host sent it: nobody to go to
    if (message.kind !== 'progress') this.forgetCall(message.id);
    const traced = call.tracedAt !== undefined && message.kind === 'result' ? { trace: { ...message.trace, host: msSince(call.tracedAt), hostGotAt: traceClock() } } : {};
    this.reply(call.client.connection, { ...message, id: call.originalId, ...traced });
  }

  // ── client side ─────────────────────────────────────────────────────────────

  private async listen(profileId: string): Promise<void> {
    if (this.server) return;
    if (this.yieldsToNewerHost(profileId)) return;
    const file = socketPath(this.options.home, profileId, process.platform, process.platform === 'win32' ? pipeNonce() : undefined);
    if (process.platform !== 'win32') {
      // Owner-only from the first instant: the socket is made inside a folder checked to be ours
      // and 0700 (the state folder, or our /tmp fallback), and under a umask that leaves it 0600.
      ensurePrivateDir(this.options.home);
      ensurePrivateDir(path.dirname(file));
      fs.rmSync(file, { force: true }); // a crashed or retiring host for this profile left it
    }
    const server = net.createServer((socket) => this.acceptClient(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.once('listening', () => {
        server.off('error', reject);
        resolve();
      });
      withOwnerOnlyUmask(() => server.listen(file)); // binds synchronously, so the umask covers it
    });
    server.on('error', (error) => this.log.error('socket server error', { error: String(error) }));
    if (process.platform !== 'win32') {
      const stat = fs.statSync(file);
      if ((stat.mode & 0o077) !== 0) {
        server.close();
        throw new Error(`the socket ${file} came out with mode ${(stat.mode & 0o777).toString(8)}, not 600`);
      }
      this.socketInode = stat.ino;
    }
    this.server = server;
    this.socketFile = file;
    // stop() ran while the socket opened: it found no record to remove and no server to close.
    // Writing the record now would outlive this host and could overwrite the record of the host
    // that replaces it (which then looks dead to every client): close instead, and write nothing.
    if (this.stopped) {
      if (this.socketIsOurs()) server.close();
      this.log.info('the browser closed the port during the handshake: no socket, no record');
      return;
    }
    if (this.yieldsToNewerHost(profileId)) return; // its stop() closes the socket if it is still ours
    this.writeRecord();
  }

  /**
   * Whether a live host of this profile serves a port the browser opened after ours, and this host
   * then stops instead of taking the socket and the record. The worker holds one port at a time,
   * so ours was abandoned during its handshake (a Reconnect while connecting) and its hello, read
   * late by a host slow to start, came after the newer host's: taking over would leave the host the
   * browser talks to with no socket and no record, and the retiring one exits moments later.
   * Checked right before the socket path is taken and again before the record is written.
   */
  private yieldsToNewerHost(profileId: string): boolean {
    const mine = this.state?.portOpenedAt;
    if (mine === undefined) return false;
    const current = readHostRecord(this.options.home, profileId);
    if (current?.portOpenedAt === undefined || current.portOpenedAt <= mine || !isProcessAlive(current.pid)) return false;
    this.log.info('a newer host serves this profile: this one steps aside', { newer: current.pid });
    void this.stop('the browser opened a newer port for this profile');
    return true;
  }

  private writeRecord(): void {
    if (!this.state || !this.socketFile) return;
    writeHostRecord(this.options.home, {
      profileId: this.state.profile.id,
      profileLabel: this.state.profile.label,
      browser: { name: this.state.browser.name, version: this.state.browser.version },
      extensionVersion: this.state.version,
      hostVersion: VERSION,
      socketPath: this.socketFile,
      pid: process.pid,
      startedAt: this.startedAt,
      connectedAt: this.state.connectedAt,
      ...(this.state.portOpenedAt !== undefined ? { portOpenedAt: this.state.portOpenedAt } : {}),
      key: this.key,
      ...(this.code ? { code: this.code } : {}),
    });
  }

  private acceptClient(socket: net.Socket): void {
    let session: ClientSession | undefined;
    const connection = new FramedConnection(socket, socket, {
      onMessage: (message) => {
        if (!session) {
          session = this.greetClient(message, connection, socket);
          return;
        }
        this.fromClient(session, message);
      },
      onInvalid: (problem, value, tooDeep) => {
        this.log.warn('rejected a frame from a client', { problem });
        // Every frame gets an answer: an error under the frame's own id when it has a usable one,
        // so a caller waiting on that id is not left waiting forever.
        // (An id of a call still running is not answered for: that would end the running call.)
        const id = (value as { id?: unknown } | null | undefined)?.id;
        if (session && isRequestId(id) && !session.pending.has(`${session.info.clientId}:${id}`)) {
          const error = tooDeep
            ? { code: 'INVALID_PARAMS' as const, message: `The message nests deeper than ${MAX_FRAME_DEPTH} levels; params may nest at most ${MAX_PARAMS_DEPTH}, and no method takes more.` }
            : { code: 'PROTOCOL_ERROR' as const, message: `The host refused this message: ${problem}.` };
          connection.send({ kind: 'error', id, error });
        } else {
          connection.send({ kind: 'event', event: 'protocol.invalid', data: { problem } });
        }
      },
      onClose: () => {
        if (session) this.dropClient(session);
      },
    });
  }

  private greetClient(message: Envelope, connection: FramedConnection, socket: net.Socket): ClientSession | undefined {
    if (message.kind !== 'hello' || message.role !== 'client') {
      connection.send({
        kind: 'incompatible',
        protocolVersion: PROTOCOL_VERSION,
        version: VERSION,
        message: 'A client must open with a hello message.',
      });
      socket.end();
      return undefined;
    }
    if (message.protocolVersion !== PROTOCOL_VERSION) {
      connection.send({
        kind: 'incompatible',
        protocolVersion: PROTOCOL_VERSION,
        version: VERSION,
        message: protocolSkew({ role: 'client', protocol: message.protocolVersion }, { protocol: PROTOCOL_VERSION, version: VERSION }),
      });
      socket.end();
      return undefined;
    }
    const clientId = `${this.lifetime}.k${++this.sequence}`;
    // The door is the relay's word (serve knows which way each of its sessions came in); a client
    // that names none gets the public door's narrower grants. A public-door caller is shown by
    // its door, never by the name its MCP client declares.
    const door = message.door ?? 'public';
    const session: ClientSession = {
      info: {
        clientId,
        name: callerName({ door, clientName: message.client?.name || 'unknown client' }),
        version: message.client?.version,
        transport: message.transport,
        door,
        since: new Date().toISOString(),
      },
      connection,
      socket,
      pending: new Set(),
    };
    this.clients.set(clientId, session);
    connection.send({
      kind: 'welcome',
      protocolVersion: PROTOCOL_VERSION,
      version: VERSION,
      pid: process.pid,
      clientId,
      ...(message.challenge ? { proof: proveHost(this.key, message.challenge) } : {}),
    });
    this.publishClients();
    this.log.info('client attached', { clientId, name: session.info.name });
    return session;
  }

  private fromClient(session: ClientSession, message: Envelope): void {
    switch (message.kind) {
      case 'request':
        if (message.method.startsWith('host.')) {
          this.answerLocally(message, (reply) => session.connection.send(reply));
          return;
        }
        this.forward(session, message);
        return;
      case 'cancel': {
        // The caller has given up: forget the call now (its late reply will match nothing and be
        // dropped) and tell the browser to stop working on it.
        const hostId = `${session.info.clientId}:${message.id}`;
        if (!this.forgetCall(hostId)) return;
        this.toExtension({ ...message, id: hostId });
        return;
      }
      case 'ping':
        session.connection.send({ kind: 'pong', t: message.t });
        return;
      default:
        this.log.warn('ignored a message from a client', { kind: message.kind });
        session.connection.send({
          kind: 'event',
          event: 'protocol.invalid',
          data: { problem: `a client may send request, cancel or ping after its hello, not "${message.kind}"` },
        });
    }
  }

  /** Sends to a client; a reply that cannot be serialised becomes an error under the same id. */
  private reply(connection: FramedConnection, message: Envelope): void {
    try {
      connection.send(message);
    } catch (error) {
      if (!('id' in message)) return;
      connection.send({
        kind: 'error',
        id: message.id,
        error: { code: 'PROTOCOL_ERROR', message: `The host could not pass on the browser's answer: ${(error as Error).message}` },
      });
    }
  }

  private forward(session: ClientSession, request: Request): void {
    if (!this.state) {
      session.connection.send({
        kind: 'error',
        id: request.id,
        error: new RelayError('EXTENSION_NOT_CONNECTED', 'The extension has not finished connecting to this host yet; try again in a moment.').toPayload(),
      });
      return;
    }
    const refuse = (code: 'INVALID_PARAMS' | 'PROTOCOL_ERROR', message: string): void => {
      session.connection.send({ kind: 'error', id: request.id, error: { code, message } });
    };
    const hostId = `${session.info.clientId}:${request.id}`;
    if (hostId.length > MAX_ENVELOPE_ID) {
      // The extension drops an envelope whose id breaks the rule: the caller would wait for nothing.
      const limit = MAX_ENVELOPE_ID - session.info.clientId.length - 1;
      refuse('PROTOCOL_ERROR', `Request id is too long (${request.id.length} characters): this client's ids may have at most ${limit} (the host adds its own prefix); use a shorter id.`);
      return;
    }
    if (this.pending.has(hostId)) {
      refuse('PROTOCOL_ERROR', `Request id "${request.id}" is already in use by a call still running; use a new id for each call.`);
      return;
    }
    if (nestsDeeperThan(request.params, MAX_PARAMS_DEPTH)) {
      refuse('INVALID_PARAMS', `${request.method}: params nest deeper than ${MAX_PARAMS_DEPTH} levels; no method takes that.`);
      return;
    }
    this.pending.set(hostId, { client: session, originalId: request.id, ...(request.trace ? { tracedAt: process.hrtime.bigint() } : {}) });
    session.pending.add(hostId);
    try {
      this.toExtension({
        ...request,
        id: hostId,
        // Who and which door are the host's to say, whatever the request claims.
        origin: { ...request.origin, clientId: session.info.clientId, clientName: session.info.name, door: session.info.door ?? 'public' },
      });
    } catch (error) {
      this.forgetCall(hostId);
      refuse('PROTOCOL_ERROR', `The host could not forward ${request.method} to the browser: ${(error as Error).message}`);
    }
  }

  /** Removes an open call from both books; false when it was not open (answered or unknown). */
  private forgetCall(hostId: string): boolean {
    const call = this.pending.get(hostId);
    if (!call) return false;
    this.pending.delete(hostId);
    call.client.pending.delete(hostId);
    return true;
  }

  private dropClient(session: ClientSession): void {
    this.clients.delete(session.info.clientId);
    for (const hostId of session.pending) {
      this.pending.delete(hostId);
      this.toExtension({ kind: 'cancel', id: hostId, reason: 'the MCP client disconnected' });
    }
    this.publishClients();
    this.log.info('client detached', { clientId: session.info.clientId });
  }

  private publishClients(): void {
    if (!this.state) return;
    this.toExtension({ kind: 'event', event: 'host.clients', data: { clients: this.clientList() } });
  }

  private clientList(): AttachedClient[] {
    return [...this.clients.values()].map((c) => c.info);
  }

  private answerLocally(request: Request, reply: (message: Envelope) => void): void {
    if (request.method === 'host.status' && this.state) {
      reply({
        kind: 'result',
        id: request.id,
        result: {
          pid: process.pid,
          version: VERSION,
          profile: this.state.profile,
          browser: this.state.browser,
          extensionVersion: this.state.version,
          clients: this.clientList(),
          startedAt: this.startedAt,
        },
      });
      return;
    }
    reply({
      kind: 'error',
      id: request.id,
      error: { code: 'INVALID_PARAMS', message: `The host has no method "${request.method}".` },
    });
  }

  // ── shutdown ────────────────────────────────────────────────────────────────

  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.log.info('host stopping', { reason });
    this.packFeed?.stop();
    for (const session of this.clients.values()) {
      for (const hostId of session.pending) {
        const call = this.pending.get(hostId);
        if (call)
          session.connection.send({
            kind: 'error',
            id: call.originalId,
            error: { code: 'HOST_DISCONNECTED', message: `The browser side went away (${reason}). Call again once the browser is back.` },
          });
      }
      session.socket.end();
    }
    this.pending.clear();
    if (this.state) removeHostRecord(this.options.home, this.state.profile.id, { pid: process.pid, portOpenedAt: this.state.portOpenedAt });
    // Node unlinks a unix socket's path when its server closes. A newer host for the same profile
    // may already listen at that path, so close (and unlink) only if the file is still ours;
    // otherwise leave the server to die with this process.
    if (this.server && this.socketIsOurs()) this.server.close();
    this.resolveDone();
  }

  private socketIsOurs(): boolean {
    if (!this.socketFile || process.platform === 'win32') return true;
    try {
      return fs.statSync(this.socketFile).ino === this.socketInode;
    } catch {
      return false;
    }
  }
}

/**
 * Milliseconds since an hrtime stamp. Not `performance.now()`: its first use loads perf_hooks, half
 * a megabyte of the host's resident memory.
 */
function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}


/** Runs `listen` with a umask that creates files 0600 (a unix socket takes 0777 minus the umask). */
function withOwnerOnlyUmask(listen: () => void): void {
  if (process.platform === 'win32') {
    listen();
    return;
  }
  const previous = process.umask(0o177);
  try {
    listen();
  } finally {
    process.umask(previous);
  }
}
