import { RelayError } from '../protocol/errors';
import { EXTENSION_ORIGIN } from '../protocol/identity';
import type { BrowserStatus } from '../protocol/methods';
import type { PageDiagnosis } from '../protocol/page/page-diagnostics';
import { extensionsPage, TAB_ACCESS_GRANT } from '../protocol/urls';
import { type HostRecord, listHosts as realListHosts } from '../relay/discovery';
import { readersInUse, SELECTOR_SET_KIND } from '../packs/kinds';
import { type FolderReport, readPackFolder } from '../relay/pack-folder';
import { publicTokenPath } from '../relay/paths';
import { VERSION } from '../relay/version';
import { BROWSER_DATA, BROWSERS, type Browser, registryKey } from './browsers';
import { hostLogPath } from './host-manifest';
import { defaultHomeOf, foreignFolder, installCommand, type ManifestLocation, manifestLocations, registeredUserDataDirs, type Resolved, resolveState, type StateOptions, userDataDirLocation } from './install';
import { formatPageReport } from './page-report';
import { queryRegistry } from './registry';
import { type CopyKind, checkExtensionFolder, type PackageCopy, packageCopy, rebuildHint, volatileCopyNote } from './package-copy';
import { chosenFolderOpen, defaultCliPath, errorMessage, type ExecFn, isFile, octal, openFolderMode, realExec, type ResolvedSystem, tildify } from './system';
import { unblockDrift } from './unblock';
import { verifyManifest } from './verify';
import { cliCommand, quoteArg } from '../relay/invocation';

/** One link of the chain browser → manifest → launcher → node → host → extension → Perplexity tab. */
export interface DoctorCheck {
  name: string;
  /** False only for a real problem; a skipped check is ok. */
  ok: boolean;
  /** The check did not apply here (browser not installed, nothing to ask without a host). */
  skipped?: boolean;
  /** Working as the person chose, but something is off they may want on (screenshots not allowed); `fix` says how. */
  off?: boolean;
  detail: string;
  /** One line: what to do. Present on every failed check, and on every `off` one. */
  fix?: string;
  /** What the check found, line by line, printed under it (`--page`: probe by probe). */
  lines?: string[];
}

export interface DoctorReport {
  checks: DoctorCheck[];
  ok: boolean;
  /** 0 when nothing is broken, 1 otherwise. */
  exitCode: number;
}

export interface DoctorOptions extends StateOptions {
  /** Which browsers' registrations to check. Default 'all' (missing ones of absent browsers are skipped). */
  browsers?: Browser[] | 'all';
  /** Check only the manifest of a browser started with `--user-data-dir DIR`. */
  userDataDir?: string;
  /** The CLI the launcher should run. Default: this bundle's `dist/cli.js`. */
  cliPath?: string;
  /** The node that runs doctor (reported, and checked for version). Default `process.execPath`. */
  nodePath?: string;
  /** Default `process.versions.node`. */
  nodeVersion?: string;
  /** Runs `reg query` on Windows. */
  exec?: ExecFn;
  /** Live host discovery records. Default: lib/relay/discovery listHosts. */
  listHosts?: (stateDir: string) => HostRecord[];
  /**
   * Asks the running host for the browser's status (`browser.status`). The caller wires the real
   * relay client; without it the extension and tab checks are skipped.
   */
  queryStatus?: () => Promise<BrowserStatus>;
  /** How long to wait for queryStatus. Default 5000 ms. */
  statusTimeoutMs?: number;
  /** Reads the selector sets folder. Default: lib/relay/pack-folder readPackFolder. */
  readPacks?: (stateDir: string) => FolderReport;
  /**
   * `doctor --page`: asks the Perplexity tab to try every probe of its selector set (`page.diagnose`). Its check is
   * one of the others, counted in the summary, and skipped, saying why, when there is no tab to ask.
   */
  queryPage?: () => Promise<PageDiagnosis>;
  /** How long to wait for queryPage. Default 10000 ms. */
  pageTimeoutMs?: number;
}

