import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire, wrap } from 'node:module';
import { CODE_CACHE_FILE, shortHash } from '../relay/paths';

/**
 * Loads one of our CommonJS bundles with V8's code cache, so a `comet-relay mcp` started by an MCP
 * client does not compile the MCP SDK and zod again every time. Node 22.1+ has this built in
 * (`module.enableCompileCache`); Node 20 has only the pieces: `vm.Script` accepts `cachedData` and
 * produces it with `createCachedData()`, which is what this uses (a short cold start).
 *
 * The cache lives in `<state>/cache/` (owner-only, like the rest of the state folder; `uninstall
 * --purge` removes it). A cache is code: V8 checks it against the source's length, its own version
 * and flags only, and runs the cached functions of a different source of the same length (tested).
 * So the file name carries what identifies this very file: its path, size, modification time, and
 * its inode and change time (which no rewrite or `touch` can keep: a release's files all carry one
 * fixed mtime, and a rebuilt file can keep its size), our version and Node's; and a cache is read
 * only from a folder and a file that are ours and that nobody else may write. A cache V8 rejects is
 * written again; any failure to read or write one only costs the time it would have saved.
 */
export interface CacheOptions {
  /** The folder for cache files; undefined runs without a cache. */
  dir: string | undefined;
  /** Our version, part of the key (a release's files carry a fixed mtime). */
  version: string;
  /** How long after loading the cache is written: long enough for the first requests to have compiled their code. */
  writeAfterMs?: number;
  /** The user the cache folder and file must belong to (default: this process's); for tests. */
  uid?: number;
  platform?: NodeJS.Platform;
}

export function cacheKey(file: string, stat: { size: number; mtimeMs: number; ctimeMs: number; ino: number }, version: string): string {
  const identity = [file, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, version, process.version, process.arch].join('\0');
  return `${path.basename(file, '.js')}-${shortHash(identity)}.v8cache`;
}

const currentUid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/**
 * Owned by `uid` and closed to everybody else (install's rule for the state folder): what another user or process
 * cannot have put there. One rule for reading and writing, so a cache read is one that can be written again (day-7b G6).
 */
function oursAlone(stat: fs.Stats, uid: number): boolean {
  return stat.uid === uid && (stat.mode & 0o077) === 0;
}

/**
 * The cache's bytes, only from a real folder and a plain file that belong to this user alone
 * (checked on the open file, so nothing can be swapped in between); undefined otherwise.
 */
function readOwnCache(dir: string, file: string, { uid = currentUid(), platform = process.platform }: Pick<CacheOptions, 'uid' | 'platform'>): Buffer | undefined {
  let fd: number | undefined;
  try {
    const checks = platform !== 'win32'; // Windows keeps the state folder in the user's own profile
    const folder = fs.lstatSync(dir);
    if (!folder.isDirectory() || (checks && !oursAlone(folder, uid))) return undefined;
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || (checks && !oursAlone(stat, uid))) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined; // no cache yet, or one we will not use
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export interface Loaded {
  exports: unknown;
  /** `used`: compiled from the cache; `scheduled`: none (or a rejected one), one is written soon; `off`: no cache folder. */
  cache: 'used' | 'scheduled' | 'off';
}

export function requireWithCodeCache(file: string, options: CacheOptions): Loaded {
  const source = asciiOnly(fs.readFileSync(file, 'utf8').replace(/^#!.*/, '')); // the shebang line stays, empty: line numbers hold
  const cacheFile = options.dir ? path.join(options.dir, cacheKey(file, fs.statSync(file), options.version)) : undefined;
  const cachedData = cacheFile && options.dir ? readOwnCache(options.dir, cacheFile, options) : undefined;
  const script = new vm.Script(wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const compiled = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown, filename: file, id: file, loaded: false };
  compiled.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  if (!cacheFile || !options.dir) return { exports: module.exports, cache: 'off' };
  if (cachedData && !script.cachedDataRejected) return { exports: module.exports, cache: 'used' };
  // Once the first requests have compiled their code, or at exit if that comes first (a client
  // that only lists the tools), whichever is first.
  const dir = options.dir;
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    process.off('exit', write);
    if (cacheFolderReady(dir, options)) writeCache(script, dir, cacheFile);
  };
  setTimeout(write, options.writeAfterMs ?? 1500).unref();
  process.once('exit', write);
  return { exports: module.exports, cache: 'scheduled' };
}

/**
 * The source with every character past ASCII written as its `\uXXXX` escape. V8 keeps a script's source for as long
 * as the process runs (functions compile lazily from it), and one character past Latin-1 makes it keep all of it at
 * two bytes a character: the commands bundle is 1.9 MB, all ASCII but a few dozen dashes and accents in comments
 * (esbuild escapes them everywhere else), so half of the 3.8 MB it took in every `serve` and `mcp` was theirs. In a
 * comment, a string, a regular expression or a name the escape means the same character.
 */
export function asciiOnly(source: string): string {
  const escaped = source.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // Made again from its bytes: a string V8 built from a two-byte one stays two-byte, however plain its characters.
  return Buffer.from(escaped, 'latin1').toString('latin1');
}

/**
 * Whether the cache may be written into `dir`: a folder closed to others, made so when missing inside
 * a state folder closed to others (owned by us, no group or other bits: install's rule, which refuses
 * any other `--home`, lib/install/system.ts). Never by changing a folder someone already has: a
 * `--home` shared with other things may hold a `cache/` of its own, which a run given that `--home`
 * — a refused one too, since the cache is written at exit — must leave as it found it (day-6 review F8).
 */
function cacheFolderReady(dir: string, { uid = currentUid(), platform = process.platform }: Pick<CacheOptions, 'uid' | 'platform'>): boolean {
  try {
    if (platform === 'win32') {
      if (!fs.statSync(path.dirname(dir)).isDirectory()) return false;
      fs.mkdirSync(dir, { recursive: true }); // the state folder lives in the user's own profile
      return true;
    }
    const closed = (stat: fs.Stats) => stat.isDirectory() && oursAlone(stat, uid);
    if (!closed(fs.lstatSync(path.dirname(dir)))) return false;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    return closed(fs.lstatSync(dir));
  } catch {
    return false;
  }
}

/** Writes the cache and removes this bundle's caches for other sources (an older version or build). */
function writeCache(script: vm.Script, dir: string, cacheFile: string): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    // A new file or none: never one someone put at that name (a link to a file of theirs, or of root's).
    fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, cacheFile);
    const bundle = CODE_CACHE_FILE.exec(path.basename(cacheFile))?.[1];
    for (const name of fs.readdirSync(dir)) {
      if (name !== path.basename(cacheFile) && CODE_CACHE_FILE.exec(name)?.[1] === bundle && !name.endsWith('.tmp')) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // the folder itself is unusable: nothing was written
    }
  }
}
