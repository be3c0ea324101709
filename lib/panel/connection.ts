import { browser } from 'wxt/browser';
import { RelayError } from '../protocol/errors';
import { parseEnvelope } from '../protocol/messages';
import { type PanelMethod, type PanelParams, PanelState } from '../protocol/panel';
import { PANEL_PORT } from '../protocol/ports';

/**
 * The side panel's port to the service worker: state arrives as pushes; actions are requests.
 * Reconnects if the worker restarts, so an open panel never goes stale.
 */
export interface PanelConnection {
  subscribe(listener: (state: PanelState) => void): () => void;
  request<M extends PanelMethod>(method: M, params?: PanelParams<M>): Promise<unknown>;
}

export function connectPanel(): PanelConnection {
  const listeners = new Set<(state: PanelState) => void>();
  const open = new Map<string, { resolve(v: unknown): void; reject(e: Error): void }>();
  let latest: PanelState | undefined;
  let sequence = 0;
  let port = connect();

  function connect() {
    const next = browser.runtime.connect({ name: PANEL_PORT });
    next.onMessage.addListener((raw: unknown) => {
      const parsed = parseEnvelope(raw);
      if (!parsed.ok) return;
      const message = parsed.envelope;
      if (message.kind === 'event' && message.event === 'panel.state') {
        const state = PanelState.safeParse(message.data);
        if (!state.success) return;
        latest = state.data;
        for (const listener of listeners) listener(state.data);
      } else if (message.kind === 'result') {
        open.get(message.id)?.resolve(message.result);
        open.delete(message.id);
      } else if (message.kind === 'error') {
        open.get(message.id)?.reject(new RelayError(message.error.code, message.error.message, message.error.data));
        open.delete(message.id);
      }
    });
    next.onDisconnect.addListener(() => {
      for (const pending of open.values()) pending.reject(new Error('The extension restarted; try again.'));
      open.clear();
      setTimeout(() => {
        port = connect();
      }, 200);
    });
    return next;
  }

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (latest) listener(latest);
      return () => listeners.delete(listener);
    },
    request(method, params) {
      const id = `panel-${++sequence}`;
      return new Promise((resolve, reject) => {
        open.set(id, { resolve, reject });
        try {
          port.postMessage({ kind: 'request', id, method, params: params ?? {} });
        } catch {
          // The worker restarted a moment ago and the panel reconnects within 200 ms (worker review F3).
          open.delete(id);
          reject(new Error('The extension restarted; try again.'));
        }
      });
    },
  };
}
