import { NATIVE_HOST_NAME } from '../protocol/identity';
import { COMET_FACTS } from './comet-facts';
import { type InstallPlatform, isDirectory, isExecutableFile, type ResolvedSystem, resolveSystem, type SystemOptions } from './system';

/**
 * Where each Chromium-family browser keeps its user-level native messaging hosts, its registry key
 * on Windows, and where its executable usually lives. This file is data: when a browser moves
 * something, correct the table, not the code.
 *
 * Paths are lists of segments joined with the target OS's separator. A segment may be one of:
 * - `~`              the user's home directory
 * - `$CONFIG`        Linux: `$XDG_CONFIG_HOME`, else `~/.config`
 * - `$APP_SUPPORT`   macOS: `~/Library/Application Support`
 * - `%LOCALAPPDATA%`, `%PROGRAMFILES%`, `%PROGRAMFILES(X86)%`  Windows folders (from the
 *   environment, with the usual defaults)
 */
export const BROWSERS = ['chrome', 'chromium', 'brave', 'edge', 'comet'] as const;
export type Browser = (typeof BROWSERS)[number];

export type PathSegments = readonly string[];

export interface BrowserData {
  /** Display name for messages. */
  label: string;
  /**
   * The browser's default user data folder per OS, first = preferred. On Linux and macOS the
   * browser reads `<folder>/NativeMessagingHosts/<host>.json` (also for a custom
   * `--user-data-dir`); on Windows it only reads the registry, so there the folder is used to
   * tell whether the browser is installed.
   */
  userData: Record<InstallPlatform, readonly PathSegments[]>;
  /** Registry key under HKCU whose subkey `<host>` has the manifest path as default value. */
  registryKey: string;
  /** Where the executable typically is, most likely first. */
  executables: Record<InstallPlatform, readonly PathSegments[]>;
  /** Linux command names to look up on PATH when no fixed location matched. */
  commands: readonly string[];
  /** Set when the locations come from observation of installers rather than the vendor's docs. */
  note?: string;
}

export const BROWSER_DATA: Record<Browser, BrowserData> = {
  chrome: {
    label: 'Google Chrome',
    userData: {
      linux: [['$CONFIG', 'google-chrome']],
      darwin: [['$APP_SUPPORT', 'Google', 'Chrome']],
      win32: [['%LOCALAPPDATA%', 'Google', 'Chrome', 'User Data']],
    },
    registryKey: 'Software\\Google\\Chrome\\NativeMessagingHosts',
    executables: {
      linux: [['/usr/bin/google-chrome'], ['/usr/bin/google-chrome-stable'], ['/opt/google/chrome/chrome']],
      darwin: [['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'], ['~', 'Applications', 'Google Chrome.app', 'Contents', 'MacOS', 'Google Chrome']],
      win32: [
        ['%PROGRAMFILES%', 'Google', 'Chrome', 'Application', 'chrome.exe'],
        ['%PROGRAMFILES(X86)%', 'Google', 'Chrome', 'Application', 'chrome.exe'],
        ['%LOCALAPPDATA%', 'Google', 'Chrome', 'Application', 'chrome.exe'],
      ],
    },
    commands: ['google-chrome', 'google-chrome-stable'],
  },
  chromium: {
    label: 'Chromium',
    userData: {
      linux: [['$CONFIG', 'chromium']],
      darwin: [['$APP_SUPPORT', 'Chromium']],
      win32: [['%LOCALAPPDATA%', 'Chromium', 'User Data']],
    },
    registryKey: 'Software\\Chromium\\NativeMessagingHosts',
    executables: {
      linux: [['/usr/bin/chromium'], ['/usr/bin/chromium-browser'], ['/snap/bin/chromium']],
      darwin: [['/Applications/Chromium.app/Contents/MacOS/Chromium'], ['~', 'Applications', 'Chromium.app', 'Contents', 'MacOS', 'Chromium']],
      win32: [
        ['%LOCALAPPDATA%', 'Chromium', 'Application', 'chrome.exe'],
        ['%PROGRAMFILES%', 'Chromium', 'Application', 'chrome.exe'],
      ],
    },
    commands: ['chromium', 'chromium-browser'],
  },
  brave: {
    label: 'Brave',
    userData: {
      linux: [['$CONFIG', 'BraveSoftware', 'Brave-Browser']],
      darwin: [['$APP_SUPPORT', 'BraveSoftware', 'Brave-Browser']],
      win32: [['%LOCALAPPDATA%', 'BraveSoftware', 'Brave-Browser', 'User Data']],
    },
    registryKey: 'Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts',
    executables: {
      linux: [['/usr/bin/brave-browser'], ['/opt/brave.com/brave/brave'], ['/snap/bin/brave']],
      darwin: [['/Applications/Brave Browser.app/Contents/MacOS/Brave Browser'], ['~', 'Applications', 'Brave Browser.app', 'Contents', 'MacOS', 'Brave Browser']],
      win32: [
        ['%PROGRAMFILES%', 'BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'],
        ['%PROGRAMFILES(X86)%', 'BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'],
        ['%LOCALAPPDATA%', 'BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'],
      ],
    },
    commands: ['brave-browser', 'brave'],
  },
  edge: {
    label: 'Microsoft Edge',
    userData: {
      linux: [['$CONFIG', 'microsoft-edge']],
      darwin: [['$APP_SUPPORT', 'Microsoft Edge']],
      win32: [['%LOCALAPPDATA%', 'Microsoft', 'Edge', 'User Data']],
    },
    registryKey: 'Software\\Microsoft\\Edge\\NativeMessagingHosts',
    executables: {
      linux: [['/usr/bin/microsoft-edge'], ['/usr/bin/microsoft-edge-stable'], ['/opt/microsoft/msedge/msedge']],
      darwin: [['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge']],
      win32: [
        ['%PROGRAMFILES(X86)%', 'Microsoft', 'Edge', 'Application', 'msedge.exe'],
        ['%PROGRAMFILES%', 'Microsoft', 'Edge', 'Application', 'msedge.exe'],
      ],
    },
    commands: ['microsoft-edge', 'microsoft-edge-stable'],
  },
  comet: {
    label: 'Comet',
    // Comet's profile folders are facts with a public source: comet-facts.ts holds them.
    userData: COMET_FACTS.userData.value,
    registryKey: 'Software\\Perplexity\\Comet\\NativeMessagingHosts',
    executables: {
      linux: [['/usr/bin/comet'], ['/opt/perplexity/comet/comet'], ['/opt/comet/comet']],
      darwin: [['/Applications/Comet.app/Contents/MacOS/Comet'], ['~', 'Applications', 'Comet.app', 'Contents', 'MacOS', 'Comet']],
      win32: [
        ['%LOCALAPPDATA%', 'Perplexity', 'Comet', 'Application', 'comet.exe'],
        ['%PROGRAMFILES%', 'Perplexity', 'Comet', 'Application', 'comet.exe'],
        ['%PROGRAMFILES(X86)%', 'Perplexity', 'Comet', 'Application', 'comet.exe'],
      ],
    },
    commands: ['comet'],
    note: "Comet's locations come from public installers, not from Perplexity's documentation, and may be wrong (Comet may not ship for Linux at all).",
  },
};

