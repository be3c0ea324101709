import { allowOtherTabs, withdrawOtherTabs } from '../../lib/panel/other-tabs';
import { TAB_ACCESS_GRANT, TAB_ACCESS_WITHDRAW } from '../../lib/protocol/urls';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** The optional permission for screenshots and for tabs that are not Perplexity (TAB_ACCESS_GRANT). */
export function OtherTabsControl({ allowed }: { allowed: boolean }) {
  const { error, held, run } = useAction();
  return (
    <div class="other-tabs" data-testid="other-tabs" data-allowed={String(allowed)}>
      {allowed ? (
        <button type="button" {...held} aria-describedby="other-tabs-help" onClick={() => void run(withdrawOtherTabs)}>
          {TAB_ACCESS_WITHDRAW}
        </button>
      ) : (
        // permissions.request must start inside the click: no await before it.
        <button type="button" {...held} aria-describedby="other-tabs-help" onClick={() => void run(allowOtherTabs)}>
          {TAB_ACCESS_GRANT}
        </button>
      )}
      <p id="other-tabs-help" class="muted small help">
        {allowed
          ? 'Agents may take screenshots and read tabs that are not Perplexity; Read-only and Require approval still apply, and that text reaches agents marked as page content.'
          : 'Agents read only Perplexity and take no screenshots, not even of Perplexity: the browser allows captures only with access to all sites. The browser asks you to confirm.'}
      </p>
      <ErrorLine error={error} />
    </div>
  );
}
