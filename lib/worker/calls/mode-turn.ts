import { RelayError } from '../../protocol/errors';

/** How often a caller waiting for the turn is told so; each note lets its call take `WAIT_NOTE_HOLD_MS` longer. */
const WAIT_NOTE_EVERY_MS = 20_000;
export const WAIT_NOTE_HOLD_MS = 60_000;

/**
 * The driven tab's mode and the prompt sent in it go together. An ask holds the turn from setting its session's mode
 * again until the page took the prompt (it may wait there behind an answer still being written); a mode switch waits
 * for it. Without this, another session's switch in between decided the mode the prompt went in, and the reply said
 * the session's own mode had been set (review 2026-12-05, worker #5). A read of the mode the page answers by looking
 * never waits; one that must open the mode menu or type "/" waits like a switch (the router asks the page which it
 * is). The person's own clicks on the page are theirs.
 */
export class ModeTurn {
  private last: Promise<void> = Promise.resolve();
  private holders = 0;

  /**
   * Runs `fn` when every earlier holder is done (telling it whether one ran first). While it waits, `waiting` is called
   * at once and every 20 s (the caller says so, and its deadline moves); a caller cancelled while it waits leaves the
   * line and runs nothing.
   */
  async run<T>(signal: AbortSignal, waiting: () => void, fn: (waited: boolean) => Promise<T>): Promise<T> {
    const before = this.last;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next holder waits for this one and for every one before it, even if this one leaves the line early.
    this.last = Promise.all([before, mine]).then(() => undefined);
    const busy = this.holders > 0;
    this.holders++;
    const notes = busy ? setInterval(waiting, WAIT_NOTE_EVERY_MS) : undefined;
    try {
      if (busy) waiting();
      // The notes stop once the turn is had (or the wait given up): what runs then is the caller's own call.
      await untilDoneOrCancelled(before, signal).finally(() => clearInterval(notes));
      return await fn(busy);
    } finally {
      this.holders--;
      release();
    }
  }
}

function untilDoneOrCancelled(turn: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(stopped(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(stopped(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    void turn.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** A wait given up: by its deadline (the side panel's switch), or cancelled by its caller. */
const stopped = (signal: AbortSignal) =>
  (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError'
    ? new RelayError('TIMEOUT', 'Another prompt on this tab was still waiting to be sent in its own mode, so the mode was not switched; nothing was changed. Switch again once it has been sent.')
    : new RelayError('CANCELLED', 'The call was cancelled while it waited for another prompt on this tab to be sent in its own mode; nothing was changed.');
