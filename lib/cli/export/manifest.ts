import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { WholeFiles } from './atomic-write';
import type { ExportFormat } from './names';

/**
 * The export folder's memory of what it holds: for each thread, its file, its format and the last
 * activity the thread list showed when it was written. A later run rewrites a thread only when the
 * list shows newer activity (or its file is gone, or the format changed). One small entry a thread;
 * no thread's text is kept.
 */
export const MANIFEST_NAME = '.comet-relay-export.json';

const Entry = z.object({
  slug: z.string().min(1),
  file: z.string().min(1),
  format: z.enum(['md', 'json']),
  lastActivity: z.string().nullable(),
});
export type ManifestEntry = z.infer<typeof Entry>;

const File = z.object({ version: z.literal(1), threads: z.array(Entry) });

export class Manifest {
  private readonly bySlug = new Map<string, ManifestEntry>();
  /** File name (lower case: some file systems ignore case) → the slug whose file it is. */
  private readonly byFile = new Map<string, string>();
  private saving: Promise<void> = Promise.resolve();
  private lastSaved = 0;
  private changed = false;

  /** The folder's manifest; an unreadable one is reported (`problem`) and the run starts afresh. */
  static async load(dir: string): Promise<{ manifest: Manifest; problem?: string }> {
    const manifest = new Manifest();
    let text: string;
    try {
      text = await fsp.readFile(path.join(dir, MANIFEST_NAME), 'utf8');
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
    for (const entry of parsed.data.threads) {
      if (entry.file !== path.basename(entry.file) || entry.file.startsWith('.')) continue; // never a path out of the folder
      manifest.set(entry);
    }
    return { manifest };
  }

  get size(): number {
    return this.bySlug.size;
  }

  get(slug: string): ManifestEntry | undefined {
    return this.bySlug.get(slug);
  }

  /** The slug whose file `file` is, if any. */
  owner(file: string): string | undefined {
    return this.byFile.get(file.toLowerCase());
  }

  set(entry: ManifestEntry): void {
    const old = this.bySlug.get(entry.slug);
    if (old) this.byFile.delete(old.file.toLowerCase());
    this.bySlug.set(entry.slug, entry);
    this.byFile.set(entry.file.toLowerCase(), entry.slug);
    this.changed = true;
  }

  /** Whether the thread as the list shows it is already in the folder, in this format. */
  current(slug: string, lastActivity: string | null, format: ExportFormat): ManifestEntry | undefined {
    const entry = this.bySlug.get(slug);
    return entry && entry.format === format && lastActivity !== null && entry.lastActivity === lastActivity ? entry : undefined;
  }

  /** Saves (whole, atomically) when something changed and `everyMs` has passed since the last save; one save at a time. */
  save(files: WholeFiles, everyMs = 0): Promise<void> {
    const run = this.saving.then(async () => {
      if (!this.changed || Date.now() - this.lastSaved < everyMs) return;
      this.changed = false;
      this.lastSaved = Date.now();
      const threads = [...this.bySlug.values()];
      await files.write(MANIFEST_NAME, `${JSON.stringify({ version: 1, threads })}\n`);
    });
    this.saving = run.catch(() => {
      this.changed = true; // a failed save is tried again by the next one
    });
    return run;
  }
}
