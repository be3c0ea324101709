import { RelayError } from '../../protocol/errors';
import type { PendingApproval } from '../../protocol/panel';
import { approvalTimeoutError, deniedError } from './policy';

/**
 * Calls held until the person approves or denies them in the side panel. Each one ends exactly
 * once: approved, denied, timed out, or cancelled by its caller; every ending removes it from the
 * list and tells the panel.
 */
export type ApprovalRequest = Omit<PendingApproval, 'requestedAt' | 'expiresAt'>;

interface Held {
  info: PendingApproval;
  /** Whose call it is: the session's id, which two clients of one name do not share. */
  client: string;
  settle(error?: RelayError): void;
}

/**
 * Held calls at most per client and in all: every card's whole text goes to the panel in each state, so one agent
 * firing hundreds of long prompts pushed the state past the port's 64 MiB and took every card away, the person's and
 * other sessions' included (review 13b, R13b-9). One over is refused at once, in words.
 */
export const MAX_HELD_PER_CLIENT = 10;
export const MAX_HELD = 40;

export class ApprovalQueue {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly onChange: (pending: PendingApproval[]) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when approved; rejects with PERMISSION_DENIED, TIMEOUT or CANCELLED otherwise. */
  request(request: ApprovalRequest, timeoutMs: number, signal?: AbortSignal, client = request.clientName): Promise<void> {
    if (signal?.aborted) return Promise.reject(new RelayError('CANCELLED', 'The call was cancelled.'));
    const mine = [...this.held.values()].filter((h) => h.client === client && h.info.id !== request.id).length;
    if (mine >= MAX_HELD_PER_CLIENT || this.held.size >= MAX_HELD) {
      const whose = mine >= MAX_HELD_PER_CLIENT ? `${request.clientName} has ${mine} calls` : `${this.held.size} calls are`;
      return Promise.reject(
        new RelayError(
          'RATE_LIMITED',
          `The request to ${request.what} was not held for approval: ${whose} already waiting for the person at the browser (at most ${MAX_HELD_PER_CLIENT} a client, ${MAX_HELD} in all). Wait for their answers, then call again.`,
        ),
      );
    }
    const at = this.now();
    const info: PendingApproval = { ...request, requestedAt: at, expiresAt: at + timeoutMs };
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => held.settle(new RelayError('CANCELLED', 'The call was cancelled while it waited for approval.'));
      const timer = setTimeout(() => held.settle(approvalTimeoutError(request.what, Math.round(timeoutMs / 1000))), timeoutMs);
      const held: Held = {
        info,
        client,
        settle: (error) => {
          if (this.held.get(request.id) !== held) return;
          this.held.delete(request.id);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.onChange(this.pending());
          if (error) reject(error);
          else resolve();
        },
      };
      this.held.get(request.id)?.settle(new RelayError('CANCELLED', 'A newer call with the same id replaced this one.'));
      this.held.set(request.id, held);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.onChange(this.pending());
    });
  }

  /**
   * The person's click. False when nothing with that id is waiting (it timed out meanwhile), or what waits under it is
   * not the hold the card was drawn for (`requestedAt`: a call cancelled, and a new one under its id; review
   * 2026-12-05, panel #4).
   */
  decide(id: string, approve: boolean, requestedAt?: number): boolean {
    const held = this.held.get(id);
    if (!held || (requestedAt !== undefined && held.info.requestedAt !== requestedAt)) return false;
    held.settle(approve ? undefined : deniedError(held.info.what));
    return true;
  }

  /** Ends a held call with `error` (the person's settings now refuse it); false when nothing with that id waits. */
  refuse(id: string, error: RelayError): boolean {
    const held = this.held.get(id);
    if (!held) return false;
    held.settle(error);
    return true;
  }

  pending(): PendingApproval[] {
    return [...this.held.values()].map((h) => h.info).sort((a, b) => a.requestedAt - b.requestedAt);
  }
}
