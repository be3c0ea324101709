import { EXTENSION_ORIGIN, NATIVE_HOST_NAME } from '../protocol/identity';
import { COMMAND_ENV } from '../relay/invocation';
import { VERSION } from '../relay/version';
import { packageCopy, rebuildHint } from './package-copy';
import { type InstallPlatform, type ResolvedSystem, resolveSystem, type SystemOptions } from './system';
import { writeOwnedFile } from './policy/owned-write';

/** The native messaging host manifest a Chromium-family browser reads to find our host. */
export interface HostManifest {
  name: string;
  description: string;
  path: string;
  type: 'stdio';
  allowed_origins: string[];
}

export const MANIFEST_DESCRIPTION = 'comet-relay: lets your MCP clients use Perplexity in this browser';

/** The manifest for a launcher at `launcherPath` (absolute), admitting only our extension. */
export function buildManifest(launcherPath: string, extensionOrigin: string = EXTENSION_ORIGIN): HostManifest {
  return {
    name: NATIVE_HOST_NAME,
    description: MANIFEST_DESCRIPTION,
    path: launcherPath,
    type: 'stdio',
    allowed_origins: [extensionOrigin],
  };
}

export function manifestText(manifest: HostManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Where the launcher lives: `<stateDir>/bin/comet-relay-host` (`.bat` on Windows). */
export function launcherPath(stateDir: string, platform: NodeJS.Platform = process.platform): string {
  const sys = resolveSystem({ platform });
  return sys.path.join(stateDir, 'bin', sys.platform === 'win32' ? 'comet-relay-host.bat' : 'comet-relay-host');
}

export interface LauncherOptions {
  /** Absolute path of node (`process.execPath` at install time: GUI-launched browsers have a minimal PATH). */
  nodePath: string;
  /** Absolute path of the built CLI, `…/dist/cli.js`. */
  cliPath: string;
  /** State directory; the launcher logs to `<stateDir>/logs/host.log` when node or the CLI is missing. */
  stateDir: string;
  /** When set, the launcher exports `COMET_RELAY_HOME=<home>` so the host uses that state directory. */
  home?: string;
  /** Default `process.platform`: `#!/bin/sh` script on Linux/macOS, `.bat` on Windows. */
  platform?: NodeJS.Platform;
  /** What the log line says to do when node or the CLI is gone. Default: what brings this kind of copy back (`rebuildHint`). */
  fix?: string;
  /**
   * How the person runs this copy (`commandPrefix({ lasting: true })` in their shell), exported as
   * COMET_RELAY_COMMAND for the host, which tells the extension (lib/relay/invocation.ts, `hostForm`).
   */
  command?: string;
}

/** The parts of a launcher `doctor` checks. */
export interface ParsedLauncher {
  kind: 'sh' | 'bat';
  nodePath?: string;
  cliPath?: string;
  home?: string;
}

/** Single-quotes for POSIX sh: everything is literal except `'`, written as `'\''`. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function checkPath(what: string, value: string, platform: InstallPlatform): void {
  if (/[\r\n\0]/.test(value)) throw new Error(`The ${what} path contains a line break or NUL, which a launcher script cannot carry: ${JSON.stringify(value)}. Move it to a plain path.`);
  if (platform === 'win32' && value.includes('"')) throw new Error(`The ${what} path contains a double quote, which a .bat launcher cannot carry: ${value}`);
}

/** `%` is the only character a .bat file treats specially inside `set "NAME=value"`; it is doubled. */
function batValue(value: string): string {
  return value.replace(/%/g, '%%');
}

/**
 * The host lives as long as the browser and only passes messages along (JSON parsing is native
 * either way), so it runs without V8's JIT: 3–4 MB less resident memory under a burst of 1600
 * calls (npm run bench row c: 59.6 → 56.2 MB) for ~0.5 ms on a round trip. Its young generation
 * is capped at 1 MB per semi-space: every message is garbage a moment after it passed, and the
 * default 16 MB let a burst of 1600 calls raise the peak by ~2 MB more (47.5 → 45.6 MB).
 */
export const HOST_NODE_FLAGS = '--jitless --max-semi-space-size=1';

/** The launcher script's text: sets COMET_RELAY_HOME if asked, checks node and the CLI exist, then execs `node cli.js host <args>`. */
export function launcherScript(options: LauncherOptions): string {
  const sys = resolveSystem({ platform: options.platform });
  const { nodePath, cliPath, home, stateDir } = options;
  const command = options.command?.replace(/[\r\n\0]/g, ' ');
  for (const [what, value] of [['node', nodePath], ['CLI', cliPath], ['state directory', stateDir], ['home', home]] as const) {
    if (value === undefined) continue;
    checkPath(what, value, sys.platform);
    if (!sys.path.isAbsolute(value)) throw new Error(`The ${what} path must be absolute for the launcher, got "${value}".`);
  }
  const log = hostLogPath(stateDir, sys.platform);
  const logs = sys.path.dirname(log);
  // The CLI may be what is gone, so the fix is how to bring this copy back, in the words this copy is run with.
  const fix = (options.fix ?? rebuildHint(packageCopy({ platform: sys.platform, cliPath }), sys)).replace(/[\r\n\0]/g, ' ');
  if (sys.platform === 'win32') {
    return [
      '@echo off',
      // The file is UTF-8, but cmd.exe decodes each line of a batch file as it reads it, in the console's code page
      // (the OEM one: C:\Users\José would read as Jos├®). From the line after chcp on, lines are read as UTF-8, so
      // no line with a path comes before it. The browser starts the launcher in a console of its own: nothing else
      // sees the changed code page, and node's stdio (the browser's pipe) is bytes either way.
      'chcp 65001 >nul',
      `rem comet-relay native messaging host launcher, written by "comet-relay install" (version ${VERSION}).`,
      'rem The browser starts it with the extension origin as first argument. Re-run the install to regenerate it.',
      ...(home ? [`set "COMET_RELAY_HOME=${batValue(home)}"`] : []),
      // A form with a double quote would end `set "…"` early: the host then says its own.
      ...(command && !command.includes('"') ? [`set "${COMMAND_ENV}=${batValue(command)}"`] : []),
      `set "CR_NODE=${batValue(nodePath)}"`,
      `set "CR_CLI=${batValue(cliPath)}"`,
      `set "CR_LOGS=${batValue(logs)}"`,
      `set "CR_LOG=${batValue(log)}"`,
      `set "CR_FIX=${batValue(fix.replace(/"/g, "'"))}"`,
      'if not exist "%CR_NODE%" goto missing',
      'if not exist "%CR_CLI%" goto missing',
      `"%CR_NODE%" ${HOST_NODE_FLAGS} "%CR_CLI%" host %*`,
      'exit /b %errorlevel%',
      ':missing',
      'if not exist "%CR_LOGS%\\" mkdir "%CR_LOGS%"',
      // Delayed expansion: the fix is expanded after the line is parsed, so & | < > in it stay text.
      'setlocal EnableDelayedExpansion',
      'echo %date% %time% comet-relay launcher: cannot start the host: node "%CR_NODE%" or the CLI "%CR_CLI%" is missing. To fix: !CR_FIX!>> "%CR_LOG%"',
      'exit /b 127',
      '',
    ].join('\r\n');
  }
  return [
    '#!/bin/sh',
    `# comet-relay native messaging host launcher, written by "comet-relay install" (version ${VERSION}).`,
    '# The browser starts it with the extension origin as first argument. GUI-launched browsers',
    '# have a minimal PATH, so node is named by its absolute path. Re-run the install to regenerate it.',
    ...(home ? [`COMET_RELAY_HOME=${shQuote(home)}`, 'export COMET_RELAY_HOME'] : []),
    ...(command ? [`${COMMAND_ENV}=${shQuote(command)}`, `export ${COMMAND_ENV}`] : []),
    `CR_NODE=${shQuote(nodePath)}`,
    `CR_CLI=${shQuote(cliPath)}`,
    `CR_LOG=${shQuote(log)}`,
    `CR_FIX=${shQuote(fix)}`,
    'if [ ! -x "$CR_NODE" ] || [ ! -f "$CR_CLI" ]; then',
    `  (umask 077; mkdir -p ${shQuote(logs)}) 2>/dev/null`,
    '  echo "$(date \'+%Y-%m-%dT%H:%M:%S\') comet-relay launcher: cannot start the host: node ($CR_NODE) or the CLI ($CR_CLI) is missing. To fix: $CR_FIX" >> "$CR_LOG"',
    '  exit 127',
    'fi',
    `exec "$CR_NODE" ${HOST_NODE_FLAGS} "$CR_CLI" host "$@"`,
    '',
  ].join('\n');
}

/** Undoes POSIX sh quoting of one word: '…', "…" (with \\ \" \$ \`) and backslash escapes. */
export function shUnquote(word: string): string {
  let out = '';
  let i = 0;
  while (i < word.length) {
    const c = word[i] as string;
    if (c === "'") {
      const end = word.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated single quote');
      out += word.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      while (i < word.length && word[i] !== '"') {
        if (word[i] === '\\' && i + 1 < word.length && '\\"$`'.includes(word[i + 1] as string)) i++;
        out += word[i];
        i++;
      }
      if (i >= word.length) throw new Error('unterminated double quote');
      i++;
    } else if (c === '\\') {
      out += word[i + 1] ?? '';
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * Reads back what a launcher runs (node, CLI, COMET_RELAY_HOME), for `doctor`. Understands the
 * launchers we write; returns the fields it could not find as undefined.
 */
export function parseLauncher(text: string): ParsedLauncher {
  const lines = text.split(/\r?\n/);
  if (/^@echo off/i.test(lines[0]?.trim() ?? '')) {
    const get = (name: string) => {
      const line = lines.find((l) => l.toLowerCase().startsWith(`set "${name.toLowerCase()}=`));
      return line?.slice(`set "${name}=`.length, line.lastIndexOf('"')).replace(/%%/g, '%');
    };
    return { kind: 'bat', nodePath: get('CR_NODE'), cliPath: get('CR_CLI'), home: get('COMET_RELAY_HOME') };
  }
  const get = (name: string) => {
    const line = lines.find((l) => l.startsWith(`${name}=`));
    if (!line) return undefined;
    try {
      return shUnquote(line.slice(name.length + 1));
    } catch {
      return undefined;
    }
  };
  const parsed: ParsedLauncher = { kind: 'sh', nodePath: get('CR_NODE'), cliPath: get('CR_CLI'), home: get('COMET_RELAY_HOME') };
  if (parsed.nodePath === undefined) {
    // A hand-written launcher: `exec /path/to/node /path/to/cli.js host "$@"`.
    const exec = lines.find((l) => /^\s*exec\s/.test(l));
    const words = exec?.trim().match(/(?:[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+/g);
    if (words && words.length >= 3) {
      parsed.nodePath = shUnquote(words[1] as string);
      parsed.cliPath = shUnquote(words[2] as string);
    }
  }
  return parsed;
}

export interface WriteLauncherOptions extends Omit<LauncherOptions, 'platform'>, SystemOptions {}

/** Writes the launcher to `<stateDir>/bin/` (mode 0755) and returns its path. */
export function writeLauncher(options: WriteLauncherOptions): string {
  const sys = resolveSystem(options);
  return writeLauncherWith(sys, options);
}

export function writeLauncherWith(sys: ResolvedSystem, options: Omit<LauncherOptions, 'platform'>): string {
  const file = launcherPath(options.stateDir, sys.platform);
  const text = launcherScript({ ...options, platform: sys.platform });
  sys.fs.mkdirSync(sys.path.dirname(file), { recursive: true, mode: 0o700 });
  // Whole or not at all, mode 0755 whatever the umask: every registration runs this file, and a reinstall cut short
  // (a full disk, a kill) left a cut script that sh ran as nothing (review 11f, F5).
  writeOwnedFile(sys, file, text, 0o755);
  return file;
}

/** The log a launcher writes to when it cannot start node: `<stateDir>/logs/host.log`. */
export function hostLogPath(stateDir: string, platform: NodeJS.Platform = process.platform): string {
  // Same place as logsDir(stateDir), joined with the target OS's separator.
  return resolveSystem({ platform }).path.join(stateDir, 'logs', 'host.log');
}
