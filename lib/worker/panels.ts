import type { Runtime } from 'webextension-polyfill';
import { RelayError } from '../protocol/errors';
import { parseEnvelope } from '../protocol/messages';
import type { PanelState } from '../protocol/panel';

/**
 * Open side panels (each a runtime port). State is pushed on every change, coalesced to one
 * message per task so a burst of events costs one render.
 */
type Handler = (params: unknown) => Promise<unknown>;

export class PanelHub {
  private readonly ports = new Set<Runtime.Port>();
  private scheduled = false;

  constructor(
    private readonly snapshot: () => Promise<PanelState>,
    private readonly handlers: Record<string, Handler>,
  ) {}

  accept(port: Runtime.Port): void {
    this.ports.add(port);
    port.onDisconnect.addListener(() => this.ports.delete(port));
    port.onMessage.addListener((raw: unknown) => void this.receive(port, raw));
    this.push();
  }

  push(): void {
    if (this.scheduled || this.ports.size === 0) return;
    this.scheduled = true;
    setTimeout(async () => {
      this.scheduled = false;
      const state = await this.snapshot();
      for (const port of this.ports) port.postMessage({ kind: 'event', event: 'panel.state', data: state });
    }, 0);
  }

  private async receive(port: Runtime.Port, raw: unknown): Promise<void> {
    const parsed = parseEnvelope(raw);
    if (!parsed.ok || parsed.envelope.kind !== 'request') return;
    const { id, method, params } = parsed.envelope;
    const handler = this.handlers[method];
    try {
      if (!handler) throw new RelayError('INVALID_PARAMS', `The worker has no panel method "${method}".`);
      port.postMessage({ kind: 'result', id, result: await handler(params) });
    } catch (error) {
      port.postMessage({ kind: 'error', id, error: RelayError.from(error).toPayload() });
    }
  }
}
