import fs from 'node:fs';
import net from 'node:net';
import { RelayError } from '../protocol/errors';
import { effectOf } from '../protocol/access';
import type { Door } from '../protocol/doors';
import { PROTOCOL_VERSION } from '../protocol/identity';
import type { CallOrigin, Envelope, Trace, Welcome } from '../protocol/messages';
import { hostMethods, type MethodName, type MethodParams, type MethodResult, methods } from '../protocol/methods';
import { traceClock } from '../protocol/ports';
import { FramedConnection } from './connection';
import { describeProfiles, type HostRecord, knownProfiles, listHosts, pickHost, removeHostRecord } from './discovery';
import { handshakeChallenge, provesHost } from './host-proof';
import { type Logger, silentLogger } from './logger';
import { hostsDir } from './paths';
import { checkSocketOwner } from './private-dir';
import { VERSION } from './version';
import { cliCommand } from './invocation';

/**
 * The MCP side's handle on one browser profile: finds the host through discovery, says hello,
 * and turns calls into correlated request/response pairs with progress, cancellation and
 * timeouts. One RelayClient per MCP session, so the host can tell sessions apart.
 */
export interface RelayClientOptions {
  home: string;
  /** Profile id or label substring; default: the most recently connected browser. */
  profile?: string;
  client: { name: string; version?: string };
  transport: 'stdio' | 'http';
  /**
   * The door this connection's calls came in by, as the relay knows it (never as the MCP client
   * says): `serve` passes `public` for a session opened through the tunnel. Default: loopback.
   */
  door?: Door;
  /** How long a call waits for a host to appear (a browser starting, a host restarting). */
  hostWaitMs?: number;
  logger?: Logger;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (message: string) => void;
  origin?: Pick<CallOrigin, 'tool' | 'summary'>;
  /** Asks every hop for its time (the bench's profile); filled in with theirs and ours (`relay`), in ms. */
  trace?: Trace;
}

/**
 * A call that sends something to Perplexity (lib/protocol/access.ts `send`) lost on its way back: the
 * browser may have sent it already, so "call again" would send a prompt twice (review of 2026-12-04, #17).
 */
