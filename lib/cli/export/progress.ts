/**
 * What a run shows while it works: on a terminal one live bar (done/total, threads a second, time
 * left); elsewhere (a log, a pipe) one line per thread written or failed. The closing summary is the
 * caller's (run-export.ts).
 */
export type ThreadOutcome =
  /** `beside`: the name taken by a file the export did not make, which was left as it was. */
  | { kind: 'written'; file: string; turns: number; beside?: string }
  | { kind: 'unchanged'; file: string }
  | { kind: 'failed'; slug: string; title: string; why: string };

export interface Progress {
  /** The list's count of the threads to go through, once known (null: the site did not say). */
  total(total: number | null): void;
  thread(outcome: ThreadOutcome): void;
  /** Every call waits `ms` because the site answered 429. */
  waiting(ms: number, told: boolean): void;
  /** Before the summary: the bar's line is ended. */
  end(): void;
}

export interface ProgressOptions {
  write(text: string): void;
  now?: () => number;
}

/**
 * Text from the site (a title, a slug, an error's words) as the terminal shows it: control characters
 * replaced, so that a thread titled with escape sequences (a shared Space's) cannot drive the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '�');
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

class Counts {
  done = 0;
  fetched = 0;
  total: number | null = null;
  readonly started: number;
  constructor(readonly now: () => number) {
    this.started = now();
  }
  /** Threads fetched a second (the unchanged ones cost nothing and are not counted). */
  rate(): number {
    const seconds = (this.now() - this.started) / 1000;
    return seconds > 0 ? this.fetched / seconds : 0;
  }
}

/** ` (title)` when the thread has a title other than its slug. */
export function named(thread: { slug: string; title: string }): string {
  return thread.title && thread.title !== thread.slug ? ` (${printable(thread.title)})` : '';
}

/** One line per thread written or failed, and a line for each 429 wait. */
export function lineProgress(options: ProgressOptions): Progress {
  const counts = new Counts(options.now ?? Date.now);
  const at = () => `[${counts.done}${counts.total === null ? '' : `/${counts.total}`}]`;
  return {
    total(total) {
      counts.total = total;
    },
    thread(outcome) {
      counts.done += 1;
      if (outcome.kind === 'written') {
        const kept = outcome.beside ? `; ${outcome.beside} is not the export's and was left as it is` : '';
        options.write(`${at()} wrote ${outcome.file} (${outcome.turns} turn${outcome.turns === 1 ? '' : 's'}${kept})\n`);
      }
      if (outcome.kind === 'failed') options.write(`${at()} FAILED ${printable(outcome.slug)}${named(outcome)}: ${printable(outcome.why)}\n`);
    },
    waiting(ms, told) {
      options.write(`Perplexity asked to slow down (429): waiting ${duration(ms)}${told ? ' as it said' : ''}, then going on.\n`);
    },
    end() {},
  };
}

/** The live bar, redrawn at most ten times a second on one line of the terminal. */
export function barProgress(options: ProgressOptions & { columns?: number }): Progress {
  const now = options.now ?? Date.now;
  const counts = new Counts(now);
  let unchanged = 0;
  let failed = 0;
  let waitingUntil = 0;
  let drawn = 0;
  const draw = (force = false) => {
    if (!force && now() - drawn < 100) return;
    drawn = now();
    const rate = counts.rate();
    const width = 24;
    const share = counts.total ? Math.min(1, counts.done / counts.total) : 0;
    const filled = Math.round(share * width);
    const left = counts.total !== null && rate > 0 ? ` · ${duration(((counts.total - counts.done) / rate) * 1000)} left` : '';
    const pause = waitingUntil > now() ? ` · 429: waiting ${duration(waitingUntil - now())}` : '';
    const extra = `${unchanged ? ` · ${unchanged} unchanged` : ''}${failed ? ` · ${failed} failed` : ''}`;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${counts.done}/${counts.total ?? '?'} · ${rate.toFixed(1)} threads/s${left}${extra}${pause}`;
    options.write(`\r\x1b[2K${line.slice(0, (options.columns ?? 100) - 1)}`);
  };
  return {
    total(total) {
      counts.total = total;
      draw(true);
    },
    thread(outcome) {
      counts.done += 1;
      if (outcome.kind === 'written') counts.fetched += 1;
      if (outcome.kind === 'unchanged') unchanged += 1;
      if (outcome.kind === 'failed') failed += 1;
      draw();
    },
    waiting(ms) {
      waitingUntil = Math.max(waitingUntil, now() + ms);
      draw(true);
    },
    end() {
      draw(true);
      options.write('\n');
    },
  };
}
