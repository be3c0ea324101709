import type { PanelConnection } from '../../lib/panel/connection';
import type { ActivityEntry, PendingApproval } from '../../lib/protocol/panel';
import { ActivityItem } from './ActivityItem';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** The live feed of agents' tool calls for this browser session, newest first; clearable. */
export function ActivityCard({
  activity,
  approvals,
  connection,
}: {
  activity: ActivityEntry[];
  approvals: PendingApproval[];
  connection: PanelConnection;
}) {
  const clear = useAction();
  return (
    <section class="card" aria-labelledby="activity-heading">
      <div class="row spread">
        <h2 id="activity-heading">Activity ({activity.length})</h2>
        <button
          type="button"
          class="link"
          aria-label="Clear activity"
          disabled={activity.length === 0}
          {...clear.held}
          onClick={() => void clear.run(() => connection.request('panel.clearActivity'))}
        >
          Clear
        </button>
      </div>
      <ErrorLine error={clear.error} testId="activity-clear-error" />
      {activity.length === 0 ? (
        <p class="muted" data-testid="no-activity">
          No tool calls yet in this browser session.
        </p>
      ) : (
        <div role="log" aria-labelledby="activity-heading">
          <ol class="plain feed" data-testid="activity">
            {activity.map((entry) => (
              <ActivityItem key={entry.id} entry={entry} approvals={approvals} />
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
