import type { PanelConnection } from '../../lib/panel/connection';
import { MODE_OPTIONS, modeDisabledReason, modeName } from '../../lib/panel/view';
import type { PanelState } from '../../lib/protocol/panel';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/**
 * The seven modes as a compact group of toggle buttons: the pressed one is the page's mode, live;
 * pressing another switches it through page.mode, the request comet_mode sends.
 */
export function ModeCard({ state, connection }: { state: PanelState; connection: PanelConnection }) {
  const { busy, error, held, run } = useAction();
  const { mode } = state;
  const disabled = modeDisabledReason(state);
  const switching = mode.switching;
  return (
    <section class="card" aria-labelledby="mode-heading">
      <h2 id="mode-heading">Mode</h2>
      <p class="muted small" data-testid="mode-current" data-mode={mode.current ?? ''} aria-live="polite">
        {switching
          ? `Switching to ${modeName(switching)}…`
          : mode.current
            ? `The page is in ${modeName(mode.current)} mode.`
            : state.perplexityTab
              ? `Mode not known yet${mode.detail ? `: ${mode.detail}` : '.'}`
              : ''}
      </p>
      <fieldset class="modes" aria-describedby={disabled ? 'mode-disabled' : undefined} aria-busy={busy || Boolean(switching)}>
        <legend class="visually-hidden">Switch the Perplexity mode</legend>
        {MODE_OPTIONS.map((option) => (
          <button
            key={option.value}
            type="button"
            class="mode"
            data-mode={option.value}
            aria-pressed={mode.current === option.value}
            disabled={Boolean(disabled)}
            // A switch under way (this panel's or an agent's) holds the buttons without taking their focus.
            {...(switching ? { 'aria-disabled': 'true' as const } : held)}
            onClick={() => !switching && void run(() => connection.request('panel.setMode', { mode: option.value }))}
          >
            {option.label}
          </button>
        ))}
      </fieldset>
      {disabled ? (
        <p id="mode-disabled" class="muted small" data-testid="mode-disabled">
          {disabled}
        </p>
      ) : null}
      <ErrorLine error={error || mode.error} testId="mode-error" />
    </section>
  );
}
