import { RelayError } from '../../protocol/errors';
import { WholeFiles } from './atomic-write';
import { FolderLock } from './folder-lock';
import { folderProblem } from './folder-problem';
import { Journal } from './journal';
import { Manifest } from './manifest';
import { baseName, disambiguated, type ExportFormat, fileName } from './names';
import { dropIfEmpty, prepareOutFolder } from './out-folder';
import { Pacer } from './pacer';
import type { Progress } from './progress';
import { codeOf, type ExportSource, type ListedThread, type WholeThread } from './source';

/**
 * `comet-relay export`'s run: the threads named, or the library's list streamed a page at a time
 * (nothing of it held beyond a page), fetched a few at once at the site's pace, each written whole
 * into its own file, the manifest remembering what was written so a later run fetches only threads
 * with new activity. A thread that fails is named at the end and the others are still written; what
 * makes every thread fail (no browser, signed out, a full or read-only disk) ends the run at once.
 * One run at a time writes into a folder (./folder-lock.ts): the lock is taken before anything in it
 * is read or removed, and given up on every way out.
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
  /**
   * How to end the run at once (a second Ctrl-C, SIGTERM, the terminal closed): the temporary files
   * removed, the manifest saved as it stands and the folder's lock given up, synchronously, just
   * before the process exits. Called again as the run goes on; the last one given is the one to use.
   */
  onQuit?(quitNow: () => void): void;
  /** A note for the person (an unreadable manifest, a stale lock taken over). */
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
  /**
   * How many threads of the list's count were never listed to the run, even after reading the list again
   * from the top: the list changed under it (a thread with new activity moves to the top, past the pages read).
   */
  unlisted?: number;
  ms: number;
}

/** Codes that would fail every other thread too: the run stops and says what is missing. */
const FATAL = new Set(['SIGNED_OUT', 'EXTENSION_NOT_CONNECTED', 'HOST_DISCONNECTED', 'NO_PERPLEXITY_TAB', 'BROWSER_POLICY', 'SITE_ACCESS_OFF', 'VERSION_MISMATCH', 'PERMISSION_DENIED', 'PROTOCOL_ERROR']);

export const LIST_PAGE = 100;

export async function runExport(options: ExportOptions, deps: ExportDeps): Promise<ExportSummary> {
  const started = Date.now();
  const { dir: out, created } = await prepareOutFolder(options.out);
  const lock = FolderLock.take(out, { warn: deps.warn });
  deps.onQuit?.(() => lock.releaseSync());
  try {
    return await exportInto(out, lock, options, deps, started);
  } catch (error) {
    lock.releaseSync();
    // A run that failed before writing anything leaves no empty folder it made; one that ended well keeps the folder
    // its summary names, empty or not (day-5 review F10).
    if (created) dropIfEmpty(out);
    throw error;
  } finally {
    lock.releaseSync();
  }
}

async function exportInto(out: string, lock: FolderLock, options: ExportOptions, deps: ExportDeps, started: number): Promise<ExportSummary> {
  const files = new WholeFiles(out);
  await files.removeLeftovers();
  const { manifest, problem } = await Manifest.load(out);
  if (problem) deps.warn?.(`${problem}: every thread is fetched again (beside the files already here, which are left as they are) and the manifest rewritten.`);
  const journal = new Journal(out);
  await journal.replay(manifest);
  deps.onQuit?.(() => {
    files.removeTemporaries();
    try {
      manifest.saveSync(files);
    } catch {
      // The journal still holds what was written since the last save; the next run reads it.
    }
    lock.releaseSync();
  });

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  deps.signal.addEventListener('abort', onAbort, { once: true });
  if (deps.signal.aborted) stop.abort();
  const signal = stop.signal;
  const pacer = deps.pacer ?? new Pacer({ onWait: (ms, told) => deps.progress.waiting(ms, told) });
  const summary: ExportSummary = { out, written: 0, unchanged: 0, failed: [], interrupted: false, total: null, ms: 0 };
  /** Names taken in this run before their file is written (two threads of the same title at once). */
  const claimed = new Map<string, string>();
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
      const entry = { slug: item.slug, format: options.format, lastActivity: item.lastActivity ?? thread.updated };
      // Each name is noted in the journal before it is written, so a run killed after the write still knows the file.
      const { file, beside } = await writeThread(files, text, thread, item, options.format, manifest, claimed, (name) => journal.note({ ...entry, file: name }, text));
      manifest.set({ ...entry, file });
      summary.written += 1;
      if (beside) summary.beside = (summary.beside ?? 0) + 1;
      deps.progress.thread({ kind: 'written', file, turns: thread.turns.length, ...(beside ? { beside } : {}) });
    } catch (error) {
      if (signal.aborted) return;
      const stop = folderProblem(error, out);
      if (stop) throw stop;
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
    try {
      await manifest.save(files);
      await journal.remove();
    } catch (error) {
      await journal.close().catch(() => undefined);
      deps.warn?.(`Could not save the manifest: ${(error as Error).message}. What was written is noted in ${journal.file}, which the next run reads.`);
    }
  }
  if (fatal && !deps.signal.aborted) throw fatal;
  summary.interrupted = deps.signal.aborted;
  summary.ms = Date.now() - started;
  return summary;
}