const MIN_NODE_MAJOR = 20;

/** When `file` was last written, or undefined when it is gone or cannot be read. */
function modifiedAt(sys: ResolvedSystem, file: string): number | undefined {
  try {
    return sys.fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Checks every link in order and says which one is broken and how to fix it. Throws only for a state folder that
 * cannot be one (a file: resolveState), which no check could look into.
 */
export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const resolved = resolveState(options);
  const { sys, stateDir } = resolved;
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck) => checks.push(check);

  // (a) node
  const nodePath = options.nodePath ?? process.execPath;
  const nodeVersion = options.nodeVersion ?? process.versions.node;
  const major = Number.parseInt(nodeVersion, 10);
  if (!(major >= MIN_NODE_MAJOR)) {
    add({ name: 'node', ok: false, detail: `node ${nodeVersion} at ${nodePath} is too old: comet-relay needs node ${MIN_NODE_MAJOR} or newer`, fix: `install Node.js ${MIN_NODE_MAJOR}+ (https://nodejs.org), then run: ${installCommand({ home: resolved.bakedHome, platform: sys.platform })}` });
  } else {
    add({ name: 'node', ok: true, detail: `node ${nodeVersion} at ${nodePath}` });
  }

  // (b) CLI built, and the extension folder beside it (a repository build or an installed package)
  const copy = packageCopy({ ...options, cliPath: options.cliPath ?? defaultCliPath() });
  const copyName = COPY_NAMES[copy.kind];
  if (isFile(sys, copy.cliPath)) add({ name: 'CLI built', ok: true, detail: `${tildify(sys, copy.cliPath)} (${copyName} ${VERSION})` });
  else add({ name: 'CLI built', ok: false, detail: `${tildify(sys, copy.cliPath)} does not exist (${copyName})`, fix: rebuildHint(copy, sys) });
  checks.push(extensionFolderCheck(copy, sys));

  // The state folder: before the manifests, whose fixes install into it, which refuses one open to others.
  const open = stateFolderCheck(options, resolved);
  if (open) checks.push(open);

  // (c) one manifest per browser
  checks.push(...(await manifestChecks(options, resolved)));

  // token (only serve needs it)
  checks.push(tokenCheck(sys, stateDir));
  // The public door's credential (`serve --public-url`) is checked the same way once it exists (review 2026-12-05 #12).
  const publicToken = publicTokenCheck(sys, stateDir);
  if (publicToken) checks.push(publicToken);

  // selector sets added as files
  const packs = (options.readPacks ?? readPackFolder)(stateDir);
  checks.push(packsCheck(sys, packs), readersCheck(sys, packs));

  // unblock's copy of an administrator's ExtensionSettings (Linux): still what their files say?
  const selected = options.browsers === undefined || options.browsers === 'all' ? BROWSERS : options.browsers;
  for (const drift of await unblockDrift({ env: sys.env, platform: sys.platform, homedir: sys.homedir, fs: sys.fs, stateDir, browsers: selected, nodePath, cliPath: options.cliPath })) {
    add({ name: `unblock ${drift.browser}`, ok: false, detail: drift.detail, fix: drift.fix });
  }

  // (d) a host is running
  const log = tildify(sys, hostLogPath(stateDir, sys.platform));
  let hosts: HostRecord[] = [];
  try {
    hosts = (options.listHosts ?? realListHosts)(stateDir);
  } catch (error) {
    add({ name: 'host running', ok: false, detail: `cannot read the discovery folder in ${tildify(sys, stateDir)}: ${errorMessage(error)}`, fix: 'check that the state folder is readable by you' });
  }
  if (hosts.length === 0) {
    if (!checks.some((c) => c.name === 'host running')) {
      // A browser reads a --user-data-dir registration only when started with that very folder (install says so too).
      const profiles = options.userDataDir ? [sys.path.resolve(options.userDataDir)] : registeredUserDataDirs(sys, stateDir);
      const started = profiles.map((dir) => `--user-data-dir=${quoteArg(dir, sys.platform)}`).join(' or ');
      add({
        name: 'host running',
        ok: false,
        detail: `No comet-relay host is running (no live record in ${tildify(sys, sys.path.join(stateDir, 'hosts'))})`,
        fix: `open the browser${started ? ` started with ${started}` : ''} with the comet-relay extension enabled (the browser starts the host). If it is open, check the host log at ${log}`,
      });
    }
  } else {
    const describe = (h: HostRecord) => `"${h.profileLabel}" in ${h.browser.name} ${h.browser.version} (pid ${h.pid}, host ${h.hostVersion}, extension ${h.extensionVersion})`;
    const stale = hosts.filter((h) => h.hostVersion !== VERSION);
    // A rebuild in place keeps the version: the host's own file, written anew since it started, says it runs old code.
    const rebuilt = hosts.filter((h) => h.hostVersion === VERSION && h.code && modifiedAt(sys, h.code.file) !== h.code.mtimeMs);
    const detail = `${hosts.length} host${hosts.length > 1 ? 's' : ''}: ${hosts.map(describe).join('; ')}`;
    if (stale.length > 0 || rebuilt.length > 0) {
      const why = [
        ...stale.map((h) => `The host for "${h.profileLabel}" is version ${h.hostVersion}, but this comet-relay is ${VERSION}`),
        ...rebuilt.map((h) => `The host for "${h.profileLabel}" runs the code it started with; ${tildify(sys, h.code?.file ?? '')} was written anew since`),
      ];
      add({
        name: 'host running',
        ok: false,
        detail: `${detail}. ${why.join('; ')}`,
        fix: 'reload the comet-relay extension (or restart the browser) so it starts the new host',
      });
    } else {
      add({ name: 'host running', ok: true, detail });
    }
  }

  // (e) extension connected, (f) Perplexity tab: need a live query through the host. (g) `--page`: the tab's probes.
  /** Why --page's probes were not tried, when they were asked for. */
  let pageSkipped: string | undefined;
  if (hosts.length === 0) {
    add({ name: 'extension connected', ok: true, skipped: true, detail: 'skipped: no host to ask' });
    add({ name: 'Perplexity tab', ok: true, skipped: true, detail: 'skipped: no host to ask' });
    pageSkipped = 'no host to ask';
  } else if (!options.queryStatus) {
    add({ name: 'extension connected', ok: true, skipped: true, detail: 'skipped: not asked (no live query wired)' });
    add({ name: 'Perplexity tab', ok: true, skipped: true, detail: 'skipped: not asked (no live query wired)' });
    pageSkipped = 'not asked (no live query wired)';
  } else {
    let status: BrowserStatus | undefined;
    try {
      status = await withTimeout(options.queryStatus(), options.statusTimeoutMs ?? 5000);
    } catch (error) {
      const relay = error instanceof RelayError ? error : undefined;
      add({
        name: 'extension connected',
        ok: false,
        detail: `asking the browser for its status failed: ${relay ? `[${relay.code}] ` : ''}${errorMessage(error)}`,
        fix: `open the browser's extensions page (${[...new Set(hosts.map((h) => extensionsPage(h.browser.name)))].join(', ')}), check that comet-relay is enabled and reload it; the host log is ${log}`,
      });
      add({ name: 'Perplexity tab', ok: true, skipped: true, detail: 'skipped: the extension did not answer' });
      pageSkipped = 'the extension did not answer';
    }
    if (status) {
      const where = `${status.browser.name} ${status.browser.version}, profile "${status.profile.label}"`;
      add({ name: 'extension connected', ok: true, detail: `extension ${status.extensionVersion} in ${where}, ${status.tabCount} tab${status.tabCount === 1 ? '' : 's'}` });
      const tab = status.perplexityTab;
      if (status.pageAccess) {
        // The extension asked the browser why its page script is not in the tab: the same words as the tools and the panel.
        add({ name: 'Perplexity tab', ok: false, detail: `[${status.pageAccess.code}] ${status.pageAccess.message}`, fix: status.pageAccess.fix });
      } else if (!tab) {
        add({ name: 'Perplexity tab', ok: false, detail: `no Perplexity tab is open in ${where}`, fix: 'open https://www.perplexity.ai in that browser (or let a client call comet_connect)' });
      } else if (tab.selectorSet === null) {
        add({
          name: 'Perplexity tab',
          ok: false,
          detail: `"${tab.title}" (${tab.url}) is open, but its page was not recognised (no selector set matched)`,
          fix: `wait for the page to load or reload the tab; if it persists, Perplexity changed its page: \`${cliCommand('doctor --page')}\` shows which probes miss, \`${cliCommand('capture')}\` saves the page for a bug report, \`${cliCommand('selectors add FILE')}\` installs a fixed set`,
        });
      } else {
        const origin = tab.selectorSource && tab.selectorSource !== 'built-in' ? `from ${tab.selectorSource}` : 'built-in';
        add({ name: 'Perplexity tab', ok: true, detail: `"${tab.title}" (${tab.url}), page layout ${tab.selectorSet} (${origin})` });
      }
      add(screenshotsCheck(status));
      if (status.pageAccess || !tab) pageSkipped = 'no Perplexity tab comet-relay can read (see "Perplexity tab")';
    }
  }
  if (options.queryPage) {
    if (pageSkipped) add({ name: 'page probes', ok: true, skipped: true, detail: `skipped: ${pageSkipped}` });
    else add(await pageCheck(options.queryPage, options.pageTimeoutMs ?? 10_000, cliCommand(`doctor --page${resolved.bakedHome ? ` --home ${quoteArg(resolved.bakedHome, sys.platform)}` : ''}`)));
  }

  const ok = checks.every((c) => c.ok);
  return { checks, ok, exitCode: ok ? 0 : 1 };
}

