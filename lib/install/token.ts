import { randomBytes } from 'node:crypto';
import { RelayError } from '../protocol/errors';
import { quoteArg } from '../relay/invocation';
import { publicTokenPath, stateDirPath, tokenPath } from '../relay/paths';
import { ensurePrivateDir } from '../relay/private-dir';
import { chosenFolderOpen, errorMessage, type FsLike, openFolderMode, type ResolvedSystem, resolveSystem } from './system';

/**
 * The bearer tokens `comet-relay serve` requires on HTTP: 32 random bytes, base64url, mode 0600
 * (folder 0700). Two of them, never interchangeable: `local` (`<home>/token`) for clients on this
 * machine, and `public` (`<home>/public-token`) for what calls through `--public-url` (a cloud
 * service such as the Perplexity Agent API), so that key can be revoked without touching local
 * clients. These functions never log or print a token; the caller decides when a user asked to see it.
 */
export type TokenKind = 'local' | 'public';

export interface TokenOptions {
  /** Default `node:fs`. */
  fs?: FsLike;
  /** Default `process.platform` (file modes are not enforced on Windows). */
  platform?: NodeJS.Platform;
  /** What tells a folder the person chose from comet-relay's default one. Default `process.env` and `os.homedir()`. */
  env?: NodeJS.ProcessEnv;
  homedir?: string;
  /** Which token. Default `local`. */
  kind?: TokenKind;
}

/** A token we accept from the file: base64url, at least 32 characters (≈192 bits). */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,}$/;

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function tokenFile(home: string, platform: NodeJS.Platform | undefined, kind: TokenKind = 'local'): string {
  const sys = resolveSystem({ platform });
  if (sys.platform === 'win32') return sys.path.join(home, kind === 'public' ? 'public-token' : 'token');
  return kind === 'public' ? publicTokenPath(home) : tokenPath(home);
}

/** The token in `<home>/token`, or undefined when the file is missing or does not hold a valid token. */
export function readToken(home: string, options: TokenOptions = {}): string | undefined {
  const sys = resolveSystem(options);
  try {
    const token = sys.fs.readFileSync(tokenFile(home, sys.platform, options.kind), 'utf8').trim();
    return TOKEN_PATTERN.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Returns the token, creating `<home>/token` first if it is missing or invalid. An existing file
 * that others can read is tightened to 0600. Safe against a concurrent call: the first writer wins.
 */
export function ensureToken(home: string, options: TokenOptions = {}): string {
  return ensureTokenFile(home, options).token;
}

/** Like ensureToken, and also says whether the file was created and where it is. */
export function ensureTokenFile(home: string, options: TokenOptions = {}): { token: string; created: boolean; path: string } {
  const sys = resolveSystem(options);
  closeStateFolder(sys, sys.path.resolve(home));
  const file = tokenFile(home, sys.platform, options.kind);
  const existing = readToken(home, options);
  if (existing) {
    if (sys.platform !== 'win32') {
      try {
        if ((sys.fs.statSync(file).mode & 0o077) !== 0) sys.fs.chmodSync(file, 0o600);
      } catch {
        // Reading worked; a failed chmod is reported by doctor.
      }
    }
    return { token: existing, created: false, path: file };
  }
  try {
    sys.fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    const token = generateToken();
    if (sys.fs.existsSync(file)) sys.fs.rmSync(file, { force: true }); // an empty or corrupt token file
    try {
      sys.fs.writeFileSync(file, token, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        const raced = readToken(home, options);
        if (raced) return { token: raced, created: false, path: file };
      }
      throw error;
    }
    if (sys.platform !== 'win32') sys.fs.chmodSync(file, 0o600);
    return { token, created: true, path: file };
  } catch (error) {
    throw new Error(`Could not create the HTTP token file ${file}: ${errorMessage(error)}. Check that the folder is writable by you.`);
  }
}

/** Replaces the token with a new one (clients configured with the old one must be updated). */
export function rotateToken(home: string, options: TokenOptions = {}): string {
  const sys = resolveSystem(options);
  closeStateFolder(sys, sys.path.resolve(home)); // before the old token goes: a refused folder keeps it
  sys.fs.rmSync(tokenFile(home, sys.platform, options.kind), { force: true });
  return ensureToken(home, options);
}

/**
 * install's rule for a state folder open to others (system.ts openFolderMode), kept by every command that makes or
 * hands out a token (`token`, and `serve`, which makes its own): a folder the person chose is refused with the same
 * two ways out, comet-relay's default folder is made 700. Without it a token landed where install had just refused to
 * put one (new-user review #13).
 */
function closeStateFolder(sys: ResolvedSystem, dir: string): void {
  const mode = openFolderMode(sys, dir);
  if (mode === undefined) return;
  const { COMET_RELAY_HOME: fromEnv, ...rest } = sys.env;
  const byEnv = fromEnv !== undefined && sys.path.resolve(fromEnv) === dir;
  if (!byEnv && dir === stateDirPath({ env: rest, platform: sys.platform, homedir: sys.homedir })) {
    ensurePrivateDir(dir, { platform: sys.platform });
    return;
  }
  // The variable as the person's shell sets it (POSIX `set` would only set $1: day-5 review F5).
  const setVar = sys.platform === 'win32' ? 'set COMET_RELAY_HOME=' : 'export COMET_RELAY_HOME=';
  const useOwn = (own: string) => (byEnv ? `${setVar}${quoteArg(own, sys.platform)} (where COMET_RELAY_HOME is set)` : `pass --home ${quoteArg(own, sys.platform)}`);
  const { message, fix } = chosenFolderOpen(sys, dir, mode, useOwn);
  throw new RelayError('CONFIG_ERROR', `${message.charAt(0).toUpperCase()}${message.slice(1)}. To fix it: ${fix}.`);
}
