import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { RelayError } from '../../protocol/errors';

/**
 * The `--out` folder made ready before anything is fetched: an existing folder (or a link to one) is
 * taken, a missing one is created with its parents. Whatever keeps it from being a folder (a file of
 * that name, a link to nothing, a file where a parent folder should be, no permission) is said in the
 * person's words with what to do, as a CONFIG_ERROR, never as the bare errno of a mkdir.
 */
export async function prepareOutFolder(out: string): Promise<{ dir: string; created: boolean }> {
  const dir = path.resolve(out);
  const there = await fsp.stat(dir).catch((error: NodeJS.ErrnoException) => error);
  if (!(there instanceof Error)) {
    if (!there.isDirectory()) throw new RelayError('CONFIG_ERROR', `--out ${dir} is a file, not a folder; pass a folder (a new name is created for you) with --out DIR.`);
    const foreign = foreignOut(there);
    if (foreign) throw new RelayError('CONFIG_ERROR', `--out ${dir} ${foreign}: your threads' titles and files would be theirs to read or replace. Pass a folder of your own with --out DIR (a new name is created for you).`);
    return { dir, created: false };
  }
  if (there.code === 'ENOENT') {
    const link = await fsp.readlink(dir).catch(() => undefined);
    if (link !== undefined) {
      throw new RelayError('CONFIG_ERROR', `--out ${dir} is a link to ${link}, which does not exist; create that folder, or pass another with --out DIR.`);
    }
    try {
      await fsp.mkdir(dir, { recursive: true });
      // Its files are the person's threads, and their names the threads' titles: a folder only they can list
      // (review 11f, F3: made 0755, every local user read the titles).
      await fsp.chmod(dir, 0o700);
    } catch (error) {
      throw await mkdirProblem(dir, error as NodeJS.ErrnoException);
    }
    return { dir, created: true };
  }
  if (there.code === 'ENOTDIR') throw await mkdirProblem(dir, there);
  throw accessProblem(dir, there);
}

/** Why an existing `--out` folder is no place for the export: another user's, or one every user may write (POSIX). */
function foreignOut(stat: fs.Stats): string | undefined {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return undefined;
  if (stat.uid !== uid && stat.uid !== 0) return `belongs to user ${stat.uid}`;
  if ((stat.mode & 0o002) !== 0) return 'can be written by every user';
  return undefined;
}

/** Why the folder could not be created, naming the part of the path at fault where that is what it was. */
async function mkdirProblem(dir: string, error: NodeJS.ErrnoException): Promise<RelayError> {
  if (error.code === 'ENOTDIR' || error.code === 'EEXIST' || error.code === 'ENOENT') {
    const file = await firstNonFolder(dir);
    if (file) return new RelayError('CONFIG_ERROR', `--out ${dir} cannot be a folder: ${file} is a file, not a folder; pass another with --out DIR.`);
  }
  return accessProblem(dir, error);
}

function accessProblem(dir: string, error: NodeJS.ErrnoException): RelayError {
  const code = error.code ? ` (${error.code})` : '';
  if (error.code === 'EACCES' || error.code === 'EPERM') {
    return new RelayError('CONFIG_ERROR', `--out ${dir} cannot be created or opened: you may not write there${code}; pass a folder of yours with --out DIR.`);
  }
  if (error.code === 'EROFS') return new RelayError('CONFIG_ERROR', `--out ${dir} is on a read-only file system${code}; pass a folder on a writable disk with --out DIR.`);
  return new RelayError('CONFIG_ERROR', `--out ${dir} cannot be used as the export folder: ${error.message}; pass another with --out DIR.`);
}

/** The nearest existing ancestor of `dir` (itself included) when it is something other than a folder. */
async function firstNonFolder(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = path.dirname(at)) {
    const info = await fsp.stat(at).catch(() => undefined);
    if (info) return info.isDirectory() ? undefined : at;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * A folder this run created and wrote nothing into (it failed before its first thread: no browser, signed out) is
 * removed again, so a failed first try leaves no empty `./perplexity-export` behind. rmdir takes only an empty
 * folder: anything in it, another run's lock included, keeps it.
 */
export function dropIfEmpty(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch {
    // not empty, or gone: left as it is
  }
}