/**
 * install's rule for a state folder open to others (system.ts openFolderMode), as a check: one the person chose fails
 * with install's own two ways out (so its fix does not lead back to install's refusal); comet-relay's default folder,
 * which install, token and the host make 700, fails with the chmod that does the same.
 */
function stateFolderCheck(options: DoctorOptions, resolved: Resolved): DoctorCheck | undefined {
  const { sys, stateDir, bakedHome } = resolved;
  const mode = openFolderMode(sys, stateDir);
  if (mode === undefined) return undefined;
  if (bakedHome) {
    const { message, fix } = chosenFolderOpen(sys, stateDir, mode, (own) => installCommand({ userDataDir: options.userDataDir, home: own, platform: sys.platform }));
    return { name: 'state folder', ok: false, detail: message, fix };
  }
  return {
    name: 'state folder',
    ok: false,
    detail: `the state folder ${tildify(sys, stateDir)} is open to others (mode ${octal(mode)}); comet-relay keeps its launcher, token and sockets only in a folder closed to others`,
    fix: `run: chmod 700 ${quoteArg(stateDir, sys.platform)}   (install and the host make it 700 too)`,
  };
}

/** `--page`: every probe of the selector set in use, tried on the Perplexity tab (read-only); `again` is the command to rerun. */
async function pageCheck(queryPage: () => Promise<PageDiagnosis>, timeoutMs: number, again: string): Promise<DoctorCheck> {
  try {
    const page = formatPageReport(await withTimeout(queryPage(), timeoutMs));
    return { name: 'page probes', ok: page.ok, detail: page.summary, lines: page.lines, ...(page.fix ? { fix: page.fix } : {}) };
  } catch (error) {
    const relay = error instanceof RelayError ? error : undefined;
    return {
      name: 'page probes',
      ok: false,
      detail: `could not ask the Perplexity tab: ${relay ? `[${relay.code}] ` : ''}${errorMessage(error)}`,
      fix: `reload the Perplexity tab and wait for it to load, then run: ${again}`,
    };
  }
}

