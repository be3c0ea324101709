import { RelayError } from '../../protocol/errors';
import { codeOf, retryAfterOf } from './source';

/**
 * The site's pace, shared by every thread of a run: a 429 (`RATE_LIMITED`) holds back every call
 * until the wait is over — the `Retry-After` the site sent, else a backoff that doubles with each 429
 * in a row (from 1 s to a minute, with jitter so that parallel calls do not return together) — and
 * the call is tried again. Any other answer resets the backoff.
 */
export interface PacerOptions {
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
  /** Tries of one call, the first included. */
  attempts?: number;
  /** A longer wait than this is not waited for: the run stops (`stopped`), saying when to run it again. */
  maxWaitMs?: number;
  onWait?: (ms: number, told: boolean) => void;
}

const BASE_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

export class Pacer {
  /** The site asked for a longer wait than maxWaitMs: every call would fail alike, so the run ends. */
  stopped = false;
  private resumeAt = 0;
  /** 429s in a row, across every call. */
  private strikes = 0;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: PacerOptions = {}) {
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** How long to wait after the `strikes`-th 429 in a row that named no wait: 1, 2, 4 … 60 s, each 50–100 %. */
  backoff(strikes: number): number {
    return Math.round(Math.min(MAX_BACKOFF_MS, BASE_MS * 2 ** Math.max(0, strikes - 1)) * (0.5 + this.random() * 0.5));
  }

  async run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const attempts = this.options.attempts ?? 8;
    const maxWaitMs = this.options.maxWaitMs ?? 15 * 60_000;
    for (let attempt = 1; ; attempt++) {
      const wait = this.resumeAt - this.now();
      if (wait > 0) await this.sleep(wait, signal);
      if (signal.aborted) throw new RelayError('CANCELLED', 'The export was interrupted.');
      try {
        const result = await task();
        this.strikes = 0;
        return result;
      } catch (error) {
        if (codeOf(error) !== 'RATE_LIMITED' || attempt >= attempts) throw error;
        this.strikes += 1;
        const told = retryAfterOf(error);
        const ms = told ?? this.backoff(this.strikes);
        if (ms > maxWaitMs) {
          this.stopped = true;
          throw new RelayError(
            'RATE_LIMITED',
            `perplexity.ai asks to wait ${Math.ceil(ms / 60_000)} min before more requests (HTTP 429). Run the same command again after that: it goes on where this run stopped.`,
            { retryAfterMs: ms },
          );
        }
        this.resumeAt = Math.max(this.resumeAt, this.now() + ms);
        this.options.onWait?.(ms, told !== undefined);
      }
    }
  }
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
