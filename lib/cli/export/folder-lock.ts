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
 *
 * Taking over is one run at a time: only the run that creates `<lock>.takeover` exclusively may remove
 * a stale lock, and only while it still holds the very text judged stale. Without it, two runs that both
 * judged one lock stale could each remove "the stale lock", the second removing a fresh lock a third run
 * had just made in its place. No run ever moves or renames another run's file. A takeover file left by
 * a killed run is cleared the same way, one level up; one left at that level is named, to be removed.
 *
 * "Gone" is judged by hostname and pid alone. Two systems that share a hostname but not their pids (Windows
 * and WSL writing one folder, a container given the host's name) may take a live run for a dead one; a
 * reused pid keeps a dead run's lock standing. Either way every refusal names the file to remove.
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
    let stale: Holder | undefined;
    // Once more after a stale lock is cleared, or one released between the two calls (another run may take the name meanwhile).
    for (let attempt = 0; attempt < 3; attempt++) {
      if (create(file, text)) {
        held.add(text);
        if (stale) options.warn?.(`${file} was left by an export that is no longer running (pid ${stale.pid}, started ${stale.started}); this run takes it over.`);
        return new FolderLock(file, text);
      }
      const found = readLock(file);
      if (found.kind === 'gone') continue; // released between the two calls
      if (found.kind === 'link') throw linked(file);
      if (found.kind !== 'holder') throw busy(dir, file, undefined);
      if (!isStale(found.text, found.holder)) throw busy(dir, file, found.holder);
      removeStale(dir, file, found.text, 0);
      stale = found.holder;
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

/** How often, and how long apart, a run tries for a takeover file another run holds (a takeover lasts a few file calls). */
const TAKEOVER_TRIES = 5;
const TAKEOVER_PAUSE_MS = 4;

/** A takeover file left by a killed run is cleared under one more; one left at that level is for the person to remove. */
const TAKEOVER_LEVELS = 2;

/**
 * Removes `file` (a lock, or at level 1 a takeover file) only while it still holds `staleText`, as the one
 * run holding `<file>.takeover`: created exclusively, so no other run removes anything of that name
 * meanwhile, and removed after, only while it is still this run's. Throws, naming the takeover file,
 * when another run holds it through every try, or when a killed run left it at the last level.
 */
function removeStale(dir: string, file: string, staleText: string, level: number): void {
  const guard = `${file}.takeover`;
  const mine = `${JSON.stringify({ pid: process.pid, host: os.hostname(), started: new Date().toISOString(), run: randomBytes(4).toString('hex') })}\n`;
  held.add(mine);
  try {
    for (let tries = 1; !create(guard, mine); tries++) {
      const found = readLock(guard);
      if (found.kind === 'link') throw linked(guard);
      const stale = found.kind === 'holder' && isStale(found.text, found.holder);
      if (stale && level + 1 >= TAKEOVER_LEVELS) throw leftTakeover(dir, guard, found.holder);
      if (tries >= TAKEOVER_TRIES) throw takingOver(dir, guard, found.kind === 'holder' ? found.holder : undefined);
      if (stale) removeStale(dir, guard, found.text, level + 1);
      else if (found.kind !== 'gone') pause(TAKEOVER_PAUSE_MS); // held: a run clearing the same stale lock, done in a moment
    }
    // Cleared already when it holds anything else: maybe a live lock made since, which is not this run's to remove.
    const now = readLock(file);
    if (now.kind === 'holder' && now.text === staleText) fs.rmSync(file, { force: true });
  } finally {
    held.delete(mine);
    const still = readLock(guard);
    if (still.kind === 'holder' && still.text === mine) fs.rmSync(guard, { force: true });
  }
}

/** Blocks this thread for `ms` (take is synchronous: a process about to exit may call it too). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function linked(file: string): RelayError {
  return new RelayError('CONFIG_ERROR', `${file} is a link, not a lock file an export made; comet-relay follows no link there. Remove it, then run the same command again.`);
}

/** The takeover file stayed held: another run is clearing the same stale lock, or one cannot be checked from here. */
function takingOver(dir: string, guard: string, holder: Holder | undefined): RelayError {
  const who = holder ? ` (pid ${holder.pid}${holder.host === os.hostname() ? '' : ` on ${holder.host}`}, started ${holder.started})` : '';
  return new RelayError(
    'CONFIG_ERROR',
    `Another export${who} is taking over the stale lock of ${dir} this very moment: ${guard} is held. Two exports into one folder spoil each other's record of what was written. Run the same command again in a moment; if no export is running, remove ${guard} and run it again.`,
  );
}

/** A takeover file a killed run left where no further level clears it. */
function leftTakeover(dir: string, guard: string, holder: Holder): RelayError {
  return new RelayError(
    'CONFIG_ERROR',
    `${guard} was left by an export that stopped while taking over the lock of ${dir} (pid ${holder.pid}, started ${holder.started}; no longer running). Remove ${guard}, then run the same command again.`,
  );
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