/**
 * Whether comet_screenshot (and reading other tabs) may run. Not a fault when off: the person
 * chooses; the check says how to allow it, so that nobody has to decode a refusal first.
 */
function screenshotsCheck(status: BrowserStatus): DoctorCheck {
  const how = `open the comet-relay side panel and click “${TAB_ACCESS_GRANT}” (under Control, or in its first-run card)`;
  if (status.tabAccess === undefined) {
    return { name: 'screenshots', ok: true, skipped: true, detail: `skipped: extension ${status.extensionVersion} does not say; to allow screenshots, ${how}` };
  }
  if (status.tabAccess) return { name: 'screenshots', ok: true, detail: `allowed: agents may take screenshots and read other tabs (“${TAB_ACCESS_GRANT}” is on)` };
  return {
    name: 'screenshots',
    ok: true,
    off: true,
    detail: 'not allowed: comet_screenshot is refused, of the Perplexity tab too (the browser lets an extension capture a tab only with access to all sites), and so is reading other tabs',
    fix: `to allow them, ${how}`,
  };
}

async function manifestChecks(options: DoctorOptions, resolved: Resolved): Promise<DoctorCheck[]> {
  const { sys } = resolved;
  const exec = options.exec ?? realExec;
  const expectedHome = expectedLauncherHome(resolved);

  const checkLocation = async (location: ManifestLocation, browser: Browser | undefined, userDataDir = options.userDataDir): Promise<{ present: boolean; check?: DoctorCheck }> => {
    const name = browser ? `manifest (${browser})` : 'manifest (--user-data-dir)';
    const command = installCommand({ browser, userDataDir, home: resolved.bakedHome, platform: sys.platform });
    let manifestPath = location.manifestPath;
    let via = '';
    if (sys.platform === 'win32' && location.registryKey) {
      const value = await queryRegistry(exec, location.registryKey);
      if (!value) return { present: false };
      manifestPath = value;
      via = ` (registered at ${location.registryKey})`;
      if (!sys.fs.existsSync(value)) {
        return { present: true, check: { name, ok: false, detail: `the registry key ${location.registryKey} points to ${value}, which does not exist`, fix: `run: ${command}` } };
      }
    } else if (!sys.fs.existsSync(manifestPath)) {
      return { present: false };
    }
    const result = verifyManifest(sys, manifestPath, { installCommand: command, extensionOrigin: EXTENSION_ORIGIN });
    const problems = [...result.problems];
    // Install's rule for where a manifest may be: one it would refuse to write is no registration to trust (review 11g, G4).
    const foreign = foreignFolder(sys, sys.path.dirname(manifestPath));
    if (foreign) {
      problems.unshift({
        message: `${foreign}, so another user could change what your browser starts`,
        fix: userDataDir ? 'pass a --user-data-dir inside a folder of your own (`mktemp -d` makes one), then install again with it' : `fix that folder's owner or permissions, then: ${command}`,
      });
    }
    const launcherHome = result.launcher ? (result.launcher.home ?? defaultHomeOf(sys)) : undefined;
    if (launcherHome !== undefined && !samePath(sys, launcherHome, expectedHome)) {
      problems.push({
        message: `the launcher starts the host with state folder ${tildify(sys, launcherHome)}, but this shell uses ${tildify(sys, expectedHome)}, so clients here will not find that host`,
        fix: `run: ${command}   (or set COMET_RELAY_HOME to match)`,
      });
    }
    const shown = `${tildify(sys, manifestPath)}${via}`;
    if (problems.length > 0) {
      return { present: true, check: { name, ok: false, detail: `${shown}: ${problems.map((p) => p.message).join('; ')}`, fix: (problems[0] as { fix: string }).fix } };
    }
    const node = result.launcher?.nodePath ? `, node ${result.launcher.nodePath}` : '';
    return { present: true, check: { name, ok: true, detail: `${shown} → ${tildify(sys, result.launcherPath ?? '')}${node}` } };
  };

  if (options.userDataDir) {
    const location = userDataDirLocation(options.userDataDir, resolved);
    if (sys.platform === 'win32') {
      // Windows reads only the registry: check the selected browsers' keys.
      const browsers = options.browsers && options.browsers !== 'all' ? options.browsers : BROWSERS.filter((b) => manifestLocations(b, resolved).some((l) => l.browserFound));
      const out: DoctorCheck[] = [];
      for (const browser of browsers) {
        const key = registryKey(browser);
        const { check } = await checkLocation({ ...location, registryKey: key }, browser);
        out.push(
          check ?? {
            name: `manifest (${browser})`,
            ok: false,
            detail: `no registry key ${key}, so ${BROWSER_DATA[browser].label} cannot find the host`,
            fix: `run: ${installCommand({ browser, userDataDir: options.userDataDir, home: resolved.bakedHome, platform: sys.platform })}`,
          },
        );
      }
      return out;
    }
    const { check } = await checkLocation(location, undefined);
    return [check ?? missingProfileManifest(sys, location, installCommand({ userDataDir: options.userDataDir, home: resolved.bakedHome, platform: sys.platform }))];
  }

  const selected: Browser[] = !options.browsers || options.browsers === 'all' ? [...BROWSERS] : options.browsers;
  type Pending = { browser: Browser; check?: DoctorCheck; found: boolean; first: ManifestLocation };
  const pending: Pending[] = [];
  for (const browser of selected) {
    const locations = manifestLocations(browser, resolved);
    let result: DoctorCheck | undefined;
    for (const location of locations) {
      const { check } = await checkLocation(location, browser);
      // With two candidate folders, a working one wins over a broken one.
      if (check && (!result || (check.ok && !result.ok))) result = check;
    }
    pending.push({ browser, check: result, found: locations.some((l) => l.browserFound), first: locations[0] as ManifestLocation });
  }

  // A missing manifest is a failure only if it leaves no browser registered at all (or the user
  // asked about that browser): someone who uses Chromium does not need Chrome registered.
  const anyWorking = pending.some((p) => p.check?.ok);
  const explicit = options.browsers !== undefined && options.browsers !== 'all';
  const out = pending.map(({ browser, check, found, first }): DoctorCheck => {
    if (check) return check;
    const label = BROWSER_DATA[browser].label;
    const command = installCommand({ browser, home: resolved.bakedHome, platform: sys.platform });
    const where = first.registryKey ? `no registry key ${first.registryKey}` : `no host manifest at ${tildify(sys, first.manifestPath)}`;
    if (!found && !explicit) {
      return { name: `manifest (${browser})`, ok: true, skipped: true, detail: `skipped: ${label} not found (no ${tildify(sys, first.userDataDir)})` };
    }
    if (anyWorking && !explicit) {
      return { name: `manifest (${browser})`, ok: true, skipped: true, detail: `skipped: not registered for ${label} (${where}); to use comet-relay there, run: ${command}` };
    }
    return { name: `manifest (${browser})`, ok: false, detail: `${where}, so ${label} cannot start the host ("Specified native messaging host not found")`, fix: `run: ${command}` };
  });
  // No browser's own folder holds a registration, but `install --user-data-dir` wrote some: those are what a browser
  // started with that folder runs, so they are checked instead of saying nothing is installed.
  const profiles = out.every((c) => c.skipped) ? registeredUserDataDirs(sys, resolved.stateDir) : [];
  for (const dir of profiles) {
    const { check } = await checkLocation(userDataDirLocation(dir, resolved), undefined, dir);
    if (check) out.push({ ...check, name: `manifest (--user-data-dir ${tildify(sys, dir)})` });
  }
  if (out.every((c) => c.skipped)) {
    out.push({
      name: 'browser',
      ok: false,
      detail: `no supported browser found (${BROWSERS.map((b) => BROWSER_DATA[b].label).join(', ')}) and no host manifest installed`,
      fix: `install one of them and run it once, then run: ${installCommand({ home: resolved.bakedHome, platform: sys.platform })}`,
    });
  }
  return out;
}

