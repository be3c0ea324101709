import { EXTENSION_ORIGIN, NATIVE_HOST_NAME } from '../protocol/identity';
import { type ParsedLauncher, parseLauncher } from './host-manifest';
import { errorMessage, isExecutableFile, isFile, type ResolvedSystem, tildify } from './system';

/**
 * Follows one manifest link by link (manifest → launcher → node and CLI), the same way the
 * browser will, and names the first thing that would stop the host from starting.
 * Shared by install (to check what it just wrote) and doctor.
 */

export interface Problem {
  /** What is wrong, naming the file or value. */
  message: string;
  /** One line: what the user should do. */
  fix: string;
}

export interface ManifestCheck {
  ok: boolean;
  problems: Problem[];
  /** The launcher (manifest `path`) when the manifest could be read. */
  launcherPath?: string;
  launcher?: ParsedLauncher;
}

export interface VerifyOptions {
  /** The command that rewrites this manifest, e.g. `node dist/cli.js install --browser chrome` (installCommand). */
  installCommand: string;
  /** The origin the manifest must admit. Default: our pinned extension's. */
  extensionOrigin?: string;
}

export function verifyManifest(sys: ResolvedSystem, manifestPath: string, options: VerifyOptions): ManifestCheck {
  const expected = options.extensionOrigin ?? EXTENSION_ORIGIN;
  const reinstall = `run: ${options.installCommand}`;
  const shown = tildify(sys, manifestPath);
  const fail = (problems: Problem[], extra: Partial<ManifestCheck> = {}): ManifestCheck => ({ ok: problems.length === 0, problems, ...extra });

  if (!sys.fs.existsSync(manifestPath)) {
    return fail([{ message: `no host manifest at ${shown}`, fix: reinstall }]);
  }
  let data: unknown;
  try {
    data = JSON.parse(sys.fs.readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    return fail([{ message: `the host manifest ${shown} is not valid JSON (${errorMessage(error)})`, fix: reinstall }]);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fail([{ message: `the host manifest ${shown} is not a JSON object`, fix: reinstall }]);
  }
  const manifest = data as Record<string, unknown>;
  const problems: Problem[] = [];
  if (manifest.name !== NATIVE_HOST_NAME) {
    problems.push({ message: `the manifest ${shown} names host ${JSON.stringify(manifest.name)}, but the extension connects to "${NATIVE_HOST_NAME}"`, fix: reinstall });
  }
  if (manifest.type !== 'stdio') {
    problems.push({ message: `the manifest's type is ${JSON.stringify(manifest.type)}, the browser only starts hosts of type "stdio"`, fix: reinstall });
  }
  const origins = Array.isArray(manifest.allowed_origins) ? manifest.allowed_origins.filter((o): o is string => typeof o === 'string') : [];
  if (!origins.includes(expected)) {
    const admitted = origins.length ? origins.join(', ') : 'no extension at all';
    problems.push({
      message: `the manifest admits ${origins.length ? `extension ${admitted}` : admitted} but the installed comet-relay extension is ${expected}, so the browser refuses to start the host ("Access to the specified native messaging host is forbidden")`,
      fix: reinstall,
    });
  } else if (origins.length > 1) {
    const others = origins.filter((o) => o !== expected).join(', ');
    problems.push({ message: `the manifest also admits other extensions (${others}), which could then drive your Perplexity tab`, fix: reinstall });
  }

  if (typeof manifest.path !== 'string' || manifest.path === '') {
    problems.push({ message: `the manifest has no "path" to the host program`, fix: reinstall });
    return fail(problems);
  }
  let launcher = manifest.path;
  if (!sys.path.isAbsolute(launcher)) {
    if (sys.platform !== 'win32') {
      problems.push({ message: `the manifest's path "${launcher}" is not absolute; browsers on Linux and macOS require an absolute path`, fix: reinstall });
      return fail(problems, { launcherPath: launcher });
    }
    // Windows resolves a relative path against the manifest's folder.
    launcher = sys.path.resolve(sys.path.dirname(manifestPath), launcher);
  }
  const shownLauncher = tildify(sys, launcher);
  if (!isFile(sys, launcher)) {
    problems.push({ message: `the manifest points to ${shownLauncher}, which does not exist`, fix: reinstall });
    return fail(problems, { launcherPath: launcher });
  }
  if (!isExecutableFile(sys, launcher)) {
    problems.push({
      message: sys.platform === 'win32' ? `the host program ${shownLauncher} is not a .bat, .cmd or .exe file` : `the host program ${shownLauncher} is not executable`,
      fix: sys.platform === 'win32' ? reinstall : `run: chmod 755 ${shQuoteIfNeeded(launcher)}   (or: ${options.installCommand})`,
    });
  }

  let parsed: ParsedLauncher | undefined;
  try {
    parsed = parseLauncher(sys.fs.readFileSync(launcher, 'utf8'));
  } catch (error) {
    problems.push({ message: `cannot read the host program ${shownLauncher} (${errorMessage(error)})`, fix: reinstall });
  }
  if (parsed?.nodePath !== undefined) {
    if (!isExecutableFile(sys, parsed.nodePath)) {
      problems.push({
        message: `the launcher runs node at ${parsed.nodePath}, which ${isFile(sys, parsed.nodePath) ? 'is not executable' : 'does not exist (node was moved, upgraded or uninstalled?)'}`,
        fix: `re-run the install with the node you use now: ${options.installCommand}`,
      });
    }
  }
  if (parsed?.cliPath !== undefined && !isFile(sys, parsed.cliPath)) {
    problems.push({
      message: `the launcher runs ${tildify(sys, parsed.cliPath)}, which does not exist (the CLI was moved, removed or not built)`,
      fix: `build the CLI (npm run build) or re-run: ${options.installCommand}`,
    });
  }
  return fail(problems, { launcherPath: launcher, launcher: parsed });
}

function shQuoteIfNeeded(file: string): string {
  return /^[\w@%+=:,./-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`;
}
