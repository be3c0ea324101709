import { ChunkAssembler } from '../../protocol/framing';
import { cliHint, type HostForm, NATIVE_HOST_NAME, refusalWords } from '../../protocol/identity';
import { checkEnvelope } from '../../protocol/envelope-check';
import type { Envelope, Hello } from '../../protocol/messages';
import { type BackoffPolicy, DEFAULT_BACKOFF, nextAttempt } from './backoff';

/**
 * The service worker's link to `comet-relay host`: connect, handshake, heartbeat, reconnect.
 * Status is honest: "connected" only after the host answered the handshake, and a missed
 * heartbeat tears the link down instead of pretending.
 */
export interface NativePort {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

export interface NativeLinkDeps {
  connectNative(name: string): NativePort;
  lastError(): string | undefined;
  scheduleAlarm(name: string, minutes: number): void;
  clearAlarm(name: string): void;
}

export type LinkState = 'connecting' | 'connected' | 'disconnected' | 'incompatible';

export interface LinkStatus {
  state: LinkState;
  /** Why the link is not connected, in words a person can act on. */
  detail?: string;
  hostVersion?: string;
  hostPid?: number;
  /**
   * The words that run comet-relay where the host was installed, from the last welcome that named
   * them (kept while the host is down, and across restarts by the worker's storage): every command
   * the extension prints is said with them (cliHint, lib/protocol/identity.ts).
   */
  form?: HostForm;
  since: number;
  failures: number;
}

export const RECONNECT_ALARM = 'comet-relay-reconnect';
/**
 * A link that was up for this long and dropped (the host crashed or was killed) is tried again at
 * once, not after the backoff's first delay: the browser starts a new host in ~100 ms, and an
 * agent's next call is waiting on it (host killed → next call). A host that dies sooner
 * after its handshake gets the backoff, so a broken host cannot make a spawn loop.
 */
export const QUICK_RETRY_AFTER_UP_MS = 1000;
const HANDSHAKE_TIMEOUT_MS = 5000;
const HEARTBEAT_INTERVAL_MS = 20_000;
const HEARTBEAT_TIMEOUT_MS = 10_000;

export class NativeLink {
  private port?: NativePort;
  private status: LinkStatus = { state: 'disconnected', since: Date.now(), failures: 0 };
  private retryTimer?: ReturnType<typeof setTimeout>;
  private handshakeTimer?: ReturnType<typeof setTimeout>;
  private heartbeatTimer?: ReturnType<typeof setInterval>;
  private lastPong = 0;
  /** Stamps every port's hello, later for each port, so the host can tell which of two is the browser's. */
  private lastPortOpenedAt = 0;
  private readonly assembler = new ChunkAssembler();
  /** The browser's words for the last disconnect, to say its fix again once the form is known. */
  private lastDisconnect?: string;

  constructor(
    private readonly deps: NativeLinkDeps,
    private readonly hello: () => Promise<Hello>,
    private readonly handlers: { onMessage(message: Envelope): void; onStatus(status: LinkStatus): void },
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF,
  ) {}

  get current(): LinkStatus {
    return this.status;
  }

  /** Connects unless already connected or connecting. Safe to call from any wake-up event. */
  start(): void {
    if (this.port) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    void this.connect();
  }

  send(message: Envelope): boolean {
    if (!this.port || this.status.state !== 'connected') return false;
    try {
      this.port.postMessage(message);
      return true;
    } catch {
      return false; // the port died a moment ago; its onDisconnect is on the way
    }
  }

  /** The form kept from an earlier run, until a host says its own; a fault already shown is said again in it. */
  rememberForm(form: HostForm): void {
    if (this.status.form !== undefined) return;
    const again = this.status.state === 'disconnected' && this.lastDisconnect !== undefined;
    this.setStatus({ form, ...(again ? { detail: describeDisconnect(this.lastDisconnect as string, form) } : {}) });
  }

  /** Drops the current connection and connects again at once (the panel's "Reconnect"). */
  restart(): void {
    this.teardown();
    this.status = { ...this.status, failures: 0 };
    this.start();
  }