/** Which thread reader of each kind the tabs use: built-in, or the file it was added from (the rule of lib/selectors/reader-shelf.ts). */
function readersCheck(sys: ResolvedSystem, report: FolderReport): DoctorCheck {
  const inUse = readersInUse(report.packs).map((r) => `${r.noun} ${r.name} (${r.source === 'built-in' ? 'built-in' : `from ${tildify(sys, r.source)}`})`);
  return { name: 'thread readers', ok: true, detail: inUse.join('; ') };
}

function packsCheck(sys: ResolvedSystem, report: FolderReport): DoctorCheck {
  const folder = tildify(sys, report.dir);
  const added = report.packs.filter((p) => p.kind === SELECTOR_SET_KIND).map((p) => `${p.name} (${sys.path.basename(p.source)})`);
  if (report.skipped.length > 0) {
    const skipped = report.skipped.map((s) => `${sys.path.basename(s.source)}: ${s.reason}`).join('; ');
    return {
      name: 'selector sets',
      ok: false,
      detail: `${added.length ? `added: ${added.join(', ')}; ` : ''}skipped ${report.skipped.length} file${report.skipped.length === 1 ? '' : 's'} in ${folder}: ${skipped}`,
      fix: `fix a file and install it with \`${cliCommand('selectors add FILE')}\` (it says what is wrong), or remove it with \`${cliCommand('selectors remove FILENAME')}\``,
    };
  }
  if (added.length === 0) return { name: 'selector sets', ok: true, detail: `built-in only (none added in ${folder})` };
  return { name: 'selector sets', ok: true, detail: `built-in, and added in ${folder}: ${added.join(', ')}` };
}

