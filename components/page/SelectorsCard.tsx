import { formatClock } from '../../lib/panel/view';
import { cliHintCommand, cliHintNote, type HostForm, withCliForm } from '../../lib/protocol/identity';
import type { PackView, PageProblem } from '../../lib/protocol/panel';

/**
 * What the page was not understood by (the probe of the last call that missed), the selector sets
 * and thread readers added as files, the readers the thread tabs use (built-in or from a file), and
 * the files that could not be used. Shown only when there is something to say.
 */
export function SelectorsCard({ packs, problem, form }: { packs: PackView; problem: PageProblem | null; form?: HostForm | undefined }) {
  if (!problem && packs.added.length === 0 && packs.problems.length === 0) return null;
  return (
    <section class="card" aria-labelledby="selectors-heading">
      <h2 id="selectors-heading">Selector sets and readers</h2>
      {problem ? (
        <div class="detail" role="alert" data-testid="page-problem" data-probe={problem.probe}>
          <strong>The page was not understood</strong> ({problem.method}, {formatClock(problem.at)}): <code>{withCliForm(problem.message, form)}</code>
          <br />
          <span class="muted">
            <code>{cliHintCommand('doctor --page', form)}</code> lists every probe; <code>{cliHintCommand('capture', form)}</code> saves the page for a bug
            report; <code>{cliHintCommand('selectors add FILE', form)}</code> installs a fixed set, no reload needed{cliHintNote(undefined, form, true)}.
          </span>
        </div>
      ) : null}
      {packs.added.length > 0 ? (
        <ul class="plain small" data-testid="added-sets">
          {packs.added.map((pack) => (
            <li key={`${pack.kind}:${pack.name}`}>
              <code>{pack.name}</code> <span class="muted">from {pack.source}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {packs.added.some((pack) => packs.readers.some((r) => r.kind === pack.kind)) ? (
        <ul class="plain small" data-testid="readers-in-use">
          {packs.readers.map((r) => (
            <li key={r.kind}>
              {r.noun}: <code>{r.name}</code> <span class="muted">{r.source === 'built-in' ? 'built-in' : `from ${r.source}`}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {packs.problems.length > 0 ? (
        <ul class="plain small error" data-testid="skipped-sets">
          {packs.problems.map((p) => (
            <li key={p.source}>
              Skipped <code>{p.source}</code>: {withCliForm(p.reason, form)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
