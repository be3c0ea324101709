import { RelayError } from '../../protocol/errors';
import { threadRefProblem, threadSlugOf } from '../../protocol/library/thread-ref';
import { UsageError } from '../usage';
import type { ExportFormat } from './names';
import { barProgress, duration, lineProgress, named, printable } from './progress';
import { renderThread } from './render';
import { type ExportOptions, type ExportSummary, runExport } from './run-export';
import type { ExportSource } from './source';

/**
 * `comet-relay export`: the flags as typed turned into a run (lib/cli/export/run-export.ts), its
 * progress shown the way the output is read (a live bar on a terminal, lines otherwise), Ctrl-C
 * handled (the first ends the run cleanly, a second at once), SIGTERM and SIGHUP (the terminal
 * closed) too (at once); quitting at once removes the temporary files and saves the manifest first.
 * Then the closing summary. Exit 0 when every thread is in the folder, 1 otherwise.
 */
export interface ExportFlags {
  all?: boolean;
  space?: string;
  search?: string;
  since?: string;
  out?: string;
  format?: string;
  concurrency?: string;
}

export interface ExportIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (the live bar goes there). */
  tty: boolean;
  columns?: number;
  /** Ctrl-C: calls `handler` each time; returns how to stop listening. */
  onInterrupt(handler: () => void): () => void;
  /** SIGTERM, SIGHUP (the terminal closed): calls `handler` with the signal's name. Without it, the process's own. */
  onTerminate?(handler: (signal: string) => void): () => void;
  exit(code: number): void;
}