const COPY_NAMES: Record<CopyKind, string> = { checkout: 'repository build', installed: 'installed package', 'npx-cache': "npx's cache" };

/**
 * Where to load the extension from. Informational: an extension loaded from elsewhere (another
 * build, a store) is fine, and the "extension connected" check says whether one is talking to us.
 */
function extensionFolderCheck(copy: PackageCopy, sys: ResolvedSystem): DoctorCheck {
  const folder = checkExtensionFolder(copy, sys);
  const note = volatileCopyNote(copy, sys);
  if (folder.ok) {
    return { name: 'extension folder', ok: true, detail: `load it unpacked from ${tildify(sys, folder.dir)} (ID ${folder.id}, version ${folder.version ?? '?'})${note ? `. ${note}` : ''}` };
  }
  return { name: 'extension folder', ok: true, skipped: true, detail: `skipped: ${folder.problem}; only needed to load the extension from this copy (${folder.fix})` };
}

function tokenCheck(sys: ResolvedSystem, stateDir: string): DoctorCheck {
  const file = sys.path.join(stateDir, 'token');
  if (!sys.fs.existsSync(file)) {
    return { name: 'HTTP token', ok: true, skipped: true, detail: `skipped: no token yet (${tildify(sys, file)}); only "${cliCommand('serve')}" needs one, and install creates it` };
  }
  return ownerOnlyCheck(sys, 'HTTP token', file) ?? { name: 'HTTP token', ok: true, detail: `${tildify(sys, file)}${sys.platform === 'win32' ? '' : ', owner-only'}` };
}

