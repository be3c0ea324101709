import type { Runtime } from 'webextension-polyfill';
import { RelayError } from '../../protocol/errors';
import { parseEnvelope } from '../../protocol/messages';
import { type PanelMethod, type PanelState, panelMethods } from '../../protocol/panel';

/**
 * Open side panels (each a runtime port). State is pushed on every change, coalesced to one
 * message per task so a burst of events costs one render. Requests from a panel are parsed with
 * their schema here, at the edge, before a handler sees them.
 */
type Handler = (params: never) => Promise<unknown>;
export type PanelHandlers = { [M in PanelMethod]: Handler };

export class PanelHub {
  private readonly ports = new Set<Runtime.Port>();
  private scheduled = false;

  constructor(
    private readonly snapshot: () => Promise<PanelState>,
    private readonly handlers: PanelHandlers,
    /** Told how many panels are open whenever one opens or closes. */
    private readonly onPresence: (count: number) => void = () => {},
  ) {}

  get open(): number {
    return this.ports.size;
  }

  accept(port: Runtime.Port): void {
    this.ports.add(port);
    port.onDisconnect.addListener(() => {
      this.ports.delete(port);
      this.onPresence(this.ports.size);
    });
    port.onMessage.addListener((raw: unknown) => void this.receive(port, raw));
    this.onPresence(this.ports.size);
    this.push();
  }

  push(): void {
    if (this.scheduled || this.ports.size === 0) return;
    this.scheduled = true;
    setTimeout(async () => {
      this.scheduled = false;
      const state = await this.snapshot().catch(() => undefined);
      if (state === undefined) return; // the next change pushes again
      for (const port of this.ports) {
        try {
          port.postMessage({ kind: 'event', event: 'panel.state', data: state });
        } catch {
          // That panel closed this moment (its onDisconnect is on the way): the others still get the state (worker review F3).
        }
      }
    }, 0);
  }

  private async receive(port: Runtime.Port, raw: unknown): Promise<void> {
    const parsed = parseEnvelope(raw);
    if (!parsed.ok || parsed.envelope.kind !== 'request') return;
    const { id, method, params } = parsed.envelope;
    const reply = (message: unknown) => {
      try {
        port.postMessage(message);
      } catch {
        // the panel closed meanwhile
      }
    };
    try {
      if (!Object.hasOwn(panelMethods, method)) throw new RelayError('INVALID_PARAMS', `The worker has no panel method "${method}".`);
      const schema = panelMethods[method as PanelMethod].params;
      const checked = schema.safeParse(params ?? {});
      if (!checked.success) {
        const issue = checked.error.issues[0];
        throw new RelayError('INVALID_PARAMS', `${method}: ${issue?.path.join('.') || 'params'}: ${issue?.message}`);
      }
      const handler = this.handlers[method as PanelMethod] as (params: unknown) => Promise<unknown>;
      reply({ kind: 'result', id, result: await handler(checked.data) });
    } catch (error) {
      reply({ kind: 'error', id, error: RelayError.from(error).toPayload() });
    }
  }
}
