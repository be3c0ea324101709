import { RelayError } from '../../protocol/errors';

/**
 * The driven tab's mode and the prompt sent in it go together. An ask holds the turn from setting its session's mode
 * again until the page took the prompt (it may wait there behind an answer still being written); a mode switch waits
 * for it. Without this, another session's switch in between decided the mode the prompt went in, and the reply said
 * the session's own mode had been set (review 2026-12-05, worker #5). The person's own clicks on the page are theirs.
 */
export class ModeTurn {
  private last: Promise<void> = Promise.resolve();

  /** Runs `fn` when every earlier holder is done; a caller cancelled while it waits leaves the line and runs nothing. */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const before = this.last;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next holder waits for this one and for every one before it, even if this one leaves the line early.
    this.last = Promise.all([before, mine]).then(() => undefined);
    try {
      await untilDoneOrCancelled(before, signal);
      return await fn();
    } finally {
      release();
    }
  }
}

function untilDoneOrCancelled(turn: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    void turn.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

const cancelled = () => new RelayError('CANCELLED', 'The call was cancelled while it waited for another session’s prompt to be sent in its own mode.');
