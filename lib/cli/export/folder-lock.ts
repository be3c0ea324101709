import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RelayError } from '../../protocol/errors';

/**
 * One export at a time into a folder. Two at once (a cron job and a run by hand) would each save the
 * manifest as they know it, the last one losing the other's entries, and each would take the other's
 * temporary files for leftovers of a killed run and delete them mid-write. The first run creates the
 * lock file exclusively (O_EXCL: an existing name, a link included, is never opened or followed),
 * holding its pid, host and start time (and a run id); a second run into the folder refuses, naming them.
 *
 * A lock whose process is gone (killed outright, a crash, the machine off) is taken over with a note:
 * its pid no longer runs on this host. A lock from another host cannot be checked, so it stands until
 * the person removes it. A run removes the lock only while it still holds its own contents, never one
 * another run wrote.
 */
export const LOCK_NAME = '.comet-relay-export.lock';

interface Holder {
  pid: number;
  host: string;
  started: string;
}

export interface LockOptions {
  /** A note for the person (a stale lock taken over). */
  warn?(text: string): void;
}

/** The texts of the locks this process holds (each has a run id): a second export in this process finds its own pid there. */
const held = new Set<string>();

export class FolderLock {
  private released = false;

  private constructor(
    readonly file: string,
    private readonly text: string,
  ) {}

  /** Takes the lock of `dir`, or throws a CONFIG_ERROR saying which run holds it and what to do. */
  static take(dir: string, options: LockOptions = {}): FolderLock {
    const file = path.join(dir, LOCK_NAME);
    const me = { pid: process.pid, host: os.hostname(), started: new Date().toISOString(), run: randomBytes(4).toString('hex') };
    const text = `${JSON.stringify(me)}\n`;
    // Once more after a stale lock is cleared, or one released between the two calls (another run may take the name meanwhile).
    for (let attempt = 0; attempt < 3; attempt++) {
      if (create(file, text)) {
        held.add(text);
        return new FolderLock(file, text);
      }
      const found = readLock(file);
      if (found.kind === 'gone') continue; // released between the two calls
      if (found.kind === 'link') {
        throw new RelayError('CONFIG_ERROR', `${file} is a link, not a lock file an export made; comet-relay follows no link there. Remove it, then run the same command again.`);
      }
      if (found.kind !== 'holder') throw busy(dir, file, undefined);
      if (!isStale(found.text, found.holder)) throw busy(dir, file, found.holder);
      clearStale(file, found.text);
      options.warn?.(`${file} was left by an export that is no longer running (pid ${found.holder.pid}, started ${found.holder.started}); this run takes it over.`);
    }
    throw busy(dir, file, undefined);
  }

  /** Removes the lock, only while it holds what this run wrote: synchronous, for a process about to exit. */
  releaseSync(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this.text);
    const found = readLock(this.file);
    if (found.kind !== 'holder' || found.text !== this.text) return; // not ours any more: another run's to remove
    try {
      fs.rmSync(this.file, { force: true });
    } catch {
      // Left behind: the next run finds its pid gone and takes it over.
    }
  }
}

/** Creates `file` holding `text`, only if nothing has that name; false when something has. */
function create(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new RelayError('CONFIG_ERROR', `Cannot create the export's lock file ${file} (${(error as Error).message}); make the folder writable for you, or pass another with --out DIR.`);
  }
  try {
    fs.writeFileSync(fd, text, 'utf8');
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw new RelayError('CONFIG_ERROR', `Cannot write the export's lock file ${file} (${(error as Error).message}); free some space there or pass another folder with --out DIR.`);
  }
  fs.closeSync(fd);
  return true;
}

type Found = { kind: 'gone' } | { kind: 'link' } | { kind: 'unreadable'; text: string } | { kind: 'holder'; holder: Holder; text: string };

function readLock(file: string): Found {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'gone' };
    if (code === 'ELOOP' || code === 'EMLINK') return { kind: 'link' };
    return { kind: 'unreadable', text: '' };
  }
  let text: string;
  try {
    if (!fs.fstatSync(fd).isFile()) return { kind: 'unreadable', text: '' };
    text = fs.readFileSync(fd, 'utf8');
  } catch {
    return { kind: 'unreadable', text: '' };
  } finally {
    fs.closeSync(fd);
  }
  try {
    const data = JSON.parse(text) as Partial<Holder>;
    if (Number.isInteger(data.pid) && (data.pid as number) > 0 && typeof data.host === 'string' && typeof data.started === 'string') {
      return { kind: 'holder', holder: data as Holder, text };
    }
  } catch {
    // cut short, or not ours: said as unreadable
  }
  return { kind: 'unreadable', text };
}

/** The holder's process is gone: on this host, its pid not running (or it is this process's, which holds no such lock). */
function isStale(text: string, holder: Holder): boolean {
  if (holder.host !== os.hostname()) return false;
  // Our own pid: another run in this process, or a process before us with the same pid (a container's pid 1).
  if (holder.pid === process.pid) return !held.has(text);
  return !isAlive(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: it runs, as someone else
  }
}

/**
 * Removes the stale lock, and only it: moved aside first (atomic), then checked to be the very text
 * judged stale. Another run that took it over meanwhile has its own lock there, which is put back.
 */
function clearStale(file: string, staleText: string): void {
  const aside = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // gone already: the next attempt creates it
  }
  let text = '';
  try {
    text = fs.readFileSync(aside, 'utf8');
  } catch {
    // unreadable: taken as another's, put back below
  }
  if (text === staleText) {
    fs.rmSync(aside, { force: true });
    return;
  }
  try {
    fs.linkSync(aside, file);
  } catch (error) {
    // No hard links here (FAT, some shares): moved back while the name is free. EEXIST: a newer lock stands there.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' && !fs.existsSync(file)) {
      fs.renameSync(aside, file);
      return;
    }
  }
  fs.rmSync(aside, { force: true });
}

/** The refusal: which run holds the folder, and what to do. */
function busy(dir: string, file: string, holder: Holder | undefined): RelayError {
  if (!holder) {
    return new RelayError(
      'CONFIG_ERROR',
      `Another export may be writing into ${dir}: its lock file ${file} cannot be read (an export starting this very moment, or one cut off while it made the file). Two exports into one folder spoil each other's record of what was written. Wait for it to finish; if no export is running, remove ${file} and run the same command again.`,
    );
  }
  const where = holder.host === os.hostname() ? '' : ` on ${holder.host}`;
  return new RelayError(
    'CONFIG_ERROR',
    `Another export is writing into ${dir} (pid ${holder.pid}${where}, started ${holder.started}): two exports into one folder spoil each other's record of what was written. Wait for it to finish, or pass another folder with --out DIR; if that process is gone, remove ${file} and run the same command again.`,
  );
}
