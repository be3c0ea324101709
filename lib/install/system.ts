import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { quoteArg } from '../relay/invocation';

/**
 * The few outside-world operations install/uninstall/doctor need, gathered in one place so tests
 * can run the Windows code paths on Linux (an in-memory file system keyed by `C:\…` paths and a
 * fake `reg.exe`) and never touch the real home directory.
 */

/** The subset of `node:fs` we use. `node:fs` itself satisfies it. */
export interface FsLike {
  existsSync(file: string): boolean;
  readFileSync(file: string, encoding: 'utf8'): string;
  writeFileSync(file: string, data: string, options?: { mode?: number; flag?: string }): void;
  mkdirSync(dir: string, options: { recursive: true; mode?: number }): unknown;
  chmodSync(file: string, mode: number): void;
  statSync(file: string): { isFile(): boolean; isDirectory(): boolean; mode: number; mtimeMs?: number; uid?: number };
  rmSync(file: string, options?: { force?: boolean; recursive?: boolean }): void;
  readdirSync(dir: string): string[];
  rmdirSync(dir: string): void;
  /**
   * The descriptor-level calls a privileged write uses so it never follows a link (policy/owned-write.ts).
   * `node:fs` has them all; a fake without them gets plain writes followed by chmod.
   */
  lstatSync?(file: string): { isSymbolicLink(): boolean; isDirectory(): boolean; isFile(): boolean; isSocket(): boolean; uid: number; gid: number };
  openSync?(file: string, flags: number, mode?: number): number;
  fstatSync?(fd: number): { isFile(): boolean; nlink: number };
  ftruncateSync?(fd: number, len?: number): void;
  /** Writes `length` bytes of `data` from `offset`; returns how many the OS took (a full disk takes fewer). */
  writeSync?(fd: number, data: Uint8Array, offset?: number, length?: number): number;
  fsyncSync?(fd: number): void;
  renameSync?(from: string, to: string): void;
  fchmodSync?(fd: number, mode: number): void;
  fchownSync?(fd: number, uid: number, gid: number): void;
  closeSync?(fd: number): void;
  chownSync?(file: string, uid: number, gid: number): void;
}

/** Result of running a program: exit code (0 = success) and its output. */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args`, no shell in between. Never rejects: failures come back as a non-zero code. */
export type ExecFn = (file: string, args: string[]) => Promise<ExecResult>;

export const realExec: ExecFn = (file, args) =>
  new Promise((resolve) => {
    execFile(file, args, { windowsHide: true, timeout: 15_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stderr ? error.message : '')) });
    });
  });

/** The operating systems we know where browsers look for native messaging hosts. */
export type InstallPlatform = 'linux' | 'darwin' | 'win32';

/** Common options of every install/doctor function; each defaults to the real process value. */
export interface SystemOptions {
  /** Environment (XDG_CONFIG_HOME, LOCALAPPDATA, COMET_RELAY_HOME, …). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default `process.platform`. Anything that is not darwin or win32 is treated as Linux. */
  platform?: NodeJS.Platform;
  /** The user's home directory. Default `os.homedir()`. */
  homedir?: string;
  /** File system. Default `node:fs`. */
  fs?: FsLike;
}

export interface ResolvedSystem {
  env: NodeJS.ProcessEnv;
  platform: InstallPlatform;
  homedir: string;
  fs: FsLike;
  path: typeof path.posix;
}

export function resolveSystem(options: SystemOptions = {}): ResolvedSystem {
  const platform = toInstallPlatform(options.platform ?? process.platform);
  return {
    env: options.env ?? process.env,
    platform,
    homedir: options.homedir ?? os.homedir(),
    fs: options.fs ?? (fs as unknown as FsLike),
    path: platform === 'win32' ? path.win32 : path.posix,
  };
}

export function toInstallPlatform(platform: NodeJS.Platform): InstallPlatform {
  return platform === 'win32' || platform === 'darwin' ? platform : 'linux';
}

/** True when `file` exists and is a regular file the browser can execute. */
export function isExecutableFile(sys: ResolvedSystem, file: string): boolean {
  try {
    const stat = sys.fs.statSync(file);
    if (!stat.isFile()) return false;
    // Windows has no execute bit: Chrome runs .bat/.cmd through cmd.exe and .exe directly.
    if (sys.platform === 'win32') return /\.(bat|cmd|exe)$/i.test(file);
    return (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

export function isFile(sys: ResolvedSystem, file: string): boolean {
  try {
    return sys.fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(sys: ResolvedSystem, file: string): boolean {
  try {
    return sys.fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Shortens paths under the home directory to `~/…` for messages (never for files we write). */
export function tildify(sys: ResolvedSystem, file: string): string {
  if (sys.platform === 'win32') return file;
  const home = sys.homedir.replace(/\/+$/, '');
  if (home && (file === home || file.startsWith(`${home}/`))) return `~${file.slice(home.length)}`;
  return file;
}

/**
 * The one rule for a state folder others may use (group or world bits), which install, token (and so serve) and doctor
 * all keep: comet-relay keeps its launcher, token and sockets only in a folder closed to others. A folder the person
 * chose (--home, COMET_RELAY_HOME) is never made private behind their back: a shared folder's group would lose access
 * and its setgid bit without a word (review 2026-12-05 #7), so it is refused (doctor fails it), naming a folder of
 * comet-relay's own inside it to use instead. comet-relay's default folder is its own: install and token make it 700,
 * as the host does. Only on a POSIX system's real file system: Windows keeps the folder in the person's own profile,
 * and the in-memory file systems of the tests have no modes to speak of.
 */
export function openFolderMode(sys: ResolvedSystem, dir: string): number | undefined {
  if (sys.platform === 'win32' || sys.fs !== (fs as unknown)) return undefined;
  try {
    const stat = sys.fs.statSync(dir);
    return stat.isDirectory() && (stat.mode & 0o077) !== 0 ? stat.mode & 0o7777 : undefined;
  } catch {
    return undefined; // not there yet: it is created closed to others
  }
}

/**
 * What openFolderMode's rule says of a folder the person chose: what is wrong, and the two ways out; `useOwn` is the
 * command (or setting) that uses a folder of comet-relay's own inside it.
 */
export function chosenFolderOpen(sys: ResolvedSystem, dir: string, mode: number, useOwn: (own: string) => string): { message: string; fix: string } {
  return {
    message: `the state folder ${tildify(sys, dir)} (--home or COMET_RELAY_HOME) is open to others (mode ${octal(mode)}); comet-relay keeps its launcher, token and sockets only in a folder closed to others, and will not change yours to 700 (others who use it would lose access)`,
    fix: `use a folder of comet-relay's own inside it, which is created for you: ${useOwn(sys.path.join(dir, 'comet-relay'))}; or, if the folder is yours alone, run: chmod 700 ${quoteArg(dir, sys.platform)}`,
  };
}

export const octal = (mode: number) => mode.toString(8).padStart(3, '0');

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Where the built CLI is: one rule, beside how this copy is run (lib/relay/invocation.ts). */
export { defaultCliPath } from '../relay/invocation';