export const MANIFEST_FILE_NAME = `${NATIVE_HOST_NAME}.json`;

export function isBrowser(value: string): value is Browser {
  return (BROWSERS as readonly string[]).includes(value);
}

/** Parses a `--browser` value (`chrome`, `all`, `chrome,brave`); throws naming the valid values. */
export function parseBrowsers(value: string): Browser[] | 'all' {
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('all')) return 'all';
  const unknown = names.filter((n) => !isBrowser(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`Unknown browser "${unknown.join(',') || value}": use one of ${BROWSERS.join(', ')}, or all.`);
  }
  return [...new Set(names)] as Browser[];
}

/** Expands one path template from the table for the given OS and environment. */
export function expandPath(segments: PathSegments, sys: ResolvedSystem): string {
  const p = sys.path;
  const parts = segments.map((segment) => {
    switch (segment) {
      case '~':
        return sys.homedir;
      case '$CONFIG':
        return sys.env.XDG_CONFIG_HOME && p.isAbsolute(sys.env.XDG_CONFIG_HOME) ? sys.env.XDG_CONFIG_HOME : p.join(sys.homedir, '.config');
      case '$APP_SUPPORT':
        return p.join(sys.homedir, 'Library', 'Application Support');
      case '%LOCALAPPDATA%':
        return sys.env.LOCALAPPDATA || p.join(sys.homedir, 'AppData', 'Local');
      case '%PROGRAMFILES%':
        return sys.env.ProgramFiles || sys.env.PROGRAMFILES || 'C:\\Program Files';
      case '%PROGRAMFILES(X86)%':
        return sys.env['ProgramFiles(x86)'] || sys.env['PROGRAMFILES(X86)'] || 'C:\\Program Files (x86)';
      default:
        return segment;
    }
  });
  return p.join(...parts);
}

/** The browser's default user data folders on this OS (candidates, preferred first). */
export function userDataDirs(browser: Browser, options: SystemOptions = {}): string[] {
  const sys = resolveSystem(options);
  return BROWSER_DATA[browser].userData[sys.platform].map((s) => expandPath(s, sys));
}

/** Linux/macOS: the NativeMessagingHosts folder inside a user data folder. */
export function nativeMessagingDir(userDataDir: string, options: SystemOptions = {}): string {
  return resolveSystem(options).path.join(userDataDir, 'NativeMessagingHosts');
}

/** Windows: the full HKCU key for our host, e.g. `HKCU\Software\Google\Chrome\NativeMessagingHosts\com.comet_relay.host`. */
export function registryKey(browser: Browser): string {
  return `HKCU\\${BROWSER_DATA[browser].registryKey}\\${NATIVE_HOST_NAME}`;
}

/** True when one of the browser's user data folders exists (it has been installed and run). */
export function isBrowserInstalled(browser: Browser, options: SystemOptions = {}): boolean {
  const sys = resolveSystem(options);
  return userDataDirs(browser, sys).some((dir) => isDirectory(sys, dir));
}

/** Candidate executables, in the order they are tried. Comet honours `COMET_PATH` first. */
export function browserExecutableCandidates(browser: Browser, options: SystemOptions = {}): string[] {
  const sys = resolveSystem(options);
  const candidates = BROWSER_DATA[browser].executables[sys.platform].map((s) => expandPath(s, sys));
  if (browser === 'comet' && sys.env.COMET_PATH) candidates.unshift(sys.env.COMET_PATH);
  if (sys.platform === 'linux') {
    const dirs = (sys.env.PATH ?? '').split(':').filter((d) => d.startsWith('/'));
    for (const command of BROWSER_DATA[browser].commands) {
      for (const dir of dirs) candidates.push(sys.path.join(dir, command));
    }
  }
  return [...new Set(candidates)];
}

/** The first candidate executable that exists, or undefined. */
export function findBrowserExecutable(browser: Browser, options: SystemOptions = {}): string | undefined {
  const sys = resolveSystem(options);
  return browserExecutableCandidates(browser, sys).find((file) => isExecutableFile(sys, file));
}