/** `public-token`, what calls through the tunnel of `serve --public-url` carry: only when there is one. */
function publicTokenCheck(sys: ResolvedSystem, stateDir: string): DoctorCheck | undefined {
  const file = sys.path.join(stateDir, sys.path.basename(publicTokenPath(stateDir)));
  if (!sys.fs.existsSync(file)) return undefined;
  return ownerOnlyCheck(sys, 'public token', file) ?? { name: 'public token', ok: true, detail: `${tildify(sys, file)}${sys.platform === 'win32' ? '' : ', owner-only'}` };
}

/** A failed check when a credential file may be read by others (or not at all); undefined when it is owner-only. */
function ownerOnlyCheck(sys: ResolvedSystem, name: string, file: string): DoctorCheck | undefined {
  if (sys.platform === 'win32') return undefined;
  try {
    const mode = sys.fs.statSync(file).mode & 0o777;
    // The fix is pasted into a shell: macOS's default folder is under "Application Support", with a space.
    if ((mode & 0o077) !== 0) return { name, ok: false, detail: `${tildify(sys, file)} is readable by others (mode ${mode.toString(8).padStart(4, '0')})`, fix: `run: chmod 600 ${quoteArg(file, sys.platform)}` };
  } catch (error) {
    return { name, ok: false, detail: `cannot read ${tildify(sys, file)}: ${errorMessage(error)}`, fix: `check the file's owner and permissions` };
  }
  return undefined;
}

