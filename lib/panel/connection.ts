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
  /** Told what keeps the panel from showing the worker's state (undefined once a state shows again). */
  onProblem(listener: (problem: string | undefined) => void): () => void;
  request<M extends PanelMethod>(method: M, params?: PanelParams<M>): Promise<unknown>;
}

export function connectPanel(): PanelConnection {
  const listeners = new Set<(state: PanelState) => void>();
  const problemListeners = new Set<(problem: string | undefined) => void>();
  let problem: string | undefined;
  const setProblem = (next: string | undefined) => {
    if (next === problem) return;
    problem = next;
    for (const listener of problemListeners) listener(problem);
  };
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
        if (!state.success) {
          // The panel's page is read from disk each time it opens, the worker only on a reload: after an upgrade in
          // place the two are different builds, and waiting would say "Connecting…" for good (review 8, skew F1).
          // A state of the same build that breaks its own bounds is a fault of ours, which a reload would not mend.
          const issue = state.error.issues[0];
          setProblem(
            `This side panel cannot read the state the extension sends (${issue?.path.join('.') || 'the state'}: ${issue?.message}). If comet-relay was upgraded since the browser loaded it, the two are different builds: reload comet-relay on the browser's extensions page (or restart the browser), then open the panel again. If not, please report it. Until then this panel cannot show what agents do nor approve their calls: with Require approval on, held calls time out.`,
          );
          return;
        }
        setProblem(undefined);
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
    onProblem(listener) {
      problemListeners.add(listener);
      if (problem) listener(problem);
      return () => problemListeners.delete(listener);
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
