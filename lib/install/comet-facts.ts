import type { InstallPlatform } from './system';

/**
 * What comet-relay believes about where each browser reads machine policy, and everything it
 * believes about Comet's own paths, keys and switches: data, dated, each row naming its public
 * source. When a browser moves something, correct this table, not the code that reads it.
 *
 * Comet is a Chromium browser from Perplexity with no public documentation of its policy or
 * profile locations; its rows come from the public scripts and write-ups of extension authors who
 * met its block (the repositories named below), not from Perplexity. `undefined` means nobody has
 * shown it publicly: the code says "unknown" rather than guessing.
 */
export const FACTS_CHECKED = '2026-12-02';

/** The browsers of browsers.ts (named here too, so browsers.ts can read this table without an import circle). */
type Browser = 'chrome' | 'chromium' | 'brave' | 'edge' | 'comet';
/** Path segments as browsers.ts expands them (`~`, `$CONFIG`, `$APP_SUPPORT`, `%LOCALAPPDATA%`, …). */
type PathSegments = readonly string[];

export interface Sourced<T> {
  value: T;
  /** Public repository (owner/name and path) or documentation page the value comes from. */
  source: string;
}

/** Where one browser reads `ExtensionSettings` as machine policy, per OS. */
export interface PolicyPlace {
  /** Linux: the folder of mandatory policy files (`…/policies/managed`); undefined when not known. */
  linuxManaged: Sourced<string | undefined>;
  /** Windows: the key under HKLM/HKCU (`Software\Policies\…`). */
  windowsKey: Sourced<string>;
  /**
   * Windows: whether the browser honours the key under HKCU. Chromium's Windows loader reads both
   * hives (a value under HKLM wins over the same policy under HKCU); for Comet only HKLM is shown.
   */
  windowsUserHive: Sourced<boolean>;
  /** macOS: the application's bundle id; managed preferences live in `/Library/Managed Preferences/<id>.plist`. */
  macBundleId: Sourced<string>;
}

const CHROMIUM_POLICY_DOC = 'chromium/src docs/enterprise/policies.md ("Policy sources")';
const CHROMIUM_WIN_LOADER = 'chromium/src components/policy/core/common/policy_loader_win.cc (reads HKLM, then HKCU)';
const COMPLEXITY_WIN = 'pnd280/complexity perplexity/extension/docs/scripts/comet-win.ps1 (HKLM, as administrator)';
const COMPLEXITY_MAC = 'pnd280/complexity perplexity/extension/docs/scripts/comet-mac.sh';

export const POLICY_PLACES: Record<Browser, PolicyPlace> = {
  chromium: {
    linuxManaged: { value: '/etc/chromium/policies/managed', source: CHROMIUM_POLICY_DOC },
    windowsKey: { value: 'Software\\Policies\\Chromium', source: CHROMIUM_POLICY_DOC },
    windowsUserHive: { value: true, source: CHROMIUM_WIN_LOADER },
    macBundleId: { value: 'org.chromium.Chromium', source: CHROMIUM_POLICY_DOC },
  },
  chrome: {
    linuxManaged: { value: '/etc/opt/chrome/policies/managed', source: CHROMIUM_POLICY_DOC },
    windowsKey: { value: 'Software\\Policies\\Google\\Chrome', source: 'support.google.com/chrome/a (Chrome Enterprise policy list, "Windows registry location")' },
    windowsUserHive: { value: true, source: CHROMIUM_WIN_LOADER },
    macBundleId: { value: 'com.google.Chrome', source: 'support.google.com/chrome/a (Chrome Enterprise policy list, "Mac/Linux preference name")' },
  },
  brave: {
    linuxManaged: { value: '/etc/brave/policies/managed', source: 'support.brave.com "Group Policy" (Linux: /etc/brave/policies/managed)' },
    windowsKey: { value: 'Software\\Policies\\BraveSoftware\\Brave', source: 'support.brave.com "Group Policy" (Windows registry)' },
    windowsUserHive: { value: true, source: CHROMIUM_WIN_LOADER },
    macBundleId: { value: 'com.brave.Browser', source: 'support.brave.com "Group Policy" (macOS: com.brave.Browser)' },
  },
  edge: {
    linuxManaged: { value: '/etc/opt/edge/policies/managed', source: 'learn.microsoft.com "Configure Microsoft Edge on Linux" (/etc/opt/edge/policies/managed)' },
    windowsKey: { value: 'Software\\Policies\\Microsoft\\Edge', source: 'learn.microsoft.com "Microsoft Edge browser policy documentation" (Windows registry settings)' },
    windowsUserHive: { value: true, source: 'learn.microsoft.com "Microsoft Edge browser policy documentation" (HKCU or HKLM)' },
    macBundleId: { value: 'com.microsoft.Edge', source: 'learn.microsoft.com "Configure Microsoft Edge for macOS" (com.microsoft.Edge)' },
  },
  comet: {
    // No public Linux build of Comet has shown a policy folder.
    linuxManaged: { value: undefined, source: 'none found: no public source shows Comet for Linux or its policy folder' },
    windowsKey: { value: 'Software\\Policies\\Perplexity\\Comet', source: COMPLEXITY_WIN },
    windowsUserHive: { value: false, source: `${COMPLEXITY_WIN}; nobody has shown Comet honouring HKCU` },
    macBundleId: { value: 'ai.perplexity.comet', source: COMPLEXITY_MAC },
  },
};

