import type { PanelConnection } from '../lib/panel/connection';
import { approvalSentence, formatClock } from '../lib/panel/view';
import type { PendingApproval } from '../lib/protocol/panel';
import { ErrorLine } from './ErrorLine';
import { useAction } from './useAction';

/** Agents' calls held for the person's decision, at the top of the panel while any wait. */
export function Approvals({ approvals, connection }: { approvals: PendingApproval[]; connection: PanelConnection }) {
  return (
    <section class="approvals" aria-labelledby="approvals-heading" aria-live="assertive" hidden={approvals.length === 0}>
      <h2 id="approvals-heading">Waiting for your approval ({approvals.length})</h2>
      <ul class="plain">
        {approvals.map((approval) => (
          <ApprovalItem key={approval.id} approval={approval} connection={connection} />
        ))}
      </ul>
    </section>
  );
}

function ApprovalItem({ approval, connection }: { approval: PendingApproval; connection: PanelConnection }) {
  const { busy, error, run } = useAction();
  const textId = `approval-${approval.id}`;
  const decide = (approve: boolean) => run(() => connection.request('panel.decide', { id: approval.id, approve }));
  return (
    <li class="approval" data-testid="approval">
      <p id={textId} class="approval-text">
        {approvalSentence(approval)}
      </p>
      <p class="muted small">
        {approval.tool ?? approval.method} · times out at {formatClock(approval.expiresAt)}
      </p>
      <div class="row">
        <button type="button" class="primary" disabled={busy} aria-describedby={textId} onClick={() => void decide(true)}>
          Approve
        </button>
        <button type="button" disabled={busy} aria-describedby={textId} onClick={() => void decide(false)}>
          Deny
        </button>
      </div>
      <ErrorLine error={error} />
    </li>
  );
}
