import type { PanelConnection } from '../../lib/panel/connection';
import { approvalFacts, approvalSentence, characterCount, formatClock, visibleText } from '../../lib/panel/view';
import type { PendingApproval } from '../../lib/protocol/panel';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

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
  const decide = (approve: boolean) => run(() => connection.request('panel.decide', { id: approval.id, approve, requestedAt: approval.requestedAt }));
  return (
    <li class="approval" data-testid="approval">
      <p id={textId} class="approval-text">
        {approvalSentence(approval)}
      </p>
      {approval.text ? (
        // All of it, never clipped: what is approved is what is read here (scrolls when long).
        <figure class="approval-full" data-testid="approval-full">
          <figcaption class="muted small">
            {approval.text.label}, in full ({characterCount(approval.text.body)}):
          </figcaption>
          <pre>
            {visibleText(approval.text.body)}
          </pre>
        </figure>
      ) : null}
      {approvalFacts(approval).map((fact) => (
        <p key={fact} class="small approval-fact" data-testid="approval-fact">
          {fact}
        </p>
      ))}
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