function lostSend(method: string, what: string): string {
  return (
    `${capitalized(what)} during ${method} (browser closed, extension reloaded or host restarted), after the request may have reached the page: what it sends may have gone to Perplexity already. ` +
    'Do not send it again yet: once the browser is back, check with comet_poll (a thread: read_thread) and call again only if it is not there.'
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface PendingCall {
  method: string;
  resolve(value: unknown, trace?: Trace): void;
  reject(error: RelayError): void;
  onProgress?: (message: string) => void;
  /** The browser asked for more time (an approval is pending): restart the deadline. */
  extendDeadline(holdMs: number): void;
}

const HELLO_TIMEOUT_MS = 3000;
const DISCOVERY_INTERVAL_MS = 100;

export class RelayClient {
  private connection?: FramedConnection;
  /** The socket of a connect still in its handshake, so close() can end it too. */
  private opening?: net.Socket;
  private connecting?: Promise<FramedConnection>;
  private host?: HostRecord;
  private readonly pending = new Map<string, PendingCall>();
  private sequence = 0;
  private closed = false;
  private readonly log: Logger;
  private readonly listeners = new Set<(event: string, data: unknown) => void>();

  constructor(private readonly options: RelayClientOptions) {
    this.log = options.logger ?? silentLogger;
  }

  /** The host this client is talking to, if connected. */
  get connectedHost(): HostRecord | undefined {
    return this.connection && !this.connection.isClosed ? this.host : undefined;
  }

  onEvent(listener: (event: string, data: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects now (so the side panel lists this client) without failing if no browser is there. */
  async attach(): Promise<boolean> {
    try {
      await this.ensureConnection(0);
      return true;
    } catch {
      return false;
    }
  }

  async call<M extends MethodName>(method: M, params: MethodParams<M>, options: CallOptions = {}): Promise<MethodResult<M>> {
    const raw = await this.request(method, params, options);
    const parsed = methods[method].result.safeParse(raw);
    if (!parsed.success) {
      throw new RelayError('PROTOCOL_ERROR', `The browser answered ${method} with an unexpected shape (${parsed.error.issues[0]?.message}). Are the extension and comet-relay the same version?`);
    }
    return parsed.data as MethodResult<M>;
  }

  async hostStatus(options: CallOptions = {}) {
    const raw = await this.request('host.status', {}, options);
    return hostMethods['host.status'].result.parse(raw);
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    this.opening?.destroy(); // a connect in progress must not leave its socket open behind us
  }

  private async request(method: string, params: unknown, options: CallOptions): Promise<unknown> {
    if (options.signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before it started.');
    const connection = await this.ensureConnection(this.options.hostWaitMs ?? 3000);
    // Finding the host can take seconds (a browser starting): a caller that gave up meanwhile is not sent.
    if (options.signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before it reached the browser.');
    const id = `r${++this.sequence}`;
    const started = options.trace ? performance.now() : 0;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const arm = (ms: number) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(
          () => cancel(new RelayError('TIMEOUT', `The browser did not answer ${method} within ${options.timeoutMs} ms.`)),
          ms,
        );
      };
      const cleanup = () => {
        this.pending.delete(id);
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (error: RelayError) => {
        connection.send({ kind: 'cancel', id, reason: error.message });
        cleanup();
        reject(error);
      };
      const onAbort = () => cancel(new RelayError('CANCELLED', 'The call was cancelled by the client.'));
      this.pending.set(id, {
        method,
        onProgress: options.onProgress,
        extendDeadline: (holdMs) => {
          if (options.timeoutMs !== undefined) arm(holdMs + options.timeoutMs);
        },
        resolve: (value, trace) => {
          cleanup();
          if (options.trace) Object.assign(options.trace, trace, { relay: performance.now() - started, relayGotAt: traceClock() });
          resolve(value);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.timeoutMs !== undefined) arm(options.timeoutMs);
      const origin = options.origin ? { clientId: '', clientName: '', ...options.origin } : undefined;
      try {
        connection.send({ kind: 'request', id, method, params, origin, ...(options.trace ? { trace: true as const } : {}) });
      } catch (error) {
        // Nothing was sent (too large to send, or params that cannot be serialised): say so now.
        cleanup();
        const cause = RelayError.from(error, 'INVALID_PARAMS');
        reject(new RelayError(cause.code, `${method} was not sent: ${cause.message}`));
      }
    });
  }

  private async ensureConnection(waitMs: number): Promise<FramedConnection> {
    if (this.connection && !this.connection.isClosed) return this.connection;
    if (this.closed) throw closedError();
    this.connecting ??= this.connect(waitMs).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(waitMs: number): Promise<FramedConnection> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      // The profiles hosts served before, read once a connect and only when a profile is named (only then does it matter).
      const known = this.options.profile ? knownProfiles(this.options.home) : [];
      const pickNow = () => pickHost(listHosts(this.options.home), this.options.profile, known);
      let pick = pickNow();
      // A name that fits several profiles is the caller's to make exact; waiting would not change that.
      // A named profile that is known but not running is waited for like no profile at all.
      while (!pick.host && pick.ambiguous.length === 0 && Date.now() < deadline && !this.closed) {
        await changeIn(hostsDir(this.options.home), Math.min(DISCOVERY_INTERVAL_MS, Math.max(0, deadline - Date.now())));
        pick = pickNow();
      }
      if (pick.ambiguous && pick.ambiguous.length > 0) {
        throw new RelayError(
          'CONFIG_ERROR',
          `The profile name "${this.options.profile}" begins the names of ${pick.ambiguous.length} connected profiles: ${describeProfiles(pick.ambiguous)}. Name one exactly (its label or id) with --profile or COMET_RELAY_PROFILE.`,
        );
      }
      const host = pick.host;
      if (!host) throw this.noHostError(pick.notRunning);
      if (pick.byPrefix) this.log.warn('the profile name matched a connected profile by the beginning of its label', { named: this.options.profile, profile: host.profileLabel, id: host.profileId });
      if (this.closed) throw closedError();
      checkSocketOwner(host.socketPath);
      const socket = net.connect(host.socketPath);
      this.opening = socket;
      try {
        return await this.handshakeOn(socket, host);
      } catch (error) {
        if (error instanceof ClosedDuringHandshake && Date.now() < deadline && !this.closed) {
          // A host dying this instant (killed, its browser closing) still accepts a connection
          // and drops it: wait for its record to go or a new host to replace it, within our wait.
          await changeIn(hostsDir(this.options.home), DISCOVERY_INTERVAL_MS);
          continue;
        }
        // A host that crashed can leave its record behind with a pid the system gave to another
        // process since: nobody listens at its socket. Forget that record and look again.
        if (!(error instanceof DeadSocketError)) throw error;
        this.log.warn('removed the record of a host that no longer listens', { profile: host.profileId, pid: host.pid });
        removeHostRecord(this.options.home, host.profileId, host);
      } finally {
        this.opening = undefined;
      }
    }
  }

  private async handshakeOn(socket: net.Socket, host: HostRecord): Promise<FramedConnection> {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('close', () => reject(closedError())); // destroyed by close() before it connected
      socket.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') reject(new DeadSocketError(error.message));
        else reject(new RelayError('EXTENSION_NOT_CONNECTED', `The comet-relay host for profile "${host.profileLabel}" did not accept a connection (${error.message}). Reload the extension or restart the browser; \`${cliCommand('doctor')}\` shows what is wrong.`));
      });
    });
    const challenge = handshakeChallenge();
    const welcomed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RelayError('EXTENSION_NOT_CONNECTED', 'The comet-relay host did not answer the handshake.')), HELLO_TIMEOUT_MS);
      this.handshake = {
        welcome: (welcome) => {
          clearTimeout(timer);
          // A record without a key is an older host's: the protocol check refuses it with its own words.
          if (host.key && !provesHost(host.key, challenge, welcome.proof)) reject(impostorError(host));
          else resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
    const connection = new FramedConnection(socket, socket, {
      onMessage: (message) => this.receive(message),
      onInvalid: (problem) => this.log.warn('invalid frame from host', { problem }),
      onClose: () => this.onDisconnect(connection),
    });
    connection.send({
      kind: 'hello',
      role: 'client',
      protocolVersion: PROTOCOL_VERSION,
      version: VERSION,
      client: this.options.client,
      transport: this.options.transport,
      door: this.options.door ?? 'loopback',
      challenge,
    });
    try {
      await welcomed;
      if (this.closed) throw closedError();
    } catch (error) {
      socket.destroy();
      throw error;
    }
    this.connection = connection;
    this.host = host;
    return connection;
  }

  private handshake?: { welcome(message: Welcome): void; reject(error: RelayError): void };

  private receive(message: Envelope): void {
    switch (message.kind) {
      case 'welcome':
        this.handshake?.welcome(message);
        return;
      case 'incompatible':
        this.handshake?.reject(new RelayError('VERSION_MISMATCH', message.message));
        return;
      case 'result':
        this.pending.get(message.id)?.resolve(message.result, message.trace);
        return;
      case 'error': {
        const call = this.pending.get(message.id);
        const lost = message.error.code === 'HOST_DISCONNECTED' && call && effectOf(call.method) === 'send';
        call?.reject(new RelayError(message.error.code, lost ? lostSend(call.method, 'the browser side went away') : message.error.message, message.error.data));
        return;
      }
      case 'progress': {
        const call = this.pending.get(message.id);
        if (message.holdMs !== undefined) call?.extendDeadline(message.holdMs);
        call?.onProgress?.(message.message);
        return;
      }
      case 'event':
        for (const listener of this.listeners) listener(message.event, message.data);
        return;
      default:
        return;
    }
  }

  private onDisconnect(connection: FramedConnection): void {
    if (this.connection === connection) this.connection = undefined;
    this.handshake?.reject(new ClosedDuringHandshake());
    for (const call of [...this.pending.values()]) {
      const message =
        effectOf(call.method) === 'send'
          ? lostSend(call.method, "the browser's comet-relay host went away")
          : `The browser's comet-relay host went away during ${call.method} (browser closed, extension reloaded or host restarted). Call again: the next call reconnects.`;
      call.reject(new RelayError('HOST_DISCONNECTED', message));
    }
  }

  private noHostError(notRunning?: { profileId: string; profileLabel: string }): RelayError {
    const hosts = listHosts(this.options.home);
    if (notRunning) {
      const others = hosts.length > 0 ? ` Connected now: ${describeProfiles(hosts)}; name one of them exactly to use it instead.` : '';
      return new RelayError(
        'EXTENSION_NOT_CONNECTED',
        `The browser profile "${notRunning.profileLabel}" (${notRunning.profileId}) is not running, so comet-relay did not connect to it (nor to another profile in its place). Open that profile's browser window with the extension enabled, then call again.${others}`,
      );
    }
    if (this.options.profile && hosts.length > 0) {
      return new RelayError(
        'EXTENSION_NOT_CONNECTED',
        `No connected browser profile is named "${this.options.profile}" or has a name beginning with it. Connected profiles: ${describeProfiles(hosts)}. Name one of them (its label or id) with --profile or COMET_RELAY_PROFILE.`,
      );
    }
    return new RelayError(
      'EXTENSION_NOT_CONNECTED',
      `No browser with the comet-relay extension is connected. Open Comet or Chrome with the extension installed and enabled; if it is open, run \`${cliCommand('doctor')}\` to see which link is broken.`,
    );
  }
}

/**
 * Resolves as soon as something in `dir` changes (a host writing its record: a new host is used
 * within a few ms of its handshake, not at the next poll), or after `ms` at the latest (no folder
 * yet, or a change that came before the watch began).
 */
function changeIn(dir: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let watcher: fs.FSWatcher | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    };
    const timer = setTimeout(done, ms);
    try {
      watcher = fs.watch(dir, { persistent: false }, done);
      watcher.on('error', done);
    } catch {
      // no hosts folder yet: the timer alone
    }
  });
}

/** What answered at the record's socket does not hold the record's key: never spoken to again. */
function impostorError(host: HostRecord): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `What answers at ${host.socketPath} (the host of profile "${host.profileLabel}", by its record) could not prove it is that host: it may be another user's process holding the name of a host that went away. ` +
      `comet-relay did not talk to it. Restart your browser so it starts its host again; \`${cliCommand('doctor')}\` shows the hosts it finds.`,
  );
}

function closedError(): RelayError {
  return new RelayError('CANCELLED', 'This relay client was closed.');
}

/** Nobody listens at a host record's socket (the host crashed and left its record). */
class DeadSocketError extends Error {}

/** The host accepted the connection and closed it before its welcome (it is going away). */
class ClosedDuringHandshake extends RelayError {
  constructor() {
    super('EXTENSION_NOT_CONNECTED', 'The comet-relay host closed the connection during the handshake.');
  }
}
