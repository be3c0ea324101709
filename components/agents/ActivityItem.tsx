import { activityOutcome, activityPhase, formatClock } from '../../lib/panel/view';
import type { ActivityEntry, PendingApproval } from '../../lib/protocol/panel';

const MARK = { running: '…', approval: '?', ok: '✓', error: '✗' } as const;

/** One call: tool and client, the arguments' summary, then how it ended and how long it took. */
export function ActivityItem({ entry, approvals }: { entry: ActivityEntry; approvals: PendingApproval[] }) {
  const phase = activityPhase(entry, approvals);
  return (
    <li class={`entry entry-${phase}`} data-testid="activity-entry" data-tool={entry.tool} data-phase={phase}>
      <div class="row spread">
        <span>
          <span class="mark" aria-hidden="true">
            {MARK[phase]}
          </span>{' '}
          <strong class="tool">{entry.tool}</strong> <span class="muted">· {entry.clientName}</span>
        </span>
        <time class="muted small" dateTime={new Date(entry.startedAt).toISOString()}>
          {formatClock(entry.startedAt)}
        </time>
      </div>
      {entry.summary ? <p class="summary">{entry.summary}</p> : null}
      <p class={`outcome small ${phase === 'error' ? 'error' : 'muted'}`} data-testid="activity-outcome">
        <span class="visually-hidden">{phase === 'ok' ? 'Succeeded: ' : phase === 'error' ? 'Failed: ' : ''}</span>
        {activityOutcome(entry, phase)}
        <span class="muted"> ({entry.method})</span>
      </p>
    </li>
  );
}
