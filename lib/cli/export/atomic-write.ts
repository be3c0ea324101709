import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Files that appear whole or not at all: the text goes to a new temporary file in the same folder
 * (created exclusively, so a link planted under its name is refused, never followed), is flushed to
 * disk, and is renamed over the target (a rename replaces a link at the target; it never writes
 * through it). The temporary files of this run are known by name, so an interrupted run removes them.
 */
const TEMP_SUFFIX = '.comet-relay-tmp';

export class WholeFiles {
  /** The temporary files being written now. */
  private readonly inFlight = new Set<string>();
  /** Set by removeTemporaries: the process is exiting and no write may finish any more. */
  private closed = false;

  constructor(readonly dir: string) {}

  async write(name: string, text: string): Promise<string> {
    if (name !== path.basename(name) || name === '' || name === '.' || name === '..' || name.endsWith(TEMP_SUFFIX)) throw new Error(`Refusing to write "${name}": not a plain file name.`);
    const target = path.join(this.dir, name);
    const temp = path.join(this.dir, `.${name.slice(0, 120)}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
    this.inFlight.add(temp);
    try {
      if (this.closed) throw new Error('The export was interrupted.');
      const handle = await fsp.open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (this.closed) throw new Error('The export was interrupted.');
      await fsp.rename(temp, target);
      this.inFlight.delete(temp);
      await syncDir(this.dir);
      return target;
    } catch (error) {
      this.inFlight.delete(temp);
      await fsp.rm(temp, { force: true });
      throw error;
    }
  }

  /** At once, for a process about to exit: no half-written file stays behind. */
  removeTemporaries(): void {
    this.closed = true;
    for (const temp of this.inFlight) fs.rmSync(temp, { force: true });
    this.inFlight.clear();
  }

  /** The temporary files an earlier run left when it was killed outright (only ours, by their suffix). */
  async removeLeftovers(): Promise<number> {
    let removed = 0;
    for (const entry of await fsp.readdir(this.dir, { withFileTypes: true })) {
      if (!entry.name.startsWith('.') || !entry.name.endsWith(TEMP_SUFFIX) || entry.isDirectory()) continue;
      await fsp.rm(path.join(this.dir, entry.name), { force: true });
      removed += 1;
    }
    return removed;
  }

  async exists(name: string): Promise<boolean> {
    try {
      return (await fsp.lstat(path.join(this.dir, name))).isFile();
    } catch {
      return false;
    }
  }
}

/** The rename itself made durable where the OS lets a folder be flushed (not on Windows). */
async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const handle = await fsp.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // A file system that cannot flush a folder still has the whole file.
  }
}
