import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { FolderProblem, folderProblem } from './folder-problem';
import { type Manifest, type ManifestEntry, ManifestEntrySchema } from './manifest';

/**
 * What the export wrote since the manifest was last saved, kept on disk one line a file, so that a run
 * ended without its closing save (killed, the terminal closed, a crash, the machine off) still knows
 * its files: the next run would otherwise take them for the person's and write each thread again
 * beside its own file. Rewriting the whole manifest after each thread would cost a library's worth of
 * manifest a thread; a line appended and flushed costs one line.
 *
 * The line is written before the file it names, with the SHA-256 of the text about to go in, and the
 * next run believes a line only when the file there holds exactly that text: a write the kill cut
 * short (the file absent, or still the old text) and a name that turned out to be someone else's file
 * (the write refused) are both told apart from the export's own files, and so is a line cut in half.
 * The journal is removed once the manifest holding all of it is saved.
 */
export const JOURNAL_NAME = '.comet-relay-export.journal';

const Line = ManifestEntrySchema.extend({ sha256: z.string().regex(/^[0-9a-f]{64}$/) });

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

// No symbolic link is followed to write the journal, and a pipe planted under its name does not block the run; a
// hard link, or a file of another user's, is refused once open (open().)
const APPEND = fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

export class Journal {
  private handle: Promise<fsp.FileHandle> | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** The journal at `file` is one this run read or wrote: the only kind it removes. */
  private ours = false;
  readonly file: string;

  constructor(readonly dir: string) {
    this.file = path.join(dir, JOURNAL_NAME);
  }

  /**
   * Notes, flushed to disk, that `entry.file` is about to hold `text`; lines are appended one at a time.
   * Any failure is the folder's (every thread needs a line), so it is a FolderProblem: the run stops.
   */
  note(entry: ManifestEntry, text: string): Promise<void> {
    const line = Buffer.from(`${JSON.stringify({ ...entry, sha256: sha256(text) })}\n`, 'utf8');
    const run = this.queue.then(async () => {
      try {
        this.handle ??= this.open();
        const handle = await this.handle;
        const { bytesWritten } = await handle.write(line);
        // A nearly full disk can take part of a write without an error.
        if (bytesWritten !== line.length) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
        await handle.datasync();
      } catch (error) {
        throw this.problem(error);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Puts into `manifest` what an earlier run's journal says it wrote, each line only where the file holds
   * the very text it noted, in the order written (so a later write of a thread overrides an earlier one).
   * Returns how many lines were taken; an unreadable journal is as good as none.
   */
  async replay(manifest: Manifest): Promise<number> {
    let text: string;
    try {
      if (!(await fsp.lstat(this.file)).isFile()) return 0;
      text = await fsp.readFile(this.file, 'utf8');
    } catch {
      return 0;
    }
    this.ours = true;
    const hashes = new Map<string, Promise<string | undefined>>();
    let taken = 0;
    for (const raw of text.split('\n')) {
      const line = parse(raw);
      if (!line || line.file !== path.basename(line.file)) continue;
      let hash = hashes.get(line.file);
      if (!hash) {
        hash = contentHash(path.join(this.dir, line.file));
        hashes.set(line.file, hash);
      }
      if ((await hash) !== line.sha256) continue;
      const { sha256: _, ...entry } = line;
      manifest.set(entry);
      taken += 1;
    }
    return taken;
  }

  /** Once the manifest holding every line is saved: the journal goes (only a file it read or wrote, never one planted there). */
  async remove(): Promise<void> {
    await this.close();
    if (this.ours) await fsp.rm(this.file, { force: true });
  }

  async close(): Promise<void> {
    await this.queue;
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle.catch(() => undefined))?.close();
  }

  private async open(): Promise<fsp.FileHandle> {
    const handle = await fsp.open(this.file, APPEND, 0o600);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw new FolderProblem(`${this.file} is not a file comet-relay made (a pipe or a device); remove it, then run the same command again.`);
    }
    // A name that is also another file (a hard link planted by someone who may write the folder), or a file another user
    // owns, would take each thread's line into that file, or hand the lines to them (review 11f, F2).
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (stat.nlink > 1 || (uid !== undefined && stat.uid !== uid)) {
      await handle.close();
      throw new FolderProblem(`${this.file} is not a file comet-relay made (${stat.nlink > 1 ? 'it is also another file, a hard link' : `it belongs to user ${stat.uid}`}); remove it, then run the same command again.`);
    }
    this.ours = true;
    // A line an earlier run's full disk cut short has no newline: this run's first line must not be glued to it, or
    // both are unreadable and that file is taken for someone else's (day-2 review L2).
    if (stat.size > 0) {
      const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, stat.size - 1);
      if (buffer[0] !== 0x0a) await handle.write('\n');
    }
    return handle;
  }

  private problem(error: unknown): FolderProblem {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') {
      return new FolderProblem(`${this.file} is a link; comet-relay writes nothing through it. Remove it, then run the same command again.`);
    }
    return folderProblem(error, this.dir) ?? new FolderProblem(`Cannot write ${this.file} (${(error as Error).message}); check that folder, or pass another with --out DIR, then run the same command again.`);
  }
}

function parse(raw: string): z.infer<typeof Line> | undefined {
  if (!raw.trim()) return undefined;
  try {
    const parsed = Line.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // a line the kill cut in half
  }
}

/** The hash of a plain file's bytes (a link or anything else: no hash, so no line matches it). */
async function contentHash(file: string): Promise<string | undefined> {
  try {
    if (!(await fsp.lstat(file)).isFile()) return undefined;
    return sha256(await fsp.readFile(file));
  } catch {
    return undefined;
  }
}