/** macOS: where managed preferences for all users live (root-owned; writing needs sudo). */
export const MAC_MANAGED_PREFERENCES = { value: '/Library/Managed Preferences', source: COMPLEXITY_MAC } as const;

/** Comet's own facts, each with its source. */
export const COMET_FACTS = {
  /**
   * Comet's user data (profile) folders per OS, preferred first. browsers.ts reads these for
   * Comet's native messaging folder and for `Local State`.
   */
  userData: {
    value: {
      // No public Linux Comet: this is comet-relay's guess by Chromium's naming, kept so install can be pointed at it.
      linux: [['$CONFIG', 'comet']],
      darwin: [['$APP_SUPPORT', 'Comet'], ['$APP_SUPPORT', 'Perplexity', 'Comet']],
      win32: [['%LOCALAPPDATA%', 'Perplexity', 'Comet', 'User Data']],
    } satisfies Record<InstallPlatform, readonly PathSegments[]>,
    source:
      'Windows: pnd280/complexity perplexity/extension/docs/articles/comet-enable-extensions-article.md; macOS: theJayTea/Comet-Patcher-to-Unblock-Perplexity-Extensions comet-patch-macos.sh ("~/Library/Application Support/Comet/Local State"); the macOS "Perplexity/Comet" form and Linux are unconfirmed',
  },
  /**
   * The `Local State` switch that lets extensions script Comet's Perplexity pages for one run:
   * Comet writes it back to false at each start, and what it reads at start decides that run.
   */
  ntpSwitch: {
    value: 'Allow-external-extensions-scripting-on-NTP',
    source: 'pnd280/complexity perplexity/extension/docs/articles/comet-enable-extensions-article.md; theJayTea/Comet-Patcher-to-Unblock-Perplexity-Extensions README.md',
  },
  /** The file, in the user data folder, that holds the switch. */
  localStateFile: { value: 'Local State', source: 'pnd280/complexity perplexity/extension/docs/articles/comet-enable-extensions-article.md' },
  /**
   * What the block says: `chrome.scripting` on a Perplexity tab fails with an error naming an
   * "ExtensionsSettings policy", from Comet's second launch on.
   */
  blockError: { value: 'ExtensionsSettings policy', source: 'pnd280/complexity perplexity/extension/docs/articles/comet-enable-extensions-article.md' },
  /** Comet's extensions page (where Chrome says chrome://extensions). */
  extensionsPage: { value: 'comet://extensions', source: 'load-unpacked steps of public Comet extensions, e.g. apix7/perplexity-model-watcher README.md' },
  /** Comet's Perplexity tab kinds: the assistant pane and the new-tab page, both on www.perplexity.ai. */
  sidecarPath: { value: '/sidecar', source: 'public Comet automation scripts (2025-2026) opening https://www.perplexity.ai/sidecar?copilot=true as "Perplexity Assistant"' },
  newTabPath: { value: '/b/home', source: 'a public Comet Playwright helper, scripts/browser.py (2026): "Comet\'s Perplexity sidecar injects tabs (perplexity.ai/sidecar, perplexity.ai/b/home)"' },
  /** Manifest V2 extensions are disabled in Comet; comet-relay is Manifest V3. */
  mv2Disabled: { value: '2026-03-27', source: "Perplexity's Comet changelog, cited in pnd280/complexity PR #161" },
} as const;

/**
 * A running Chromium holds a lock in its user data folder: `SingletonLock` (a symlink) on Linux and
 * macOS, `lockfile` on Windows. Present means a browser may be running on that folder.
 */
export const PROFILE_LOCKS = {
  value: { linux: 'SingletonLock', darwin: 'SingletonLock', win32: 'lockfile' } satisfies Record<InstallPlatform, string>,
  source: 'chromium/src chrome/browser/process_singleton_posix.cc (SingletonLock) and process_singleton_win.cc (lockfile)',
} as const;
