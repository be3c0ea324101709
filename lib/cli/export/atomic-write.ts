import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Files that appear whole or not at all: the text goes to a new temporary file in the same folder
 * (created exclusively, so a link planted under its name is refused, never followed), is flushed to
 * disk, and is renamed over the target (a rename replaces a link at the target; it never writes
 * through it). A file the export did not make is never replaced: written with `replace: false`, the
 * temporary file is hard-linked to the target, which fails with EEXIST when anything holds that name.
 * The temporary files of this run are known by name, so an interrupted run removes them.
 */
const TEMP_SUFFIX = '.comet-relay-tmp';

export class WholeFiles {
  /** The temporary files being written now. */
  private readonly inFlight = new Set<string>();
  /** Set by removeTemporaries: the process is exiting and no write may finish any more. */
  private closed = false;

  constructor(readonly dir: string) {}

  /** `replace: false`: fails with EEXIST (the file untouched) when something already has the name. */
  async write(name: string, text: string, options: { replace?: boolean } = {}): Promise<string> {
    const { target, temp } = this.paths(name);
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
      if (options.replace === false) await placeNew(temp, target);
      else await fsp.rename(temp, target);
      this.inFlight.delete(temp);
      await syncDir(this.dir);
      return target;
    } catch (error) {
      this.inFlight.delete(temp);
      await fsp.rm(temp, { force: true });
      throw error;
    }
  }

  /**
   * The same whole-or-absent write, synchronously, for the one file a process about to exit still saves
   * (the manifest); it goes on after removeTemporaries, which stops only the writes under way.
   */
  writeSync(name: string, text: string): string {
    const { target, temp } = this.paths(name);
    try {
      const fd = fs.openSync(temp, 'wx', 0o600);
      try {
        fs.writeFileSync(fd, text, 'utf8');
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, target);
      return target;
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  }

  private paths(name: string): { target: string; temp: string } {
    if (name !== path.basename(name) || name === '' || name === '.' || name === '..' || name.endsWith(TEMP_SUFFIX)) throw new Error(`Refusing to write "${name}": not a plain file name.`);
    return {
      target: path.join(this.dir, name),
      temp: path.join(this.dir, `.${name.slice(0, 120)}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`),
    };
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

/**
 * `temp` appears as `target` only where nothing has that name: a hard link never replaces (EEXIST), so
 * no file made between a check and the write is lost. Where the file system has no hard links (FAT,
 * some network shares) the name is checked, then renamed to: a narrow race rather than no export.
 */
async function placeNew(temp: string, target: string): Promise<void> {
  try {
    await fsp.link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error;
    const there = await fsp.lstat(target).then(
      () => true,
      () => false,
    );
    if (there) throw Object.assign(new Error(`EEXIST: file already exists, '${target}'`), { code: 'EEXIST' });
    await fsp.rename(temp, target);
    return;
  }
  await fsp.rm(temp, { force: true }).catch(() => undefined); // the file is whole; a leftover goes next run
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
