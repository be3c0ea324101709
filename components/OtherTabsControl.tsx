import { allowOtherTabs, withdrawOtherTabs } from '../lib/panel/other-tabs';
import { useAction } from './useAction';

/** "Let agents read other tabs": the optional permission for tabs that are not Perplexity (and for screenshots). */
export function OtherTabsControl({ allowed }: { allowed: boolean }) {
  const { busy, error, run } = useAction();
  return (
    <div class="other-tabs" data-testid="other-tabs" data-allowed={String(allowed)}>
      {allowed ? (
        <button type="button" disabled={busy} aria-describedby="other-tabs-help" onClick={() => void run(withdrawOtherTabs)}>
          Stop letting agents read other tabs
        </button>
      ) : (
        // permissions.request must start inside the click: no await before it.
        <button type="button" disabled={busy} aria-describedby="other-tabs-help" onClick={() => void run(allowOtherTabs)}>
          Let agents read other tabs
        </button>
      )}
      <p id="other-tabs-help" class="muted small help">
        {allowed
          ? 'Agents may read and screenshot tabs that are not Perplexity; Read-only and Require approval still apply, and their text reaches agents marked as page content.'
          : 'Agents read only Perplexity, and take no screenshots (the browser allows captures only with access to all sites). The browser asks you to confirm.'}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
