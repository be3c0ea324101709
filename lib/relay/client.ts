import fs from 'node:fs';
import net from 'node:net';
import type { z } from 'zod';
import { RelayError } from '../protocol/errors';
import { effectOf } from '../protocol/access';
import type { Door } from '../protocol/doors';
import { PROTOCOL_VERSION, refusalWords } from '../protocol/identity';
import type { CallOrigin, Envelope, Trace, Welcome } from '../protocol/messages';
import { hostMethods, type MethodName, type MethodParams, type MethodResult, methods } from '../protocol/methods';
import { traceClock } from '../protocol/ports';
import { FramedConnection } from './connection';
import { describeProfiles, type HostRecord, isProcessAlive, knownProfiles, listHosts, pickHost, removeHostRecord } from './discovery';
import { handshakeChallenge, provesHost } from './host-proof';
import { type Logger, silentLogger } from './logger';
import { hostRecordPath, hostsDir } from './paths';
import { checkSocketOwner } from './private-dir';
import { VERSION } from './version';
import { cliCommand } from './invocation';

/**
 * How EXTENSION_NOT_CONNECTED begins when no host of any browser is there at all (not a hung one, not another profile's):
 * the one case comet_ask starts a browser for (review 15d, F2: it started one for a hung host, every call).
 */
