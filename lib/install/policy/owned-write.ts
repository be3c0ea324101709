import fs from 'node:fs';
import type { ResolvedSystem } from '../system';

/**
 * Writes that land as they claim, whoever runs them: a mode that holds whatever the umask (chmod
 * after each mkdir and write), never through a link (the file is opened with O_NOFOLLOW, and one
 * with other names is refused), and, when root writes in a person's folder, folders and file given
 * to that person. unblock's policy file and its record are written only through here.
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
 * Writes `text` to `file` with exactly `mode`: opened with O_NOFOLLOW (a link there is an error,
 * never followed), refused when the file has other names (a hard link to another file), truncated
 * only then, chmod-ed and, given one, chown-ed through the open descriptor.
 */
export function writeOwnedFile(sys: ResolvedSystem, file: string, text: string, mode: number, owner?: Owner): void {
  const f = sys.fs;
  if (sys.platform === 'win32' || !f.openSync || !f.fstatSync || !f.ftruncateSync || !f.writeSync || !f.fchmodSync || !f.closeSync) {
    f.writeFileSync(file, text, { mode });
    if (sys.platform !== 'win32') f.chmodSync(file, mode);
    return;
  }
  const { O_WRONLY, O_CREAT, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = f.openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw Object.assign(new Error(`${file} is a link; comet-relay writes nothing through it. Remove it, then run the command again.`), { code: 'ELOOP' });
    throw error;
  }
  try {
    const stat = f.fstatSync(fd);
    if (!stat.isFile() || stat.nlink > 1) throw new Error(`${file} is not a plain file of its own (it has ${stat.nlink} names); comet-relay writes nothing into it. Remove it, then run the command again.`);
    f.ftruncateSync(fd, 0);
    f.writeSync(fd, text);
    f.fchmodSync(fd, mode);
    if (owner) f.fchownSync?.(fd, owner.uid, owner.gid);
  } finally {
    f.closeSync(fd);
  }
}