/** The state folder the launcher should give the host: the one this process uses. */
function expectedLauncherHome(resolved: Resolved): string {
  return resolved.bakedHome ?? resolved.stateDir;
}

function samePath(sys: ResolvedSystem, a: string, b: string): boolean {
  const na = sys.path.resolve(a);
  const nb = sys.path.resolve(b);
  return sys.platform === 'win32' ? na.toLowerCase() === nb.toLowerCase() : na === nb;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the browser did not answer within ${Math.round(ms / 100) / 10} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One line per check: `✔ name — detail`, `✘ name — detail` + `    fix: …`, `- name — skipped…`; then a summary. */
export function formatDoctor(report: DoctorReport): string {
  const lines: string[] = [];
  for (const check of report.checks) {
    const mark = check.skipped ? '-' : check.off ? '○' : check.ok ? '✔' : '✘';
    lines.push(`${mark} ${check.name} — ${check.detail}`);
    for (const line of check.lines ?? []) lines.push(`    ${line}`);
    if (!check.ok && check.fix) lines.push(`    fix: ${check.fix}`);
    else if (check.off && check.fix) lines.push(`    ${check.fix}`);
  }
  const failed = report.checks.filter((c) => !c.ok);
  const first = failed[0];
  lines.push(first ? `${failed.length} problem${failed.length > 1 ? 's' : ''} found; start with "${first.name}".` : 'Everything checked is working.');
  return lines.join('\n');
}

/**
 * doctor's line for a `--user-data-dir` profile with no manifest: the install that writes one, unless install refuses
 * that profile (a file given for it, a folder another user owns or every user may write), when its command is no fix
 * (review 14c, F4; review 14d, 3).
 */
function missingProfileManifest(sys: ResolvedSystem, location: ManifestLocation, install: string): DoctorCheck {
  const name = 'manifest (--user-data-dir)';
  const file = notAFolder(sys, location.userDataDir);
  if (file) {
    return {
      name,
      ok: false,
      detail: `${tildify(sys, file)} is a file, not a browser profile folder`,
      fix: 'pass --user-data-dir the folder the browser was started with (its --user-data-dir), not a file in it',
    };
  }
  const foreign = foreignFolder(sys, sys.path.dirname(location.manifestPath));
  if (foreign) {
    return {
      name,
      ok: false,
      detail: `no host manifest, and install does not write one there: ${foreign}`,
      fix: 'start the browser with a --user-data-dir folder of your own that only you can write, and install for that one',
    };
  }
  return { name, ok: false, detail: `no host manifest at ${tildify(sys, location.manifestPath)}`, fix: `run: ${install}` };
}

/** The nearest of `dir` and the folders above it that is there, when that is a file: no profile can be under it. */
function notAFolder(sys: ResolvedSystem, dir: string): string | undefined {
  for (let at = dir; ; at = sys.path.dirname(at)) {
    let stat: ReturnType<ResolvedSystem['fs']['statSync']> | undefined;
    try {
      stat = sys.fs.statSync(at);
    } catch {
      stat = undefined;
    }
    if (stat) return stat.isDirectory() ? undefined : at;
    if (sys.path.dirname(at) === at) return undefined;
  }
}
