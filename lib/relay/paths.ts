import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RelayError } from '../protocol/errors';

/**
 * Where comet-relay keeps its state: discovery records, sockets, logs, the HTTP token.
 * COMET_RELAY_HOME wins everywhere, so a test's host and its clients can meet in a temp folder.
 */
export interface PathEnv {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  homedir?: string;
  /** How the folder is looked at for stateFolderProblem. Default `node:fs` statSync. */
  stat?: StatFn;
  /** Where a path leads, its links followed (the code cache as root). Default `node:fs` realpathSync. */
  realpath?: (file: string) => string;
}

/** The one look stateFolderProblem takes at a path (throws when there is nothing there). */
export type StatFn = (file: string) => { isDirectory(): boolean };

/** The state folder, once stateFolderProblem finds nothing against it (else a StateFolderError). */
export function stateDir(pathEnv: PathEnv = {}): string {
  const { env = process.env, platform = process.platform, stat } = pathEnv;
  return checkStateFolder(stateDirPath(pathEnv), env.COMET_RELAY_HOME ? 'COMET_RELAY_HOME' : 'default', { stat, path: platform === 'win32' ? path.win32 : path });
}

/** Where the state folder is, whatever is there (what a launcher or a record names; stateDir for a folder to use). */
export function stateDirPath({ env = process.env, platform = process.platform, homedir = os.homedir() }: PathEnv = {}): string {
  // No shell expands `~` in an MCP client's JSON config (review 14d, 6).
  if (env.COMET_RELAY_HOME) return path.resolve(expandHome(env.COMET_RELAY_HOME, homedir));
  if (platform === 'win32') {
    return path.win32.join(env.LOCALAPPDATA || path.win32.join(homedir, 'AppData', 'Local'), 'comet-relay');
  }
  if (platform === 'darwin') return path.join(homedir, 'Library', 'Application Support', 'comet-relay');
  return path.join(env.XDG_STATE_HOME || path.join(homedir, '.local', 'state'), 'comet-relay');
}

/** Where the state folder came from, which decides what a problem with it tells the person to change. */
export type StateFolderSource = '--home' | 'COMET_RELAY_HOME' | 'default';

/**
 * A state folder that cannot be one: typed, so it exits 2 like any value the CLI cannot take (recognised by its
 * `exitCode`, lib/cli/usage.ts), and a CONFIG_ERROR for whatever catches RelayError.
 */
export class StateFolderError extends RelayError {
  readonly exitCode = 2;
  constructor(message: string) {
    super('CONFIG_ERROR', message);
  }
}

/**
 * What keeps `dir` from being the state folder: it, or the nearest existing folder above it, is a file. Said where
 * the folder is resolved, before any command makes or reads something in it; otherwise each failed its own way (a raw
 * EEXIST or ENOTDIR from a mkdir, a selector folder "skipped", or no host found). Undefined when `dir` is a folder or
 * can be made (what else keeps it from being made, a permission, is said by what tries).
 */
export function stateFolderProblem(dir: string, source: StateFolderSource, { stat = fs.statSync, path: p = path }: { stat?: StatFn; path?: path.PlatformPath } = {}): string | undefined {
  for (let at = dir; ; at = p.dirname(at)) {
    let isFolder: boolean | undefined;
    try {
      isFolder = stat(at).isDirectory();
    } catch {
      // nothing there (or under a file, which a folder above shows): look one folder up
    }
    if (isFolder === false) {
      const named = source === '--home' ? `--home ${dir}` : source === 'COMET_RELAY_HOME' ? `COMET_RELAY_HOME=${dir}` : `comet-relay's state folder ${dir}`;
      const what = at === dir ? `${named} is a file, not a folder` : `${named} cannot be a folder: ${at} is a file, not a folder`;
      const todo =
        source === '--home'
          ? 'pass a folder with --home DIR (it is created for you)'
          : source === 'COMET_RELAY_HOME'
            ? 'set COMET_RELAY_HOME to a folder (it is created for you)'
            : 'move that file away, or set COMET_RELAY_HOME to a folder (or pass --home DIR, where a command takes it)';
      return `${what}${at === dir ? ':' : ';'} ${todo}.`;
    }
    if (isFolder || p.dirname(at) === at) return undefined;
  }
}

/** `dir`, once stateFolderProblem finds nothing against it; else throws its words as a StateFolderError. */
export function checkStateFolder(dir: string, source: StateFolderSource, options: { stat?: StatFn; path?: path.PlatformPath } = {}): string {
  const problem = stateFolderProblem(dir, source, options);
  if (problem) throw new StateFolderError(problem);
  return dir;
}

