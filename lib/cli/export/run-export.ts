import fsp from 'node:fs/promises';
import path from 'node:path';
import { RelayError } from '../../protocol/errors';
import { WholeFiles } from './atomic-write';
import { Manifest } from './manifest';
import { baseName, disambiguated, type ExportFormat, fileName } from './names';
import { Pacer } from './pacer';
import type { Progress } from './progress';
import { codeOf, type ExportSource, type ListedThread, type WholeThread } from './source';

/**
 * `comet-relay export`'s run: the threads named, or the library's list streamed a page at a time
 * (nothing of it held beyond a page), fetched a few at once at the site's pace, each written whole
 * into its own file, the manifest remembering what was written so a later run fetches only threads
 * with new activity. A thread that fails is named at the end and the others are still written; what
 * makes every thread fail (no browser, signed out) ends the run at once.
 */
export interface ExportOptions {
  out: string;
  format: ExportFormat;
  concurrency: number;
  /** Slugs named on the command line; otherwise the list (with the filters below) is gone through. */
  threads?: string[];
  search?: string;
  space?: string;
  since?: string;
}

export interface ExportDeps {
  source: ExportSource;
  render(thread: WholeThread, format: ExportFormat): string;
  progress: Progress;
  /** Ctrl-C: no new thread is started; the calls under way are cancelled; what is written stays whole. */
  signal: AbortSignal;
  pacer?: Pacer;
  /** The files of the run, so a second Ctrl-C can remove the temporary ones at once. */
  onFiles?(files: WholeFiles): void;
  /** A note for the person (an unreadable manifest). */
  warn?(text: string): void;
}

export interface ExportSummary {
  out: string;
  written: number;
  /** Of those written, how many went beside a file of their name that the export did not make (left as it was). */
  beside?: number;
  unchanged: number;
  failed: { slug: string; title: string; why: string }[];
  interrupted: boolean;
  total: number | null;
  ms: number;
}

/** Codes that would fail every other thread too: the run stops and says what is missing. */
const FATAL = new Set(['SIGNED_OUT', 'EXTENSION_NOT_CONNECTED', 'HOST_DISCONNECTED', 'NO_PERPLEXITY_TAB', 'BROWSER_POLICY', 'SITE_ACCESS_OFF', 'VERSION_MISMATCH', 'PERMISSION_DENIED', 'PROTOCOL_ERROR']);

export const LIST_PAGE = 100;

export async function runExport(options: ExportOptions, deps: ExportDeps): Promise<ExportSummary> {
  const started = Date.now();
  const out = path.resolve(options.out);
  await fsp.mkdir(out, { recursive: true });
  if (!(await fsp.stat(out)).isDirectory()) throw new RelayError('CONFIG_ERROR', `${out} is not a folder; pass another with --out DIR.`);
  const files = new WholeFiles(out);
  deps.onFiles?.(files);
  await files.removeLeftovers();
  const { manifest, problem } = await Manifest.load(out);
  if (problem) deps.warn?.(`${problem}: every thread is fetched again (beside the files already here, which are left as they are) and the manifest rewritten.`);

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  deps.signal.addEventListener('abort', onAbort, { once: true });
  if (deps.signal.aborted) stop.abort();
  const signal = stop.signal;
  const pacer = deps.pacer ?? new Pacer({ onWait: (ms, told) => deps.progress.waiting(ms, told) });
  const summary: ExportSummary = { out, written: 0, unchanged: 0, failed: [], interrupted: false, total: null, ms: 0 };
  /** Names taken in this run before their file is written (two threads of the same title at once). */
  const claimed = new Map<string, string>();
  const seen = new Set<string>();
  let fatal: unknown;

  const listed = options.threads?.length ? named(options.threads, deps, summary) : library(options, deps, pacer, signal, summary);

  const one = async (item: ListedThread) => {
    const entry = manifest.current(item.slug, item.lastActivity, options.format);
    if (entry && (await files.exists(entry.file))) {
      summary.unchanged += 1;
      deps.progress.thread({ kind: 'unchanged', file: entry.file });
      return;
    }
    let thread: WholeThread;
    try {
      thread = await pacer.run(() => deps.source.exportThread(item.slug, signal), signal);
      const text = deps.render(thread, options.format);
      const old = manifest.get(item.slug);
      const { file, beside } = await writeThread(files, text, thread, item, options.format, manifest, claimed);
      manifest.set({ slug: item.slug, file, format: options.format, lastActivity: item.lastActivity ?? thread.updated });
      if (old && old.file !== file && manifest.owner(old.file) === undefined && (await files.exists(old.file))) await fsp.rm(path.join(out, old.file), { force: true });
      // A save that fails now is tried again by the next one and the last (which says so): the thread itself is written.
      await manifest.save(files, 2000).catch(() => undefined);
      summary.written += 1;
      if (beside) summary.beside = (summary.beside ?? 0) + 1;
      deps.progress.thread({ kind: 'written', file, turns: thread.turns.length, ...(beside ? { beside } : {}) });
    } catch (error) {
      if (signal.aborted) return;
      const code = codeOf(error);
      if (FATAL.has(code) || pacer.stopped) throw error;
      const why = `[${code}] ${RelayError.from(error).message}`;
      summary.failed.push({ slug: item.slug, title: item.title, why });
      deps.progress.thread({ kind: 'failed', slug: item.slug, title: item.title, why });
    }
  };

  const worker = async () => {
    while (!signal.aborted) {
      const next = await listed.next();
      if (next.done) return;
      if (seen.has(next.value.slug)) continue; // the list moved under us (a thread bumped to the top)
      seen.add(next.value.slug);
      await one(next.value);
    }
  };

  try {
    await Promise.all(
      Array.from({ length: Math.max(1, options.concurrency) }, () =>
        worker().catch((error) => {
          fatal ??= error;
          stop.abort();
        }),
      ),
    );
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
    await manifest.save(files).catch((error) => deps.warn?.(`Could not save the manifest: ${(error as Error).message}.`));
  }
  if (fatal && !deps.signal.aborted) throw fatal;
  summary.interrupted = deps.signal.aborted;
  summary.ms = Date.now() - started;
  return summary;
}

