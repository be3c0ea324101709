import type { Runtime } from 'webextension-polyfill';
import { RelayError } from '../protocol/errors';
import { checkEnvelope } from '../protocol/envelope-check';
import type { Envelope, Trace } from '../protocol/messages';
import type { PageReady } from '../protocol/ports';

/**
 * The content scripts of Perplexity tabs, each connected by its own runtime port. Requests to a
 * page get their own ids on this hop; cancellations follow them; a page that goes away fails its
 * open requests instead of leaving them hanging.
 */
export interface PageState extends PageReady {
  tabId: number;
}

interface OpenRequest {
  /** The port the request went out on: only that port can answer it. */
  port: Runtime.Port;
  onProgress(message: string): void;
  resolve(value: unknown, trace?: Trace): void;
  reject(error: RelayError): void;
}

export class PageHub {
  private readonly ports = new Map<number, Runtime.Port>();
  private readonly states = new Map<number, PageState>();
  private readonly open = new Map<string, OpenRequest>();
  private readonly waiters = new Set<{ tabId: number; resolve(): void }>();
  private sequence = 0;

  constructor(private readonly onChange: (tabId: number) => void) {}

  accept(port: Runtime.Port): void {
    const tabId = port.sender?.tab?.id;
    if (tabId === undefined) {
      port.disconnect();
      return;
    }
    const replaced = this.ports.get(tabId);
    if (replaced) {
      // Disconnecting our own end fires no onDisconnect here: fail its open requests ourselves.
      replaced.disconnect();
      this.failOpen(replaced, 'The Perplexity page reloaded or reconnected during the call. Call again.');
    }
    this.ports.set(tabId, port);
    port.onMessage.addListener((raw: unknown) => this.receive(tabId, port, raw));
    port.onDisconnect.addListener(() => {
      this.failOpen(port, 'The Perplexity page was closed or reloaded during the call. Call again.');
      if (this.ports.get(tabId) !== port) return;
      this.ports.delete(tabId);
      this.states.delete(tabId);
      this.onChange(tabId);
    });
  }

  /** Rejects every request still waiting on `port`, which will never answer them. */
  private failOpen(port: Runtime.Port, message: string): void {
    for (const [id, request] of this.open) {
      if (request.port !== port) continue;
      this.open.delete(id);
      request.reject(new RelayError('NO_PERPLEXITY_TAB', message));
    }
  }

  /** Before a full navigation: the old page's state must not answer for the new one. */
  forget(tabId: number): void {
    this.states.delete(tabId);
  }

  state(tabId: number): PageState | undefined {
    return this.states.get(tabId);
  }

  connectedTabs(): number[] {
    return [...this.ports.keys()];
  }

  /** A push to one page (a page that just went away misses it, which is fine: it is gone). */
  send(tabId: number, message: Envelope): void {
    try {
      this.ports.get(tabId)?.postMessage(message);
    } catch {
      // disconnected meanwhile; its onDisconnect cleans up
    }
  }

  /** A push to every connected page. */
  broadcast(message: Envelope): void {
    for (const tabId of this.ports.keys()) this.send(tabId, message);
  }

  /** Resolves once the tab's content script has said it is ready (or rejects after `timeoutMs`). */
  async whenReady(tabId: number, timeoutMs: number): Promise<void> {
    if (this.states.has(tabId)) return;
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        tabId,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new RelayError('NO_PERPLEXITY_TAB', `The Perplexity page in tab ${tabId} did not load its comet-relay script within ${timeoutMs} ms. Reload the tab.`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** `trace`, when given, receives the page's own time and this port's round trip (`port`), in ms. */
  request(tabId: number, method: string, params: unknown, signal: AbortSignal, onProgress: (message: string) => void, trace?: Trace): Promise<unknown> {
    const port = this.ports.get(tabId);
    if (!port) {
      return Promise.reject(new RelayError('NO_PERPLEXITY_TAB', `Tab ${tabId} has no comet-relay page script. Open or reload a perplexity.ai tab.`));
    }
    // Cancelled while the worker looked for the tab or waited for its script: never start it.
    if (signal.aborted) return Promise.reject(new RelayError('CANCELLED', 'The call was cancelled.'));
    const id = `p${++this.sequence}`;
    const started = trace ? performance.now() : 0;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        port.postMessage({ kind: 'cancel', id } satisfies Envelope);
        finish();
        reject(new RelayError('CANCELLED', 'The call was cancelled.'));
      };
      const finish = () => {
        this.open.delete(id);
        signal.removeEventListener('abort', onAbort);
      };
      this.open.set(id, {
        port,
        onProgress,
        resolve: (value, pageTrace) => {
          finish();
          if (trace) Object.assign(trace, pageTrace, { port: performance.now() - started });
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      port.postMessage({ kind: 'request', id, method, params, ...(trace ? { trace: true as const } : {}) } satisfies Envelope);
    });
  }

  private receive(tabId: number, port: Runtime.Port, raw: unknown): void {
    const parsed = checkEnvelope(raw);
    if (!parsed.ok) return;
    const message = parsed.envelope;
    // A reply answers only a request that went out on the same port; anything else is dropped.
    const request = 'id' in message ? this.open.get(message.id) : undefined;
    const mine = request?.port === port ? request : undefined;
    switch (message.kind) {
      case 'result':
        mine?.resolve(message.result, message.trace);
        return;
      case 'error':
        mine?.reject(new RelayError(message.error.code, message.error.message));
        return;
      case 'progress':
        mine?.onProgress(message.message);
        return;
      case 'event':
        if (message.event === 'page.ready' || message.event === 'page.navigated') {
          this.states.set(tabId, { tabId, ...(message.data as PageReady) });
          for (const waiter of [...this.waiters]) {
            if (waiter.tabId !== tabId) continue;
            this.waiters.delete(waiter);
            waiter.resolve();
          }
        }
        this.onChange(tabId);
        return;
      default:
        return;
    }
  }
}