/** The signals that end a process from outside, which the export answers by quitting at once, its record saved. */
export function processTerminations(handler: (signal: string) => void): () => void {
  const signals = ['SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

export const DEFAULT_OUT = 'perplexity-export';
/**
 * A Computer task's bare id: the last 22 characters of its URL, letters and digits (lib/selectors/README.md). Any
 * other word without `-` or `/` (`PerplexityExports`, `Backups2026_perplexity`) is a file's (day-7 review F3, G3).
 */
const TASK_ID = /^[A-Za-z0-9]{22}$/;
export const DEFAULT_CONCURRENCY = 3;
const MAX_CONCURRENCY = 8;

/** The run the flags ask for, or a usage error saying what cannot be taken. */
export function exportOptions(flags: ExportFlags, positionals: string[]): ExportOptions {
  // `markdown` too: comet_export_thread names the same format so (docs/tools.md), and a person may type either.
  const format = flags.format === 'markdown' ? 'md' : (flags.format ?? 'md');
  if (format !== 'md' && format !== 'json') throw new UsageError(`--format ${format} is not a format: md or markdown (Markdown, the default), or json.`);
  const concurrency = flags.concurrency === undefined ? DEFAULT_CONCURRENCY : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency ${flags.concurrency} is not a number of threads at once from 1 to ${MAX_CONCURRENCY}.`);
  }
  if (flags.since !== undefined && !isDay(flags.since)) throw new UsageError(`--since ${flags.since} is not a day: write it YYYY-MM-DD (2026-11-01).`);
  if (flags.search !== undefined && !flags.search.trim()) throw new UsageError('--search needs the words to look for.');
  if (flags.space !== undefined && !flags.space.trim()) throw new UsageError('--space needs a Space’s title or slug.');
  const selecting = Boolean(flags.all || flags.space !== undefined || flags.search !== undefined || flags.since !== undefined);
  // A word that is neither a URL nor slug-shaped (words joined by "-", or a task's id) is most likely half of an unquoted path (`--out My Exports`, `--out My
  // Backups2026_perplexity`): said so, never run as a thread (day-5 F9, day-7 F3).
  const stray = positionals.find((ref) => !ref.includes('/') && !ref.includes('-') && !TASK_ID.test(ref));
  if (stray !== undefined) {
    throw new UsageError(`"${stray}" is not a thread's URL or slug (a slug is the end of its URL, words joined by "-"). If it is part of a path with a space, quote the path: --out "My Exports".`);
  }
  if (positionals.length > 0 && selecting) {
    throw new UsageError('Name threads or select them from the library (--all, --space, --search, --since), not both.');
  }
  if (positionals.length === 0 && !selecting) {
    throw new UsageError('Say what to export: --all for every thread, --space NAME, --search TEXT or --since YYYY-MM-DD for some, or the threads’ URLs or slugs.');
  }
  const threads = positionals.map((ref) => {
    const slug = threadSlugOf(ref);
    if (!slug) throw new UsageError(threadRefProblem(ref));
    return slug;
  });
  return {
    out: flags.out ?? DEFAULT_OUT,
    format: format as ExportFormat,
    concurrency,
    threads: threads.length ? [...new Set(threads)] : undefined,
    space: flags.space?.trim(),
    search: flags.search?.trim(),
    since: flags.since,
  };
}

function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

export async function runExportCommand(options: ExportOptions, source: ExportSource, io: ExportIo): Promise<number> {
  const progress = io.tty ? barProgress({ write: io.err, columns: io.columns }) : lineProgress({ write: io.out });
  const ctrlC = new AbortController();
  let quitNow: (() => void) | undefined;
  const quit = () => {
    ctrlC.abort();
    quitNow?.();
    io.exit(1);
  };
  const stopListening = io.onInterrupt(() => {
    if (!ctrlC.signal.aborted) {
      io.err('\nStopping: the threads under way are cancelled, every file written stays whole (Ctrl-C again to quit at once).\n');
      ctrlC.abort();
      return;
    }
    quit();
  });
  const stopTerminations = (io.onTerminate ?? processTerminations)((signal) => {
    // After SIGHUP there is no terminal to write to; after SIGTERM, one line says how to go on.
    if (signal !== 'SIGHUP') {
      try {
        io.err(`\ncomet-relay: export stopped by ${signal}; every file written is recorded. Run the same command again to go on.\n`);
      } catch {
        // Nowhere to say it; the record is saved all the same.
      }
    }
    quit();
  });
  let summary: ExportSummary;
  try {
    summary = await runExport(options, {
      source,
      render: renderThread,
      progress,
      signal: ctrlC.signal,
      onQuit: (q) => {
        quitNow = q;
      },
      warn: (text) => io.err(`comet-relay: ${text}\n`),
    });
  } catch (error) {
    progress.end();
    throw RelayError.from(error);
  } finally {
    stopListening();
    stopTerminations();
  }
  progress.end();
  io.out(summaryText(summary));
  return summary.failed.length > 0 || summary.interrupted || summary.unlisted ? 1 : 0;
}

/** The closing lines: how many written and unchanged, where, how long; each failure with why; how to go on. */
export function summaryText(s: ExportSummary): string {
  const done = s.written + s.unchanged;
  const of = s.total !== null && s.total !== done ? ` of ${s.total}` : '';
  const lines = [
    `${s.interrupted ? 'Interrupted: ' : ''}${done}${of} thread${done === 1 ? '' : 's'} in ${s.out} (${s.written} written, ${s.unchanged} unchanged) in ${duration(s.ms)}.`,
  ];
  if (s.beside) {
    lines.push(`${s.beside} written beside a file of the same name that the export did not make, which was left as it is.`);
  }
  if (s.failed.length > 0) {
    lines.push(`${s.failed.length} failed:`);
    for (const f of s.failed) lines.push(`  ${printable(f.slug)}${named(f)}: ${printable(f.why)}`);
  }
  if (s.unlisted) {
    const n = s.unlisted === 1 ? '1 thread' : `${s.unlisted} threads`;
    lines.push(`${n} of the ${s.total} the list counts never showed in it, even read again from the top: the list changed while it was read (a thread with new activity moves to the top).`);
  }
  if (s.failed.length > 0 || s.interrupted || s.unlisted) lines.push('Run the same command again to go on: it fetches only what is missing or has new activity.');
  return `${lines.join('\n')}\n`;
}
