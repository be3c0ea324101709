import type { PanelConnection } from '../../lib/panel/connection';
import type { RepairView } from '../../lib/protocol/panel';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/**
 * The repair the driven tab reads through (issue 24): the page changed, and selectors found again
 * from the thread JSON read it. Which probes it replaced, on which page; *Undo* drops it (the reader
 * misses again); *Export as pack* saves the file `comet-relay selectors add` takes, so the repair
 * can be shared and kept.
 */
export function RepairCard({ repair, connection }: { repair: RepairView | null | undefined; connection: PanelConnection }) {
  const { error, held, run } = useAction();
  if (!repair) return null;
  const exportPack = () => {
    const blob = new Blob([`${JSON.stringify(repair.pack, null, 2)}\n`], { type: 'application/json' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `${repair.name}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  return (
    <section class="card" aria-labelledby="repair-heading" data-testid="repair">
      <h2 id="repair-heading">Reading through a repair</h2>
      <p class="detail">
        The page changed: this tab is read with selectors {repair.origin}. Only reading uses them; nothing is typed or clicked through them.
      </p>
      <ul class="plain small" data-testid="repair-probes">
        {Object.entries(repair.replaced).map(([probe, rule]) => (
          <li key={probe}>
            <code>{probe}</code> <span class="muted">→</span> <code>{rule}</code>
          </li>
        ))}
      </ul>
      <div class="row">
        <button type="button" {...held} data-testid="repair-undo" onClick={() => void run(() => connection.request('panel.undoRepair', {}))}>
          Undo
        </button>
        <button type="button" data-testid="repair-export" onClick={exportPack}>
          Export as pack
        </button>
      </div>
      <ErrorLine error={error} testId="repair-error" />
    </section>
  );
}