/**
 * A path the person typed, with a leading `~` as their home folder: no shell expands it after `--home=` (or inside
 * quotes), and `path.resolve` made it a folder named `~` in the current one, unseen (review 14c, F5).
 */
export function expandHome(given: string, homedir = os.homedir()): string {
  return given === '~' || given.startsWith('~/') || given.startsWith(`~${path.sep}`) ? path.join(homedir, given.slice(1)) : given;
}

/**
 * Where the state folder a command line chooses is: its `--home DIR` (or `--home=DIR`) before any `--`, else
 * stateDirPath(). For what is decided before the command's own flags are parsed (the code cache), so that `--home`
 * keeps everything in one folder and `uninstall --home DIR --purge` finds all of it; whether a folder is there, the
 * caller's one look at it says (the command itself says what is wrong with it).
 */
export function commandStateDir(args: readonly string[], pathEnv: PathEnv = {}): string {
  let given: string | undefined;
  // The last one, as the command's own flag parser takes it.
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const arg = args[i] as string;
    const value = arg === '--home' ? args[i + 1] : arg.startsWith('--home=') ? arg.slice('--home='.length) : undefined;
    if (value) given = value;
  }
  return given ? path.resolve(expandHome(given, pathEnv.homedir)) : stateDirPath(pathEnv);
}

/**
 * Where the code cache of `comet-relay COMMAND ARGS…` goes (lib/cli/compile-cache.ts): in the folder the command line
 * chooses, only when that folder is there already. None for `uninstall --purge` (one written at its exit would put back
 * a folder it removed), none for a folder not made yet (a mistyped --home, a `help`, a refused command creates
 * nothing), and none as root under sudo: the folder is then the person's, and root writes nothing there, through
 * their links, only to start faster (review 2026-12-05, day 5, F1 and F4). Root logged in as itself (a container)
 * keeps its cache. A folder that is there but open to others (a `--home` shared with other things) gets none either:
 * compile-cache.ts writes only into a state folder closed to others, and changes no `cache/` someone already has.
 * A state folder given as a link gets none: what the link leads to is not looked at; and root gets none in a folder
 * reached through a link anywhere on its path, which someone else may own and switch (day-7b review G1). So root on
 * macOS, whose home is under /var (a link to /private/var), starts without one: a cost in time only.
 */
export function codeCacheDirFor(argv: readonly string[], pathEnv: PathEnv = {}, uid = process.getuid?.()): string | undefined {
  const [command, ...args] = argv;
  const end = args.indexOf('--');
  if (command === 'uninstall' && (end === -1 ? args : args.slice(0, end)).includes('--purge')) return undefined;
  if (uid === 0 && (pathEnv.env ?? process.env).SUDO_UID) return undefined;
  const home = commandStateDir(args, pathEnv);
  try {
    // The folder itself, not what a link there leads to: a person's link to root's folder is not root's folder (day-7 F1).
    const folder = (pathEnv.stat ?? fs.lstatSync)(home) as ReturnType<StatFn> & { uid?: number };
    // Root through doas, pkexec or `sudo su -` (no SUDO_UID): a folder that is not root's is someone's (day-6 F1).
    if (uid === 0 && folder.uid !== undefined && folder.uid !== 0) return undefined;
    if (uid === 0 && (pathEnv.realpath ?? fs.realpathSync)(home) !== home) return undefined;
    return folder.isDirectory() ? compileCacheDir(home) : undefined;
  } catch {
    return undefined;
  }
}

export const hostsDir = (home: string) => path.join(home, 'hosts');
/** Every profile a host has served, kept after its host stops (lib/relay/discovery.ts `knownProfiles`). */
export const profilesDir = (home: string) => path.join(home, 'profiles');

/** The logs comet-relay writes (`<home>/logs/<name>.log`, rotated to `.1`, `.2`…). */
export const LOG_NAMES = ['host', 'mcp', 'serve'] as const;
export type LogName = (typeof LOG_NAMES)[number];

/**
 * Every file comet-relay creates in its state folder, by folder and name, so `uninstall --purge`
 * removes exactly these and nothing a shared `--home` holds besides. (The token and the launcher
 * are removed by their own exact paths.)
 */
/** V8 code caches of the CLI's bundles (lib/cli/compile-cache.ts): `<bundle>-<16 hex>.v8cache`, and the temp file one is written through. */
export const CODE_CACHE_FILE = /^([a-z-]+)-[0-9a-f]{16}\.v8cache(\.\d+\.tmp)?$/;