  private async connect(): Promise<void> {
    this.setStatus({ state: 'connecting', detail: undefined });
    let port: NativePort;
    try {
      port = this.deps.connectNative(NATIVE_HOST_NAME);
    } catch (error) {
      this.failed(`connectNative threw: ${(error as Error).message}`);
      return;
    }
    this.port = port;
    this.lastPortOpenedAt = Math.max(Date.now(), this.lastPortOpenedAt + 1);
    const portOpenedAt = this.lastPortOpenedAt;
    port.onMessage.addListener((raw) => this.receive(port, raw));
    port.onDisconnect.addListener(() => {
      if (this.port !== port) return;
      const reason = this.deps.lastError() ?? 'the host exited';
      this.lastDisconnect = reason;
      this.teardown();
      this.failed(describeDisconnect(reason, this.status.form));
    });
    this.handshakeTimer = setTimeout(() => {
      if (this.port !== port || this.status.state === 'connected') return;
      this.teardown(port);
      this.failed('the host did not answer the handshake within 5 s');
    }, HANDSHAKE_TIMEOUT_MS);
    let hello: Hello;
    try {
      hello = await this.hello();
    } catch (error) {
      if (this.port !== port) return;
      this.teardown(port);
      this.failed(`could not prepare the handshake: ${(error as Error).message}`);
      return;
    }
    // A restart or a disconnect while the hello was being built: this port is gone, and using a
    // disconnected port throws. The newer attempt (if any) sends its own hello.
    if (this.port !== port) return;
    try {
      port.postMessage({ ...hello, portOpenedAt } satisfies Hello);
    } catch (error) {
      this.teardown(port);
      this.failed(`the host port closed before the handshake: ${(error as Error).message}`);
    }
  }

  private receive(port: NativePort, raw: unknown): void {
    if (this.port !== port) return;
    let value = raw;
    const parsed = checkEnvelope(value);
    if (!parsed.ok) return; // a host of another version may send shapes we do not know; ignore them
    let message = parsed.envelope;
    if (message.kind === 'chunk') {
      const whole = this.assembler.add(message);
      if (!whole?.ok) return;
      value = whole.value;
      const inner = checkEnvelope(value);
      if (!inner.ok) return;
      message = inner.envelope;
    }
    switch (message.kind) {
      case 'welcome':
        clearTimeout(this.handshakeTimer);
        this.deps.clearAlarm(RECONNECT_ALARM);
        this.lastPong = Date.now();
        this.lastDisconnect = undefined;
        this.startHeartbeat(port);
        // A host too old to name its form leaves the one last known.
        this.setStatus({ state: 'connected', detail: undefined, hostVersion: message.version, hostPid: message.pid, failures: 0, ...(message.command ? { form: { command: message.command, ...(message.home ? { home: message.home } : {}) } } : {}) });
        return;
      case 'incompatible':
        this.teardown(port);
        this.setStatus({ state: 'incompatible', detail: refusalWords('extension', message), hostVersion: message.version });
        this.deps.scheduleAlarm(RECONNECT_ALARM, this.policy.slowRetryMinutes);
        return;
      case 'pong':
        this.lastPong = Date.now();
        return;
      default:
        this.handlers.onMessage(message);
    }
  }

  private startHeartbeat(port: NativePort): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => {
      if (this.port !== port) return;
      if (Date.now() - this.lastPong > HEARTBEAT_INTERVAL_MS + HEARTBEAT_TIMEOUT_MS) {
        this.teardown(port);
        this.failed('the host stopped answering heartbeats');
        return;
      }
      try {
        port.postMessage({ kind: 'ping', t: Date.now() });
      } catch {
        // The port died a moment ago; its onDisconnect is on the way (worker review F6).
      }
    }, HEARTBEAT_INTERVAL_MS);
  }

  private teardown(port = this.port): void {
    if (!port || port !== this.port) return;
    this.port = undefined;
    clearTimeout(this.handshakeTimer);
    clearInterval(this.heartbeatTimer);
    try {
      port.disconnect();
    } catch {
      // already gone
    }
  }

  private failed(detail: string): void {
    if (this.status.state === 'connected' && Date.now() - this.status.since >= QUICK_RETRY_AFTER_UP_MS) {
      this.setStatus({ state: 'disconnected', detail });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.start();
      }, 0);
      return;
    }
    const failures = this.status.failures + 1;
    this.setStatus({ state: 'disconnected', detail, failures });
    const next = nextAttempt(failures, this.policy);
    if (next.kind === 'timer') {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.start();
      }, next.delayMs);
    } else {
      this.deps.scheduleAlarm(RECONNECT_ALARM, next.minutes);
    }
  }

  private setStatus(patch: Partial<LinkStatus>): void {
    const stateChanged = patch.state !== undefined && patch.state !== this.status.state;
    this.status = { ...this.status, ...patch, since: stateChanged ? Date.now() : this.status.since };
    this.handlers.onStatus(this.status);
  }
}

/** Turns Chromium's terse disconnect reasons into what the person should do, in the host's command form when known. */
export function describeDisconnect(reason: string, form?: HostForm): string {
  if (/not found/i.test(reason)) {
    return `${reason} The native host is not registered for this browser: run ${cliHint('install', form)}, then ${form ? cliHint('doctor', form) : '`doctor` the same way'}.`;
  }
  if (/forbidden/i.test(reason)) {
    return `${reason} The host manifest does not admit this extension's ID: run ${cliHint('install', form)} again.`;
  }
  if (/exited|failed to start/i.test(reason)) {
    return `${reason} The host stopped; see its log (${cliHint('doctor', form)} prints where).`;
  }
  return reason;
}
