import fs from 'node:fs';
import { RelayError } from '../protocol/errors';

/**
 * The folders that hold our socket, discovery records and logs must belong to this user and admit
 * nobody else: whoever can write there can put a socket of their own where a client looks for the
 * host, or read what agents ask. Checked every time before use, not only when created. Windows
 * keeps these under the user's own profile (and uses named pipes), so there is nothing to check.
 */
export interface OwnerOptions {
  /** The user that must own it. Default: this process's user. */
  uid?: number;
  platform?: NodeJS.Platform;
}

const currentUid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/**
 * Creates `dir` owner-only (0700) if missing; otherwise requires a real directory (not a symlink)
 * owned by us, and tightens a wider mode to 0700. Throws CONFIG_ERROR saying what to do. Returns
 * the mode it had when it was tightened (install says so: it is never done silently), else undefined.
 */
export function ensurePrivateDir(dir: string, { uid = currentUid(), platform = process.platform }: OwnerOptions = {}): number | undefined {
  if (platform === 'win32') {
    fs.mkdirSync(dir, { recursive: true });
    return undefined;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new RelayError('CONFIG_ERROR', `${dir} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; comet-relay keeps its socket and records only in a real folder of yours. Remove it, or set COMET_RELAY_HOME to a folder only you can write.`);
  }
  if (stat.uid !== uid) {
    throw new RelayError('CONFIG_ERROR', `${dir} belongs to user ${stat.uid}, not to you (user ${uid}): another user could read or replace what comet-relay keeps there. Remove it (as that user or root), or set COMET_RELAY_HOME to a folder only you can write.`);
  }
  if ((stat.mode & 0o777) === 0o700) return undefined;
  fs.chmodSync(dir, 0o700);
  return stat.mode & 0o7777;
}

/**
 * A client about to connect: the socket must be a socket owned by us. Another user's socket at the
 * path we were pointed to is refused, never spoken to (it could be anyone's process).
 */
export function checkSocketOwner(file: string, { uid = currentUid(), platform = process.platform }: OwnerOptions = {}): void {
  if (platform === 'win32') return;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return; // not there: connecting fails with its own, clearer error
  }
  if (!stat.isSocket()) {
    throw new RelayError('EXTENSION_NOT_CONNECTED', `${file} is not a socket, so it is not a comet-relay host. Remove it and restart the browser (the host makes a new one).`);
  }
  if (stat.uid !== uid) {
    throw new RelayError(
      'PERMISSION_DENIED',
      `The host socket ${file} belongs to user ${stat.uid}, not to you (user ${uid}), so comet-relay will not talk to it: it could be another user's process. ` +
        'Remove it (as that user or root) and restart your browser, or give each user their own COMET_RELAY_HOME.',
    );
  }
}

/** Whether `file` belongs to us (records from anyone else are not ours to trust). */
export function ownedByUs(file: string, { uid = currentUid(), platform = process.platform }: OwnerOptions = {}): boolean {
  if (platform === 'win32') return true;
  try {
    return fs.lstatSync(file).uid === uid;
  } catch {
    return false;
  }
}