export const NO_BROWSER = 'No browser with the comet-relay extension is connected.';

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
/** Between tries at a host that refused: short, since a full queue drains in milliseconds. */
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 100;

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
    return answerOf('The browser', method, methods[method].result as z.ZodType, await this.request(method, params, options)) as MethodResult<M>;
  }

  async hostStatus(options: CallOptions = {}) {
    return answerOf('The comet-relay host', 'host.status', hostMethods['host.status'].result, await this.request('host.status', {}, options));
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    this.opening?.destroy(); // a connect in progress must not leave its socket open behind us
  }

  private async request(method: string, params: unknown, options: CallOptions): Promise<unknown> {
    if (options.signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before it started.');
    // Finding the host can take seconds (a browser starting): a caller that gave up meanwhile is not sent, and is told
    // it cancelled, not that no browser is there (which a comet_connect would answer by starting one: relay review R2).
    // The wait is shared by every call on this client; a cancelled one stops waiting at once (day-7f review G1).
    const connection = await untilAborted(this.ensureConnection(this.options.hostWaitMs ?? 3000), options.signal).catch((error: unknown) => {
      throw options.signal?.aborted ? new RelayError('CANCELLED', 'The call was cancelled while the browser was looked for.') : error;
    });
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
    // Records found dead in this connect: skipped from now on, even when their file could not be removed.
    const dead = new Set<string>();
    let unremoved: HostRecord | undefined;
    let retries = 0;
    for (;;) {
      if (this.closed) throw closedError();
      // The profiles hosts served before, read once a connect and only when a profile is named (only then does it matter).
      const known = this.options.profile ? knownProfiles(this.options.home) : [];
      const pickNow = () => pickHost(listHosts(this.options.home).filter((h) => !dead.has(recordKey(h))), this.options.profile, known);
      let pick = pickNow();
      // A name that fits several profiles is the caller's to make exact; waiting would not change that.
      // A named profile that is known but not running is waited for like no profile at all.
      while (!pick.host && pick.ambiguous.length === 0 && Date.now() < deadline && !this.closed) {
        await changeIn(hostsDir(this.options.home), Math.min(DISCOVERY_INTERVAL_MS, Math.max(0, deadline - Date.now())));
        pick = pickNow();
      }
      if (this.closed) throw closedError();
      if (pick.ambiguous && pick.ambiguous.length > 0) {
        throw new RelayError(
          'CONFIG_ERROR',
          `The profile name "${this.options.profile}" begins the names of ${pick.ambiguous.length} connected profiles: ${describeProfiles(pick.ambiguous)}. Name one exactly (its label or id) with --profile or COMET_RELAY_PROFILE.`,
        );
      }
      const host = pick.host;
      if (!host) throw this.noHostError(pick.notRunning, dead, unremoved);
      if (pick.byPrefix) this.log.warn('the profile name matched a connected profile by the beginning of its label', { named: this.options.profile, profile: host.profileLabel, id: host.profileId });
      checkSocketOwner(host.socketPath);
      const socket = net.connect(host.socketPath);
      this.opening = socket;
      try {
        return await this.handshakeOn(socket, host);
      } catch (error) {
        if (this.closed) throw closedError();
        const left = deadline - Date.now();
        if (error instanceof ClosedDuringHandshake && left > 0) {
          // A host dying this instant (killed, its browser closing) still accepts a connection
          // and drops it: wait for its record to go or a new host to replace it, within our wait.
          await changeIn(hostsDir(this.options.home), Math.min(DISCOVERY_INTERVAL_MS, left));
          continue;
        }
        if (error instanceof RefusedByLiveHost) {
          // A live host refuses when its listen queue is full (macOS, a burst of clients): busy, not dead. Try it again.
          if (left <= 0) throw refusingError(host);
          await pause(Math.min(RETRY_MIN_MS * 2 ** retries++, RETRY_MAX_MS, left));
          continue;
        }
        if (!(error instanceof DeadSocketError)) throw error;
        // A host that crashed can leave its record behind (its socket gone, or its pid gone since
        // the listing): forget that record and look again. Each dead record costs one try.
        dead.add(recordKey(host));
        if (removeHostRecord(this.options.home, host.profileId, host)) {
          this.log.warn('removed the record of a host that no longer listens', { profile: host.profileId, pid: host.pid });
        } else {
          unremoved = host;
          this.log.warn('could not remove the record of a host that no longer listens', { profile: host.profileId, pid: host.pid, folder: hostsDir(this.options.home) });
        }
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
        // Dead only with proof: the socket is gone, or a refusal that means nobody listens. On Linux it always does (a
        // full listen queue answers EAGAIN there, unix(7)), so a crashed host's record whose pid went to another process
        // goes; macOS and the BSDs refuse a full queue too, so there only a pid nobody has says the host is gone.
        const nobodyListens = process.platform === 'linux' || !isProcessAlive(host.pid);
        if (error.code === 'ENOENT' || (error.code === 'ECONNREFUSED' && nobodyListens)) reject(new DeadSocketError(error.message));
        else if (error.code === 'ECONNREFUSED' || error.code === 'EAGAIN') reject(new RefusedByLiveHost(error.message));
        else reject(new RelayError('EXTENSION_NOT_CONNECTED', `The comet-relay host for profile "${host.profileLabel}" did not accept a connection (${error.message}). Reload the extension or restart the browser; \`${cliCommand('doctor')}\` shows what is wrong.`));
      });
    });
    const challenge = handshakeChallenge();
    const welcomed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            hostFault(
              host,
              `did not answer the handshake within ${HELLO_TIMEOUT_MS / 1000} s: it may be hung or overloaded`,
              'Try again; if it keeps happening, reload the extension or restart the browser.',
            ),
          ),
        HELLO_TIMEOUT_MS,
      );
      this.handshake = {
        host,
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
    const pending = this.handshake;
    try {
      await welcomed;
      if (this.closed) throw closedError();
    } catch (error) {
      socket.destroy();
      throw error;
    } finally {
      // Over: a later event (a `protocol.invalid` about another frame) is the listeners', not this handshake's (day-7f G5).
      if (this.handshake === pending) this.handshake = undefined;
    }
    this.connection = connection;
    this.host = host;
    return connection;
  }

  private handshake?: { host: HostRecord; welcome(message: Welcome): void; reject(error: RelayError): void };

  private receive(message: Envelope): void {
    switch (message.kind) {
      case 'welcome':
        this.handshake?.welcome(message);
        return;
      case 'incompatible':
        // In our own words when the protocols differ: an older host's are from before this wording (skew F3).
        this.handshake?.reject(new RelayError('VERSION_MISMATCH', refusalWords('client', message)));
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
        // The host refused our hello itself: said now, with its reason, not as a host that never answered (relay review R1).
        if (this.handshake && message.event === 'protocol.invalid') {
          const problem = (message.data as { problem?: unknown } | undefined)?.problem;
          this.handshake.reject(new RelayError('PROTOCOL_ERROR', `The comet-relay host refused this connection's hello (${typeof problem === 'string' ? problem : 'no reason given'}). Install one version of comet-relay for the browser and this client, then call again.`));
          return;
        }
        for (const listener of this.listeners) listener(message.event, message.data);
        return;
      default:
        return;
    }
  }

  private onDisconnect(connection: FramedConnection): void {
    if (this.connection === connection) this.connection = undefined;
    if (this.handshake) this.handshake.reject(new ClosedDuringHandshake(this.handshake.host));
    for (const call of [...this.pending.values()]) {
      const message =
        effectOf(call.method) === 'send'
          ? lostSend(call.method, "the browser's comet-relay host went away")
          : `The browser's comet-relay host went away during ${call.method} (browser closed, extension reloaded or host restarted). Call again: the next call reconnects.`;
      call.reject(new RelayError('HOST_DISCONNECTED', message));
    }
  }

  private noHostError(notRunning: { profileId: string; profileLabel: string } | undefined, dead: Set<string>, unremoved?: HostRecord): RelayError {
    const error = this.noHostFound(notRunning, dead);
    if (!unremoved) return error;
    // That record will mislead every client and `doctor` until it goes: say where it is and why it stays.
    const file = hostRecordPath(this.options.home, unremoved.profileId);
    return new RelayError(
      error.code,
      `${error.message} The record of a host that no longer listens (profile "${unremoved.profileLabel}", pid ${unremoved.pid}) could not be removed: ${file}. ` +
        `Make the folder ${hostsDir(this.options.home)} writable by you (its permissions, a read-only mount or an immutable flag), or delete that file.`,
    );
  }

  private noHostFound(notRunning: { profileId: string; profileLabel: string } | undefined, dead: Set<string>): RelayError {
    const hosts = listHosts(this.options.home).filter((h) => !dead.has(recordKey(h))); // a dead record that stayed is not offered
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
      `${NO_BROWSER} Open the browser you installed it in (Comet, Chrome, Chromium, Edge or Brave) with the extension enabled; if it is open, run \`${cliCommand('doctor')}\` to see which link is broken.`,
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

/** A live host refused for longer than the call waits: busy or hung, and its record kept. */
function refusingError(host: HostRecord): RelayError {
  return hostFault(host, 'refuses connections: it may be overloaded or hung', 'Try again; if it keeps refusing, reload the extension or restart the browser.');
}

/** A host that is there but does not serve: which one (profile, pid), what it did, what to do, and where to look. */
function hostFault(host: HostRecord, what: string, todo: string): RelayError {
  return new RelayError(
    'EXTENSION_NOT_CONNECTED',
    `The comet-relay host of profile "${host.profileLabel}" (pid ${host.pid}) ${what}. ${todo} \`${cliCommand('doctor')}\` shows the hosts.`,
  );
}

/** Which record a host was: a new host of the same profile writes another (pid, port, start). */
function recordKey(host: HostRecord): string {
  return JSON.stringify([host.profileId, host.pid, host.portOpenedAt, host.startedAt, host.socketPath]);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Nobody listens at a host record's socket (the host crashed and left its record). */
class DeadSocketError extends Error {}

/** The socket is there and its pid is alive, but the connection was refused (a full listen queue). */
class RefusedByLiveHost extends Error {}

/** The host accepted the connection and closed it before its welcome (it is going away). */
class ClosedDuringHandshake extends RelayError {
  constructor(host: HostRecord) {
    const fault = hostFault(
      host,
      'closed the connection during the handshake: it may be stopping, or be from another version of comet-relay',
      'Reload the extension or restart the browser, then call again.',
    );
    super(fault.code, fault.message);
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise runs on for whoever else awaits it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RelayError('CANCELLED', 'The call was cancelled.'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * An answer in the shape its method promises, or PROTOCOL_ERROR in words: never a ZodError's dump of its issues
 * (review 8, errors #4). Two builds of comet-relay meet here after an upgrade that left one of them running.
 */
function answerOf<T>(who: string, method: string, shape: z.ZodType<T>, raw: unknown): T {
  const parsed = shape.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RelayError(
    'PROTOCOL_ERROR',
    `${who} answered ${method} with an unexpected shape (${issue?.path.join('.') || 'the answer'}: ${issue?.message}): most often two builds of comet-relay meeting after an upgrade. Reload the extension on the browser's extensions page (that starts its host again), and restart the MCP client or command that asked.`,
  );
}
