import type { PanelConnection } from '../lib/panel/connection';
import type { ControlSettings } from '../lib/protocol/panel';
import { useAction } from './useAction';

const TIMEOUTS = [30, 60, 120, 300, 600];

/** The person's control over agents: approvals for prompts and mode switches, and read-only. */
export function ControlCard({ settings, connection }: { settings: ControlSettings; connection: PanelConnection }) {
  const { busy, error, run } = useAction();
  const set = (patch: Partial<ControlSettings>) => void run(() => connection.request('panel.setSettings', patch));
  const timeouts = TIMEOUTS.includes(settings.approvalTimeoutSec) ? TIMEOUTS : [...TIMEOUTS, settings.approvalTimeoutSec].sort((a, b) => a - b);
  return (
    <section class="card" aria-labelledby="control-heading">
      <h2 id="control-heading">Control</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={settings.requireApproval}
          disabled={busy}
          aria-describedby="approval-help"
          onChange={(e) => set({ requireApproval: (e.target as HTMLInputElement).checked })}
        />
        <span>Require approval</span>
      </label>
      <p id="approval-help" class="muted small help">
        An agent's prompt or mode switch waits until you approve it here.
      </p>
      <label class="row select">
        <span>Approval waits</span>
        <select
          value={String(settings.approvalTimeoutSec)}
          disabled={busy}
          onChange={(e) => set({ approvalTimeoutSec: Number((e.target as HTMLSelectElement).value) })}
        >
          {timeouts.map((s) => (
            <option key={s} value={String(s)}>
              {s < 60 ? `${s} s` : `${s / 60} min`}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={settings.readOnly}
          disabled={busy}
          aria-describedby="readonly-help"
          onChange={(e) => set({ readOnly: (e.target as HTMLInputElement).checked })}
        />
        <span>Read-only</span>
      </label>
      <p id="readonly-help" class="muted small help">
        Agents can read pages but every acting tool (ask, stop, mode, tabs, navigation) is refused.
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
