import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PanelConnection } from '../../lib/panel/connection';
import { approvalFacts, approvalSentence, characterCount, formatClock, visibleText } from '../../lib/panel/view';
import type { PendingApproval } from '../../lib/protocol/panel';
import { ErrorLine } from '../common/ErrorLine';
import { useAction } from '../common/useAction';

/** How long the outcome of a click whose card went meanwhile stays on screen. */
const LATE_NOTICE_MS = 10_000;

/** Agents' calls held for the person's decision, at the top of the panel while any wait. */
export function Approvals({ approvals, connection }: { approvals: PendingApproval[]; connection: PanelConnection }) {
  // A click that lands as its card goes (timed out, its client gave up) is told here, not in the card that the same
  // moment removes: a card that simply vanishes looks like an approval that went through (review 2026-12-05, panel #5).
  const [late, setLate] = useState<string | undefined>();
  useEffect(() => {
    if (!late) return;
    const timer = setTimeout(() => setLate(undefined), LATE_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [late]);
  // The card whose button the person pressed: once it is gone, taking the focus with it, the focus goes to the next
  // card's Approve, else to the panel's heading, never to the top of the page (review 15f, F6).
  const pressed = useRef<string | undefined>(undefined);
  const list = useRef<HTMLUListElement>(null);
  useLayoutEffect(() => {
    if (pressed.current === undefined || approvals.some((a) => a.id === pressed.current)) return;
    pressed.current = undefined;
    if (document.activeElement && document.activeElement !== document.body) return;
    const next = list.current?.querySelector<HTMLElement>('button') ?? document.querySelector<HTMLElement>('h1');
    next?.focus();
  }, [approvals]);
  const decide = (approval: PendingApproval, approve: boolean) => {
    pressed.current = approval.id;
    return connection.request('panel.decide', { id: approval.id, approve, requestedAt: approval.requestedAt }).catch((error: { message?: string }) => {
      setLate(`Not ${approve ? 'approved' : 'denied'}: ${approval.what} — ${error.message ?? String(error)}`);
      throw error;
    });
  };
  return (
    <section class="approvals" aria-labelledby="approvals-heading" aria-live="assertive" hidden={approvals.length === 0 && !late}>
      <h2 id="approvals-heading">Waiting for your approval ({approvals.length})</h2>
      {late ? (
        <p class="error small" role="alert" data-testid="approval-late">
          {late}
        </p>
      ) : null}
      <ul class="plain" ref={list}>
        {approvals.map((approval) => (
          <ApprovalItem key={approval.id} approval={approval} decide={(approve) => decide(approval, approve)} />
        ))}
      </ul>
    </section>
  );
}

function ApprovalItem({ approval, decide: send }: { approval: PendingApproval; decide(approve: boolean): Promise<unknown> }) {
  const { error, held, run } = useAction();
  const textId = `approval-${approval.id}`;
  const decide = (approve: boolean) => run(() => send(approve));
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
        <button type="button" class="primary" {...held} aria-describedby={textId} onClick={() => void decide(true)}>
          Approve
        </button>
        <button type="button" {...held} aria-describedby={textId} onClick={() => void decide(false)}>
          Deny
        </button>
      </div>
      <ErrorLine error={error} />
    </li>
  );
}
