import { useEffect, useState } from 'preact/hooks';
import { finishFirstRun, firstRunDone, showFirstRun } from '../../lib/panel/first-run';
import { allowOtherTabs } from '../../lib/panel/other-tabs';
import { TAB_ACCESS_GRANT } from '../../lib/protocol/urls';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** Shown once in a new install: offers the one grant agents may need, named for both things it allows. */
export function FirstRunCard({ allowed }: { allowed: boolean }) {
  const [done, setDone] = useState<boolean | undefined>();
  const { busy, error, held, run } = useAction();
  useEffect(() => {
    firstRunDone().then(setDone, () => setDone(true));
  }, []);
  if (!showFirstRun(done, allowed)) return null;
  const finish = () => {
    setDone(true);
    void finishFirstRun().catch(() => {});
  };
  return (
    <section class="card first-run" aria-labelledby="first-run-heading" data-testid="first-run">
      <h2 id="first-run-heading">Screenshots and other tabs</h2>
      <p class="muted small">
        Agents already read and drive Perplexity here. Screenshots, even of the Perplexity tab, and reading your other tabs need one more
        grant: the browser lets an extension capture a tab only with access to all sites. You can take it back under Control.
      </p>
      <div class="row">
        {/* permissions.request must start inside the click: no await before it. */}
        <button type="button" {...held} onClick={() => void run(allowOtherTabs).then((ok) => ok && finish())}>
          {TAB_ACCESS_GRANT}
        </button>
        <button type="button" {...held} onClick={() => !busy && finish()}>
          Not now
        </button>
      </div>
      <ErrorLine error={error} />
    </section>
  );
}