/** The threads named on the command line, as list items with no activity known (always fetched). */
async function* named(slugs: string[], deps: ExportDeps, summary: ExportSummary): AsyncGenerator<ListedThread> {
  const unique = [...new Set(slugs)];
  summary.total = unique.length;
  deps.progress.total(unique.length);
  for (const slug of unique) yield { slug, title: slug, url: '', lastActivity: null, created: null, mode: null, space: null };
}

/** Readings of the list, the first included, before the threads it never showed are reported as such. */
const MAX_PASSES = 3;

/**
 * The library's list, a page at a time, newest first, as far as `--since` reaches; each thread given
 * once. The list moves while it is read: a thread that gains activity jumps to the top, so the pages
 * after it shift and it is never on one of them. When fewer threads were listed than the list counts,
 * it is read again from the top (where such a thread now is) until the count is reached, a reading
 * finds nothing new, or MAX_PASSES; what is still short is `summary.unlisted` (the run then exits 1).
 */
async function* library(options: ExportOptions, deps: ExportDeps, pacer: Pacer, signal: AbortSignal, summary: ExportSummary): AsyncGenerator<ListedThread> {
  const given = new Set<string>();
  for (let pass = 1; ; pass++) {
    let total: number | null = null;
    let found = 0;
    for (let offset = 0; ; ) {
      const params = { limit: LIST_PAGE, offset, query: options.search, space: options.space, since: options.since };
      const page = await pacer.run(() => deps.source.listThreads(params, signal), signal);
      if (offset === 0) {
        // The site counts the whole filtered list; where --since cuts it, how many remain is not known.
        total = options.since ? null : page.total;
        if (pass === 1 || total !== summary.total) deps.progress.total(total);
        summary.total = total;
      }
      for (const thread of page.threads) {
        if (options.since && thread.lastActivity && thread.lastActivity.slice(0, 10) < options.since) return;
        if (given.has(thread.slug)) continue; // met before on an earlier page (the list moved down)
        given.add(thread.slug);
        found += 1;
        yield thread;
      }
      if (pass > 1 && total !== null && given.size >= total) break; // what the first reading missed is found
      if (page.nextOffset === null || page.nextOffset <= offset || page.threads.length === 0) break;
      offset = page.nextOffset;
    }
    if (total === null || given.size >= total) return;
    if (pass === MAX_PASSES || (pass > 1 && found === 0)) {
      summary.unlisted = total - given.size;
      return;
    }
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
  before: (file: string) => Promise<void>,
): Promise<{ file: string; beside?: string }> {
  // The other format's file, if any, lends its name: `x.md` and `x.json` of one thread go together.
  const old = manifest.any(item.slug, format);
  const base = old ? old.file.replace(/\.(md|json)$/, '') : baseName({ title: thread.title || item.title, created: thread.created ?? item.created, lastActivity: item.lastActivity });
  const hashed = disambiguated(base, item.slug);
  const names = [fileName(base, format), fileName(hashed, format), ...Array.from({ length: MAX_NUMBERED - 1 }, (_, i) => fileName(`${hashed}-${i + 2}`, format))];
  let beside: string | undefined;
  for (const file of names) {
    const key = file.toLowerCase();
    const owner = manifest.owner(file) ?? claimed.get(key);
    if (owner === item.slug) {
      await before(file);
      await files.write(file, text);
      return { file };
    }
    if (owner !== undefined) continue;
    claimed.set(key, item.slug); // before the write: two threads of one name at once; kept if the name is taken
    try {
      await before(file);
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