/** The threads named on the command line, as list items with no activity known (always fetched). */
async function* named(slugs: string[], deps: ExportDeps, summary: ExportSummary): AsyncGenerator<ListedThread> {
  summary.total = slugs.length;
  deps.progress.total(slugs.length);
  for (const slug of slugs) yield { slug, title: slug, url: '', lastActivity: null, created: null, mode: null, space: null };
}

/** The library's list, a page at a time, newest first, as far as `--since` reaches. */
async function* library(options: ExportOptions, deps: ExportDeps, pacer: Pacer, signal: AbortSignal, summary: ExportSummary): AsyncGenerator<ListedThread> {
  let offset = 0;
  for (;;) {
    const params = { limit: LIST_PAGE, offset, query: options.search, space: options.space, since: options.since };
    const page = await pacer.run(() => deps.source.listThreads(params, signal), signal);
    if (offset === 0) {
      // The site counts the whole filtered list; where --since cuts it, how many remain is not known.
      summary.total = options.since ? null : page.total;
      deps.progress.total(summary.total);
    }
    for (const thread of page.threads) {
      if (options.since && thread.lastActivity && thread.lastActivity.slice(0, 10) < options.since) return;
      yield thread;
    }
    if (page.nextOffset === null || page.nextOffset <= offset || page.threads.length === 0) return;
    offset = page.nextOffset;
  }
}

/** The last number tried after the slug-hashed name (`…--3f9a2c1b-2` to `-20`) before the thread fails. */
const MAX_NUMBERED = 20;

/**
 * Writes the thread into its file: the one the manifest says it has (updated in place), else its date
 * and title, else (another thread's name, or a file the export did not make: the person's own notes,
 * the side panel's *Export as Markdown* of the same name) the name told apart by its slug's hash, then
 * numbered. Only the thread's own file is ever replaced; `beside` names the file it was kept from.
 */
async function writeThread(
  files: WholeFiles,
  text: string,
  thread: WholeThread,
  item: ListedThread,
  format: ExportFormat,
  manifest: Manifest,
  claimed: Map<string, string>,
): Promise<{ file: string; beside?: string }> {
  const old = manifest.get(item.slug);
  const base = old ? old.file.replace(/\.(md|json)$/, '') : baseName({ title: thread.title || item.title, created: thread.created ?? item.created, lastActivity: item.lastActivity });
  const hashed = disambiguated(base, item.slug);
  const names = [fileName(base, format), fileName(hashed, format), ...Array.from({ length: MAX_NUMBERED - 1 }, (_, i) => fileName(`${hashed}-${i + 2}`, format))];
  let beside: string | undefined;
  for (const file of names) {
    const key = file.toLowerCase();
    const owner = manifest.owner(file) ?? claimed.get(key);
    if (owner === item.slug) {
      await files.write(file, text);
      return { file };
    }
    if (owner !== undefined) continue;
    claimed.set(key, item.slug); // before the write: two threads of one name at once; kept if the name is taken
    try {
      await files.write(file, text, { replace: false });
      return beside ? { file, beside } : { file };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        claimed.delete(key);
        throw error;
      }
      beside ??= file;
    }
  }
  throw new RelayError('CONFIG_ERROR', `${names[0]}, ${names[1]} and the numbered names up to ${names.at(-1)} are taken (by other threads or by files the export did not make); move those files or pass another --out.`);
}
