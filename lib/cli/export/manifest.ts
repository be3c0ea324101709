import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { WholeFiles } from './atomic-write';
import type { ExportFormat } from './names';

/**
 * The export folder's memory of what it holds: for each thread and format, its file and the last
 * activity the thread list showed when it was written. A later run rewrites a thread only when the
 * list shows newer activity (or its file is gone). One small entry a thread and format; no thread's
 * text is kept. What was written since the last save is in the journal (journal.ts) until the next.
 */
export const MANIFEST_NAME = '.comet-relay-export.json';

export const ManifestEntrySchema = z.object({
  slug: z.string().min(1),
  file: z.string().min(1),
  format: z.enum(['md', 'json']),
  lastActivity: z.string().nullable(),
});
export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;

const File = z.object({ version: z.literal(1), threads: z.array(ManifestEntrySchema) });

/**
 * A thread has an entry per format: `--format json` into a Markdown export writes the JSON files beside
 * the Markdown ones, which stay the export's own (updated in place by a later `--format md` run) and are
 * never removed, since the person may have edited them or linked to them from their notes.
 */
const key = (slug: string, format: ExportFormat) => `${format}:${slug}`;

/** The most a manifest is read of: a library of 100,000 threads is ~20 MB. */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A file of the export's, read as the lock and the journal are: never through a link, a pipe planted under its name
 * does not hang the run, and a device or an endless file is no manifest (review 11f, F7).
 */
async function readOwnFile(file: string): Promise<string> {
  const handle = await fsp.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('it is not a file comet-relay made (a pipe or a device)');
    if (stat.size > MANIFEST_MAX_BYTES) throw new Error(`it is ${stat.size} bytes, more than any manifest`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

export class Manifest {
  private readonly entries = new Map<string, ManifestEntry>();
  /** File name (lower case: some file systems ignore case) → the slug whose file it is. */
  private readonly byFile = new Map<string, string>();
  private saving: Promise<void> = Promise.resolve();
  private changed = false;

  /** The folder's manifest; an unreadable one is reported (`problem`) and the run starts afresh. */
  static async load(dir: string): Promise<{ manifest: Manifest; problem?: string }> {
    const manifest = new Manifest();
    let text: string;
    try {
      text = await readOwnFile(path.join(dir, MANIFEST_NAME));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { manifest };
      return { manifest, problem: `cannot read ${MANIFEST_NAME} (${(error as Error).message})` };
    }
    let parsed: ReturnType<typeof File.safeParse>;
    try {
      parsed = File.safeParse(JSON.parse(text));
    } catch {
      return { manifest, problem: `${MANIFEST_NAME} is not JSON` };
    }
    if (!parsed.success) return { manifest, problem: `${MANIFEST_NAME} is not a manifest this version knows` };
    for (const entry of parsed.data.threads) manifest.set(entry);
    return { manifest };
  }

  /** The thread's entry in this format. */
  get(slug: string, format: ExportFormat): ManifestEntry | undefined {
    return this.entries.get(key(slug, format));
  }

  /** The thread's entry in this format, else in the other one (whose file name the new file shares). */
  any(slug: string, format: ExportFormat): ManifestEntry | undefined {
    return this.get(slug, format) ?? this.get(slug, format === 'md' ? 'json' : 'md');
  }

  /** The slug whose file `file` is, if any. */
  owner(file: string): string | undefined {
    return this.byFile.get(file.toLowerCase());
  }

  /** Takes the entry; one whose file is not a plain name in the folder is dropped (never a path out of it). */
  set(entry: ManifestEntry): void {
    if (entry.file !== path.basename(entry.file) || entry.file.startsWith('.')) return;
    const old = this.entries.get(key(entry.slug, entry.format));
    if (old) this.byFile.delete(old.file.toLowerCase());
    this.entries.set(key(entry.slug, entry.format), entry);
    this.byFile.set(entry.file.toLowerCase(), entry.slug);
    this.changed = true;
  }

  /** Whether the thread as the list shows it is already in the folder, in this format. */
  current(slug: string, lastActivity: string | null, format: ExportFormat): ManifestEntry | undefined {
    const entry = this.get(slug, format);
    return entry && lastActivity !== null && entry.lastActivity === lastActivity ? entry : undefined;
  }

  private text(): string {
    return `${JSON.stringify({ version: 1, threads: [...this.entries.values()] })}\n`;
  }

  /** Saves (whole, atomically) when something changed; one save at a time. */
  save(files: WholeFiles): Promise<void> {
    const run = this.saving.then(async () => {
      if (!this.changed) return;
      this.changed = false;
      await files.write(MANIFEST_NAME, this.text());
    });
    this.saving = run.catch(() => {
      this.changed = true; // a failed save is tried again by the next one
    });
    return run;
  }

  /** At once, for a process about to exit (a second Ctrl-C, SIGTERM, the terminal closed): whole, atomically. */
  saveSync(files: WholeFiles): void {
    files.writeSync(MANIFEST_NAME, this.text());
    this.changed = false;
  }
}
