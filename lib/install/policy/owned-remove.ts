import type { FsLike, ResolvedSystem } from '../system';
import { tildify } from '../system';

/**
 * Removals (and the few rewrites) root makes under sudo for the person who ran it: `sudo comet-relay
 * uninstall` takes back that person's install, in folders the person controls. A link there (their
 * `…/comet-relay/bin` → /etc, a `NativeMessagingHosts` → /usr/lib/…) would make root remove a file of
 * comet-relay's name in a system folder, and a file there of somebody else's would be another install's
 * or another user's. So root acts on a path only when, from the first folder on its way that is not
 * root's down, nothing is a link and nothing belongs to a third user, and the path itself is a regular
 * file (or socket; a folder for rmdir) of the person's; a path all of root's own is root's business.
 * Root also removes a regular file (or empty folder) of root's own in such a link-free chain: that is
 * what `sudo comet-relay install` leaves when sudo keeps HOME (macOS, `sudo -E`), and removing one
 * takes away a name only, even a hard link to a system file, whose text stays where it was. Writing
 * into one would change that file, so root writes into the person's own files only.
 * What fails is left alone, with why and what to do. Node has no unlinkat: the check and the removal
 * are two steps, so only the person, racing their own folders, could slip between them.
 */

/** The person root acts for under sudo (SUDO_USER, SUDO_UID). */
export interface SudoPerson {
  user: string;
  uid: number;
}

/** Root acting for `person`, and the command the person runs instead, without sudo. */
export interface ActingFor extends SudoPerson {
  plain: string;
}

/** A path root leaves alone; the message says which, why, and what to do. */
export class LeftAlone extends Error {}

type Stat = ReturnType<NonNullable<FsLike['lstatSync']>>;

/** `target` and each folder above it, from the file system's root down (POSIX: sudo runs nowhere else). */
function chain(sys: ResolvedSystem, target: string): string[] {
  const full = sys.path.resolve(target);
  const out = [sys.path.parse(full).root];
  for (const part of full.split(sys.path.sep).filter(Boolean)) out.push(sys.path.join(out[out.length - 1] as string, part));
  return out;
}

function lstat(sys: ResolvedSystem, file: string): Stat | undefined {
  try {
    return sys.fs.lstatSync?.(file);
  } catch {
    return undefined;
  }
}

/**
 * What root does at a path: removes a regular file, removes an empty folder (rmdir) or makes a name in
 * it, writes into a file, or removes a folder with all it holds. Only the first two are done to root's
 * own in the person's folders.
 */
export type RootAct = 'file' | 'folder' | 'write' | 'tree';

/**
 * Why root, acting for `person`, must leave `target` alone; undefined when it may act on it, or when
 * nothing is there to act on (a link with nothing of that name behind it is no reason to say a word).
 */
export function leftAloneWhy(sys: ResolvedSystem, person: ActingFor, target: string, act: RootAct): string | undefined {
  if (!sys.fs.lstatSync) return undefined;
  const t = (file: string) => tildify(sys, file);
  const todo = `if it is comet-relay's, remove it yourself, as ${person.user}, or run \`${person.plain}\` as ${person.user}, without sudo`;
  const folders = chain(sys, target);
  const file = folders.pop() as string;
  let theirs = false;
  for (const at of folders) {
    const stat = lstat(sys, at);
    if (!stat) return undefined;
    if (stat.uid !== 0) theirs = true;
    // Root's own folders and links (macOS's /var → /private/var) are root's business; checks begin in the person's.
    if (!theirs) continue;
    if (!sys.fs.existsSync(file)) return undefined;
    if (stat.uid !== 0 && stat.uid !== person.uid) {
      return `left alone everything under ${t(at)}: it belongs to user ${stat.uid}, neither ${person.user} nor root, and root acts in no other user's folders for ${person.user}; if something there is comet-relay's, its owner removes it`;
    }
    if (stat.isSymbolicLink()) return `left alone ${t(at)} and everything under it: it is a link, and root follows no link in ${person.user}'s folders; ${todo}`;
    if (!stat.isDirectory()) return undefined;
  }
  const stat = lstat(sys, file);
  if (!stat) return undefined;
  if (stat.isSymbolicLink() && (theirs || stat.uid !== 0)) return `left alone ${t(file)}: it is a link, and root removes no link in ${person.user}'s folders; ${todo}`;
  if (stat.uid === 0 && !theirs) return undefined;
  const folder = act === 'folder' || act === 'tree';
  const what = folder ? 'a folder' : 'a regular file';
  if (stat.uid === 0) {
    // Reached without a link through folders of the person's and root's: a sudo install's own file, removed by name.
    if (act === 'file' && stat.isFile()) return undefined;
    if (act === 'folder' && stat.isDirectory()) return undefined;
    if (act === 'write') return `left alone ${t(file)}: it belongs to root, and root writes into none of root's files in ${person.user}'s folders (one may be a hard link to a system file); ${todo}`;
    if (act === 'tree') return `left alone ${t(file)}: it belongs to root, and root removes no folder of root's in ${person.user}'s folders with all it holds; ${todo}`;
    return `left alone ${t(file)}: it belongs to root and is not ${what}; ${todo}`;
  }
  if (stat.uid !== person.uid) return `left alone ${t(file)}: it belongs to user ${stat.uid}, neither ${person.user} nor root, and root removes no other user's files for ${person.user}; ${todo}`;
  const fits = folder ? stat.isDirectory() : stat.isFile() || stat.isSocket();
  if (!fits) return `left alone ${t(file)}: it is not ${what}; ${todo}`;
  return undefined;
}

/** The nearest folder of `dir` that exists (followed as root would follow it). */
function nearestExisting(sys: ResolvedSystem, dir: string): string {
  let at = sys.path.resolve(dir);
  while (!sys.fs.existsSync(at) && sys.path.dirname(at) !== at) at = sys.path.dirname(at);
  return at;
}

/**
 * `sys.fs` for root acting for `person`: each removal, write and folder made is checked first
 * (leftAloneWhy) and throws LeftAlone instead of acting through a link or on somebody else's file.
 * Reads, and writes through descriptors (owned-write.ts, which checks its own way), pass as they are.
 */
export function guardedFs(sys: ResolvedSystem, person: ActingFor): FsLike {
  const f = sys.fs;
  const check = (target: string, act: RootAct) => {
    const why = leftAloneWhy(sys, person, target, act);
    if (why) throw new LeftAlone(why);
  };
  return {
    ...f,
    rmSync: (file, options) => {
      check(file, options?.recursive ? 'tree' : 'file');
      f.rmSync(file, options);
    },
    rmdirSync: (dir) => {
      check(dir, 'folder');
      f.rmdirSync(dir);
    },
    writeFileSync: (file, data, options) => {
      check(file, 'write');
      // A new file: the folder it lands in must be reached without a link too.
      check(sys.path.dirname(file), 'folder');
      f.writeFileSync(file, data, options);
    },
    mkdirSync: (dir, options) => {
      check(nearestExisting(sys, dir), 'folder');
      return f.mkdirSync(dir, options);
    },
  };
}

/**
 * The first existing path on the way to `target` (itself included) that is not root's, with whether it
 * is a link; undefined when every one that exists is root's.
 */
export function firstNotRoots(sys: ResolvedSystem, target: string): { at: string; uid: number; link: boolean } | undefined {
  for (const at of chain(sys, target)) {
    const stat = lstat(sys, at);
    if (!stat) return undefined;
    if (stat.uid !== 0) return { at, uid: stat.uid, link: stat.isSymbolicLink() };
  }
  return undefined;
}
