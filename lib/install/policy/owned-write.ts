import fs from 'node:fs';
import type { ResolvedSystem } from '../system';

/**
 * Writes that land as they claim, whoever runs them: a mode that holds whatever the umask (chmod
 * after each mkdir and write), never through a link (a link at the file is refused, and the text goes
 * into a new file renamed over it), whole or not at all, and, when root writes in a person's folder,
 * folders and file given to that person. unblock's policy file and its record, and the Local State
 * switch, are written only through here.
 */

export interface Owner {
  uid: number;
  gid: number;
}

/** The uid this process runs as (undefined on Windows). */
export const processUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Who should own what root writes under `dir`: the owner of its nearest existing folder, when that
 * is not root and this process is root; else nobody (what we write is ours already).
 */
export function ownerFor(sys: ResolvedSystem, dir: string, uid: number | undefined): Owner | undefined {
  if (uid !== 0 || sys.platform === 'win32' || !sys.fs.lstatSync) return undefined;
  for (let at = dir; ; at = sys.path.dirname(at)) {
    try {
      const stat = sys.fs.lstatSync(at);
      return stat.uid === 0 ? undefined : { uid: stat.uid, gid: stat.gid };
    } catch {
      if (sys.path.dirname(at) === at) return undefined;
    }
  }
}

/**
 * Creates `dir` and each missing folder above it with `mode` (chmod, so the umask does not narrow
 * it) and, given one, `owner`. With `checkFrom` (root writing in a person's folder), each existing
 * folder from there down that is a link, or belongs to somebody else than that person or root, is
 * refused with words: root writes nothing through it.
 */
export function makeDirs(sys: ResolvedSystem, dir: string, mode: number, owner?: Owner, checkFrom?: string): void {
  const missing: string[] = [];
  let at = dir;
  while (!sys.fs.existsSync(at) && !isLink(sys, at)) {
    missing.unshift(at);
    const up = sys.path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (checkFrom) checkChain(sys, checkFrom, at, owner);
  for (const folder of missing) {
    sys.fs.mkdirSync(folder, { recursive: true, mode });
    sys.fs.chmodSync(folder, mode);
    if (owner) sys.fs.chownSync?.(folder, owner.uid, owner.gid);
  }
}

/** Each existing folder from `from` down to `to` must be a real folder, the person's or root's. */
function checkChain(sys: ResolvedSystem, from: string, to: string, owner: Owner | undefined): void {
  if (!sys.fs.lstatSync) return;
  const rel = sys.path.relative(from, to);
  if (rel.startsWith('..') || sys.path.isAbsolute(rel)) return;
  let at = from;
  for (const part of ['', ...rel.split(sys.path.sep).filter(Boolean)]) {
    if (part) at = sys.path.join(at, part);
    const stat = sys.fs.lstatSync(at);
    if (stat.isSymbolicLink() || !stat.isDirectory()) throw new Error(`${at} is a link or not a folder; comet-relay, running as root, writes nothing through it. Remove it, then run the command again.`);
    if (owner && stat.uid !== owner.uid && stat.uid !== 0) throw new Error(`${at} belongs to user ${stat.uid}, not to the person whose folder it is (user ${owner.uid}); comet-relay, running as root, writes nothing there.`);
  }
}

export function isLink(sys: ResolvedSystem, file: string): boolean {
  try {
    return sys.fs.lstatSync?.(file).isSymbolicLink() ?? false;
  } catch {
    return false;
  }
}

/**
 * The temporary name `file` is written under before it is renamed over: hidden, in the same folder
 * (a rename stays on one file system), one fixed name per file, so a crash leaves at most one, which
 * the next write replaces. Readers of a policy folder skip it (policy-places.ts).
 */
export const ownedTempName = (name: string) => `.${name}.comet-relay-tmp`;
export const isOwnedTempName = (name: string) => /^\..+\.comet-relay-tmp$/.test(name);

/**
 * Writes `text` to `file` whole with exactly `mode`, or not at all: into a temporary file beside it
 * (opened with O_EXCL and O_NOFOLLOW, so nothing planted there is written through; every byte
 * written, however many calls the OS needs, and flushed), then renamed over `file`. A full disk or a
 * killed process therefore leaves the earlier file as it was, never a cut-off one that reports
 * success (review 2026-12-05 #8). A link at `file` is refused with words, never followed; a hard
 * link there is simply replaced, since a rename writes into no other file. Given one, the owner is
 * set through the open descriptor.
 */
export function writeOwnedFile(sys: ResolvedSystem, file: string, text: string, mode: number, owner?: Owner): void {
  const f = sys.fs;
  if (isLink(sys, file)) throw Object.assign(new Error(`${file} is a link; comet-relay writes nothing through it. Remove it, then run the command again.`), { code: 'ELOOP' });
  const temp = sys.path.join(sys.path.dirname(file), ownedTempName(sys.path.basename(file)));
  // A temporary file a crash left behind (or anything planted under its name): removed, a link as a link.
  if (f.existsSync(temp) || isLink(sys, temp)) f.rmSync(temp, { force: true });
  try {
    if (sys.platform === 'win32' || !f.openSync || !f.writeSync || !f.fchmodSync || !f.closeSync) {
      // writeFileSync writes every byte or throws; 'wx' never opens a file that is there.
      f.writeFileSync(temp, text, { mode, flag: 'wx' });
      if (sys.platform !== 'win32') f.chmodSync(temp, mode);
    } else {
      const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
      const fd = f.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        writeAll(f, fd, Buffer.from(text, 'utf8'), file);
        f.fsyncSync?.(fd);
        f.fchmodSync(fd, mode);
        if (owner) f.fchownSync?.(fd, owner.uid, owner.gid);
      } finally {
        f.closeSync(fd);
      }
    }
    if (f.renameSync) f.renameSync(temp, file);
    else {
      // A file system without rename (a test's fake): the whole text, then the temporary file goes.
      f.writeFileSync(file, text, { mode });
      f.rmSync(temp, { force: true });
    }
  } catch (error) {
    try {
      f.rmSync(temp, { force: true });
    } catch {
      // left for the next write, which removes it first
    }
    throw error;
  }
}

/** Writes every byte of `bytes` (the OS may take fewer per call: a nearly full disk); a call that takes none is a full disk. */
function writeAll(f: ResolvedSystem['fs'], fd: number, bytes: Uint8Array, file: string): void {
  let at = 0;
  while (at < bytes.length) {
    const n = (f.writeSync as NonNullable<typeof f.writeSync>)(fd, bytes, at, bytes.length - at);
    if (!(n > 0)) {
      throw Object.assign(new Error(`could not write ${file} whole (${at} of ${bytes.length} bytes written; is the disk full?); the file was left as it was`), { code: 'ENOSPC' });
    }
    at += n;
  }
}