export const OWN_STATE_FILES: readonly { dir: string; name: RegExp }[] = [
  // Logs, rotated copies, and the lock one writer rotates them under (lib/relay/logger.ts)
  { dir: 'logs', name: new RegExp(`^(${LOG_NAMES.join('|')})\\.log(\\.\\d+|\\.lock)?$`) },
  // Discovery records, the temp file one is written through (<profileId>.json.<pid>.tmp), and
  // the name a stale one is judged under before it is deleted (<profileId>.json.<pid>.gone)
  { dir: 'hosts', name: /^[A-Za-z0-9_-]{8,64}\.json(\.\d+\.(tmp|gone))?$/ },
  { dir: 'run', name: /^[A-Za-z0-9_-]{8,64}\.sock$/ },
  // Profiles a host served (their id and label), and the temp file one is written through
  { dir: 'profiles', name: /^[A-Za-z0-9_-]{8,64}\.json(\.\d+\.tmp)?$/ },
  { dir: 'cache', name: CODE_CACHE_FILE },
  // The host manifests `install --user-data-dir` wrote for this launcher (lib/install/install.ts), so `uninstall` keeps it for them;
  // and the registrations this install took over from another install's launcher, so `uninstall` names that install
  { dir: 'installs', name: /^(user-data-dirs|replaced)\.json$/ },
];
export const customManifestsPath = (home: string) => path.join(home, 'installs', 'user-data-dirs.json');
/** Browser registrations `install` took over from another install (another --home): `uninstall` names that install. */
export const replacedInstallsPath = (home: string) => path.join(home, 'installs', 'replaced.json');
export const hostRecordPath = (home: string, profileId: string) => path.join(hostsDir(home), `${profileId}.json`);
export const logsDir = (home: string) => path.join(home, 'logs');
/** V8 code caches of the CLI's bundles, so MCP processes start without compiling them again. */
export const compileCacheDir = (home: string) => path.join(home, 'cache');
export const tokenPath = (home: string) => path.join(home, 'token');
/** The token only `serve --public-url`'s public address takes (lib/install/token.ts). */
export const publicTokenPath = (home: string) => path.join(home, 'public-token');
/** Files MCP clients uploaded for create_attachment_upload, one folder per upload. */
export const attachmentsDir = (home: string) => path.join(home, 'attachments');
/** An upload's folder is named by its random uuid (lib/mcp/attachments/store.ts). */
export const ATTACHMENT_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The only files comet-relay writes in an upload's folder: expiry and `uninstall --purge` remove these, nothing else. */
export const ATTACHMENT_FILES: readonly string[] = ['data', 'data.partial', 'claimed', 'meta.json', 'meta.json.tmp'];
/** What a meta.json of ours says it is. */
export const ATTACHMENT_MARKER = 'comet-relay-attachment';

/** Whether the text of `<folder>/meta.json` marks `folder` (its name) as an upload comet-relay made. */
export function isOwnAttachmentMeta(text: string, folder: string): boolean {
  try {
    const meta = JSON.parse(text) as { kind?: unknown; id?: unknown } | null;
    return meta?.kind === ATTACHMENT_MARKER && meta.id === folder && ATTACHMENT_FOLDER.test(folder);
  } catch {
    return false;
  }
}
/** Data packs a person added (`comet-relay selectors add`): selector sets, later thread readers. */
export const packsDir = (home: string) => path.join(home, 'selectors');
/** Which files of that folder are packs: `*.json`, not hidden (an editor's swap or temporary files are). */
export const isPackFileName = (name: string) => name.endsWith('.json') && !name.startsWith('.');

/** Unix socket paths are limited to ~104 bytes (macOS) / 108 (Linux); stay well below. */
const MAX_SOCKET_PATH = 100;

/**
 * A short stable name for a text (16 hex digits, FNV-1a 64): for file and pipe names, never for
 * anything secret. Not node:crypto, which would cost the host ~2 MB of resident memory to load.
 */
export function shortHash(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, '0');
}

/**
 * The host's local socket for one browser profile: owner-only, named by the profile id. On Windows a named pipe
 * lives in one namespace for every user and Node cannot give it an owner-only ACL or tell its owner, so a fixed name
 * could be taken first by another local user (review of 2026-12-02, #27): there the name also carries `nonce`, new
 * for each host, and clients learn it only from the host's record in this user's own folder.
 */
export function socketPath(home: string, profileId: string, platform: NodeJS.Platform = process.platform, nonce?: string): string {
  const tag = shortHash(`${home}\0${profileId}`);
  if (platform === 'win32') return `\\\\.\\pipe\\comet-relay-${tag}${nonce ? `-${nonce}` : ''}`;
  const preferred = path.join(home, 'run', `${profileId}.sock`);
  if (preferred.length <= MAX_SOCKET_PATH) return preferred;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `comet-relay-${uid}`, `${tag}.sock`);
}

/** 128 random bits as hex, for a name nobody else can guess (only used on Windows: see socketPath). */
export function pipeNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
