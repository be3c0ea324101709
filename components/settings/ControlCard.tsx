import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { PanelConnection } from '../../lib/panel/connection';
import type { ControlSettings } from '../../lib/protocol/panel';
import { ErrorLine } from '../common/ErrorLine';
import { PUBLIC_SCREENSHOTS_SETTING } from '../../lib/protocol/access';
import { PUBLIC_LIBRARY_SETTING } from '../../lib/protocol/library/library';
import { OtherTabsControl } from './OtherTabsControl';
import { useAction } from '../common/useAction';

const TIMEOUTS = [30, 60, 120, 300, 600];

/** The person's control over agents: approvals for prompts and mode switches, and read-only. */
export function ControlCard({
  settings: pushed,
  otherTabs,
  connection,
}: { settings: ControlSettings; otherTabs: { allowed: boolean }; connection: PanelConnection }) {
  const { busy, error, held, run } = useAction();
  // What the person just chose shows at once; the worker's push then confirms it (or, on an
  // error, the pushed value comes back).
  const [draft, setDraft] = useState<Partial<ControlSettings>>({});
  useEffect(() => {
    setDraft((d) => Object.fromEntries(Object.entries(d).filter(([key, value]) => pushed[key as keyof ControlSettings] !== value)));
  }, [pushed]);
  const settings = { ...pushed, ...draft };
  const set = async (patch: Partial<ControlSettings>) => {
    setDraft((d) => ({ ...d, ...patch }));
    if (!(await run(() => connection.request('panel.setSettings', patch)))) setDraft({});
  };
  const timeouts = TIMEOUTS.includes(settings.approvalTimeoutSec) ? TIMEOUTS : [...TIMEOUTS, settings.approvalTimeoutSec].sort((a, b) => a - b);
  return (
    <section class="card" aria-labelledby="control-heading">
      <h2 id="control-heading">Control</h2>
      <SettingCheck id="approval" checked={settings.requireApproval} busy={busy} label="Require approval" onChange={(on) => void set({ requireApproval: on })}>
        An agent's prompt, mode switch or reading of another tab waits until you approve it here.
      </SettingCheck>
      <label class="row select">
        <span>Approval waits</span>
        <select
          value={String(settings.approvalTimeoutSec)}
          {...held}
          onChange={(e) => {
            const select = e.target as HTMLSelectElement;
            // Not taken while the last change is saved: the list shows the value that holds.
            if (busy) select.value = String(settings.approvalTimeoutSec);
            else void set({ approvalTimeoutSec: Number(select.value) });
          }}
        >
          {timeouts.map((s) => (
            <option key={s} value={String(s)}>
              {s < 60 ? `${s} s` : `${s / 60} min`}
            </option>
          ))}
        </select>
      </label>
      <SettingCheck id="readonly" checked={settings.readOnly} busy={busy} label="Read-only" onChange={(on) => void set({ readOnly: on })}>
        Agents can read Perplexity but every acting tool (ask, stop, mode, tabs, navigation) and reading other tabs is refused.
      </SettingCheck>
      <OtherTabsControl allowed={otherTabs.allowed} />
      <SettingCheck
        id="public-screenshots"
        testId="public-screenshots"
        checked={settings.publicScreenshots}
        busy={busy}
        label={PUBLIC_SCREENSHOTS_SETTING}
        onChange={(on) => void set({ publicScreenshots: on })}
      >
        Callers through the public door (the Agent API, <code>serve --public-url</code>) may take screenshots of the Perplexity tab, once screenshots are allowed above. They never see the tab list or other tabs.
      </SettingCheck>
      <SettingCheck
        id="public-library"
        testId="public-library"
        checked={settings.publicLibrary}
        busy={busy}
        label={PUBLIC_LIBRARY_SETTING}
        onChange={(on) => void set({ publicLibrary: on })}
      >
        Callers through the public door may list and search your threads and read any of them whole. Off, they see only the thread in the Perplexity tab.
      </SettingCheck>
      <ErrorLine error={error} />
    </section>
  );
}

/**
 * One on/off setting: its box, its name, and a line saying what it does (the box is described by that line). While a
 * change is saved (`busy`) the box stays focusable and a press is not taken (useAction's `held`).
 */
function SettingCheck({
  id,
  testId,
  checked,
  busy,
  label,
  onChange,
  children,
}: { id: string; testId?: string; checked: boolean; busy: boolean; label: string; onChange(on: boolean): void; children: ComponentChildren }) {
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          checked={checked}
          aria-disabled={busy ? 'true' : undefined}
          aria-describedby={`${id}-help`}
          data-testid={testId}
          onClick={(e) => busy && e.preventDefault()}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
        />
        <span>{label}</span>
      </label>
      <p id={`${id}-help`} class="muted small help">
        {children}
      </p>
    </>
  );
}
