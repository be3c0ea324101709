import nodeFs from 'node:fs';
import { NATIVE_HOST_NAME } from '../protocol/identity';
import { ensurePrivateDir } from '../relay/private-dir';
import { ATTACHMENT_FILES, attachmentsDir, checkStateFolder, customManifestsPath, expandHome, isOwnAttachmentMeta, packsDir, replacedInstallsPath, stateDir as defaultStateDir, stateDirPath, OWN_STATE_FILES, publicTokenPath } from '../relay/paths';
import { BROWSER_DATA, BROWSERS, type Browser, isBrowserInstalled, MANIFEST_FILE_NAME, registryKey, userDataDirs } from './browsers';
import { buildManifest, launcherPath, manifestText, writeLauncherWith } from './host-manifest';
import { deleteRegistryKey, queryRegistry, registerManifest } from './registry';
import {
  chosenFolderOpen,
  defaultCliPath,
  errorMessage,
  type ExecFn,
  isDirectory,
  isExecutableFile,
  isFile,
  octal,
  openFolderMode,
  realExec,
  type ResolvedSystem,
  resolveSystem,
  type SystemOptions,
  tildify,
} from './system';
import { ensureTokenFile } from './token';
import { privilegedUnblockCommand } from './policy/privileged-command';
import { removeCometBackups, undoUnblock, unblockedBrowsers, unblockRecordPath } from './unblock';
import { type ActingFor, guardedFs, LeftAlone, leftAloneWhy } from './policy/owned-remove';
import { verifyManifest } from './verify';
import { ownerFor, processUid, writeOwnedFile } from './policy/owned-write';
import { sudoPerson } from './policy/sudo-home';
import { asHostRecord } from '../relay/discovery';
import { cliCommand, commandPrefix, quoteArg } from '../relay/invocation';

export interface StateOptions extends SystemOptions {
  /**
   * The state directory to use (`--home DIR`): the launcher exports `COMET_RELAY_HOME=DIR`, so the
   * browser's host and the clients started with the same variable meet there. Default: the
   * environment's COMET_RELAY_HOME (also baked into the launcher), else the per-user state dir.
   */
  home?: string;
}

/** Where a manifest for one browser goes. */
export interface ManifestLocation {
  /** `chrome`, `comet`, or `--user-data-dir` when writing for one profile folder. */
  target: string;
  browser?: Browser;
  manifestPath: string;
  /** Windows: the HKCU key whose default value must be `manifestPath`. */
  registryKey?: string;
  /** The browser's user data folder this location belongs to (Linux/macOS: the manifest's grandparent). */
  userDataDir: string;
  /** Whether that user data folder exists (the browser is installed and was run). */
  browserFound: boolean;
}

export interface Resolved {
  sys: ResolvedSystem;
  stateDir: string;
  /** The COMET_RELAY_HOME the launcher must export, if not the default. */
  bakedHome?: string;
}

/** Resolves the state directory and what the launcher must export (see StateOptions.home). */
export function resolveState(options: StateOptions = {}): Resolved {
  const sys = resolveSystem(options);
  const explicit = options.home ?? sys.env.COMET_RELAY_HOME;
  // A file where the folder should be is said here, once, before any command makes or reads something in it (paths.ts).
  const stat = (file: string) => sys.fs.statSync(file);
  if (explicit) {
    const dir = checkStateFolder(sys.path.resolve(expandHome(explicit, sys.homedir)), options.home ? '--home' : 'COMET_RELAY_HOME', { stat, path: sys.path });
    return { sys, stateDir: dir, bakedHome: dir };
  }
  return { sys, stateDir: defaultStateDir({ env: sys.env, platform: sys.platform, homedir: sys.homedir, stat }) };
}

/** Every place a manifest for `browser` is read from on this OS (macOS Comet has two). */
export function manifestLocations(browser: Browser, resolved: Resolved): ManifestLocation[] {
  const { sys, stateDir } = resolved;
  const dirs = userDataDirs(browser, sys);
  if (sys.platform === 'win32') {
    // The JSON may live anywhere on Windows: one per browser in our state folder, found via the registry.
    return [
      {
        target: browser,
        browser,
        manifestPath: sys.path.join(stateDir, 'NativeMessagingHosts', browser, MANIFEST_FILE_NAME),
        registryKey: registryKey(browser),
        userDataDir: dirs[0] as string,
        browserFound: dirs.some((d) => isDirectory(sys, d)),
      },
    ];
  }
  return dirs.map((dir) => ({
    target: browser,
    browser,
    manifestPath: sys.path.join(dir, 'NativeMessagingHosts', MANIFEST_FILE_NAME),
    userDataDir: dir,
    browserFound: isDirectory(sys, dir),
  }));
}

/** The manifest location for a custom `--user-data-dir` (Linux/macOS read `<dir>/NativeMessagingHosts/`). */
export function userDataDirLocation(userDataDir: string, resolved: Resolved): ManifestLocation {
  const { sys } = resolved;
  const dir = sys.path.resolve(userDataDir);
  return {
    target: '--user-data-dir',
    manifestPath: sys.path.join(dir, 'NativeMessagingHosts', MANIFEST_FILE_NAME),
    userDataDir: dir,
    browserFound: isDirectory(sys, dir),
  };
}

/** The command line that (re)installs for one target; used in every "fix:" line. */
export function installCommand(options: { browser?: Browser | 'all'; userDataDir?: string; home?: string; platform?: NodeJS.Platform } = {}): string {
  return commandFor('install', options.browser ? [options.browser] : [], options);
}

/** The command line that takes back one part of an install, with its state folder; for "what is left" lines. */
export function uninstallCommand(options: { browsers?: Browser[]; userDataDir?: string; home?: string; platform?: NodeJS.Platform } = {}): string {
  return commandFor('uninstall', options.browsers ?? [], options);
}

/** One whole `sub` for cliCommand, its --home included: cliCommand adds a run's own --home only to a line without one. */
function commandFor(sub: 'install' | 'uninstall', browsers: string[], options: { userDataDir?: string; home?: string; platform?: NodeJS.Platform }): string {
  const q = (value: string) => quoteArg(value, options.platform ?? process.platform);
  const parts: string[] = [sub];
  if (browsers.length > 0) parts.push(`--browser ${browsers.join(',')}`);
  if (options.userDataDir) parts.push(`--user-data-dir ${q(options.userDataDir)}`);
  if (options.home) parts.push(`--home ${q(options.home)}`);
  return cliCommand(parts.join(' '));
}

export interface InstallOptions extends StateOptions {
  /**
   * Which browsers to register with. `'all'` (the default) writes for every browser whose user
   * data folder exists, and only for those (a browser not found gets no folder made in its name);
   * the others are reported as skipped. A list writes for exactly those browsers, found or not.
   */
  browsers?: Browser[] | 'all';
  /**
   * Write only `<userDataDir>/NativeMessagingHosts/com.comet_relay.host.json`, for a browser
   * started with `--user-data-dir` (tests, extra profiles). On Windows, where browsers only read
   * the registry, the file is also registered under the selected browsers' keys.
   */
  userDataDir?: string;
  /** Absolute path of the built CLI (`dist/cli.js`) the launcher runs. Required. */
  cliPath: string;
  /** Absolute node the launcher runs. Default `process.execPath`. */
  nodePath?: string;
  /** Runs `reg.exe` on Windows. Default: child_process.execFile. */
  exec?: ExecFn;
  /** Create the HTTP bearer token if missing. Default true. */
  createToken?: boolean;
  /** The uid this runs as (default this process's): root under sudo is refused. */
  uid?: number;
}

export interface TargetReport {
  /** Browser name, or `--user-data-dir`. */
  target: string;
  browser?: Browser;
  manifestPath: string;
  registryKey?: string;
  /** True when written and verified, or when skipped. */
  ok: boolean;
  /** Not written on purpose (browser not found with `--browser all`). */
  skipped?: boolean;
  /** What is wrong (or why it was skipped). */
  problem?: string;
  /** One line: what to do about it. */
  fix?: string;
  /** Written, and something the person should know (another install's registration replaced, no browser profile in --user-data-dir). */
  notes?: string[];
}

export interface InstallReport {
  /** True when every written target verified and node and the CLI exist. */
  ok: boolean;
  stateDir: string;
  launcherPath: string;
  nodePath: string;
  cliPath: string;
  /** COMET_RELAY_HOME baked into the launcher, if any. */
  home?: string;
  /** The token file; its content is never part of the report. */
  token?: { path: string; created: boolean };
  targets: TargetReport[];
  /** Problems not tied to one browser (node or CLI missing, launcher not writable). */
  problems: { message: string; fix: string }[];
  /** Things done that the person should know of, not tied to one browser (the state folder's mode tightened). */
  notes?: string[];
  /** Human-readable report, one line per item, ready to print. */
  lines: string[];
}

/** Which locations to write, and which browsers were skipped (with why), for `browsers`/`userDataDir`. */
export function planTargets(options: { browsers?: Browser[] | 'all'; userDataDir?: string }, resolved: Resolved): { write: ManifestLocation[]; skipped: TargetReport[] } {
  const { sys } = resolved;
  const all = (options.browsers ?? 'all') === 'all';
  const selected: Browser[] = all ? [...BROWSERS] : [...new Set(options.browsers as Browser[])];
  const write: ManifestLocation[] = [];
  const skipped: TargetReport[] = [];

  if (options.userDataDir) {
    const location = userDataDirLocation(options.userDataDir, resolved);
    if (sys.platform !== 'win32') return { write: [location], skipped };
    const browsers = all ? selected.filter((b) => isBrowserInstalled(b, sys)) : selected;
    for (const browser of browsers) write.push({ ...location, target: browser, browser, registryKey: registryKey(browser) });
    return { write, skipped };
  }

  for (const browser of selected) {
    const locations = manifestLocations(browser, resolved);
    const found = locations.filter((l) => l.browserFound);
    if (all && found.length === 0) {
      const first = locations[0] as ManifestLocation;
      skipped.push({
        target: browser,
        browser,
        manifestPath: first.manifestPath,
        registryKey: first.registryKey,
        ok: true,
        skipped: true,
        problem: `${BROWSER_DATA[browser].label} not found (no ${tildify(sys, first.userDataDir)})`,
        fix: `to register it anyway: ${installCommand({ browser, home: resolved.bakedHome, platform: sys.platform })}`,
      });
      continue;
    }
    // Several candidate folders (macOS Comet): write where the browser exists, else into all of them.
    write.push(...(found.length > 0 ? found : locations));
  }
  return { write, skipped };
}

/**
 * Registers the native messaging host: writes the launcher (`<stateDir>/bin/comet-relay-host`),
 * a manifest for each selected browser (or for one `--user-data-dir`), the Windows registry keys,
 * and the HTTP token if missing; then verifies each manifest the way the browser will read it.
 * Never throws for a broken target: the report says what failed and how to fix it.
 */
export async function install(options: InstallOptions): Promise<InstallReport> {
  const resolved = resolveState(options);
  const { sys, stateDir, bakedHome } = resolved;
  // Root under sudo would leave root's files where the person's browser runs them, or in root's home where it never
  // looks (review 11f, F6): uninstall and unblock settle whose install they act on; install refuses. An install into
  // folders named on the command line (a test harness run as root: --user-data-dir and --home) is that person's choice.
  // COMET_RELAY_HOME kept by `sudo -E` is no such choice: the person's own shell set it (review 11g, G3).
  const person = options.userDataDir || options.home ? undefined : sudoPerson(sys, options.uid ?? processUid());
  if (person) {
    throw new Error(
      `install runs as root under sudo (for ${person.user}): what it writes (the launcher, the token, the browsers' manifests) would be root's, which ${person.user}'s browser cannot run. Nothing was written. Run \`${cliCommand('install')}\` as ${person.user}, without sudo.`,
    );
  }
  const exec = options.exec ?? realExec;
  const nodePath = options.nodePath ?? process.execPath;
  const cliPath = sys.path.resolve(options.cliPath);
  const problems: InstallReport['problems'] = [];
  const targets: TargetReport[] = [];
  const rerun = (browser?: Browser | 'all') => installCommand({ browser, userDataDir: options.userDataDir, home: bakedHome, platform: sys.platform });

  if (!isExecutableFile(sys, nodePath)) {
    problems.push({ message: `node was not found at ${nodePath}`, fix: `run the install with the node you want the browser to use (its absolute path is recorded in the launcher)` });
  }
  if (!isFile(sys, cliPath)) {
    problems.push({ message: `the CLI ${tildify(sys, cliPath)} does not exist (not built yet?)`, fix: 'run: npm run build, then install again' });
  }

  const report = (extra: Partial<InstallReport>): InstallReport => {
    const result: InstallReport = {
      ok: false,
      stateDir,
      launcherPath: launcherPath(stateDir, sys.platform),
      nodePath,
      cliPath,
      home: bakedHome,
      targets,
      problems,
      notes,
      lines: [],
      ...extra,
    };
    result.ok = problems.length === 0 && targets.every((t) => t.ok);
    result.lines = formatInstallReport(result, sys);
    return result;
  };

  const notes: string[] = [];
  // A folder the person chose that others may use is refused, left as it is; comet-relay's default folder is its own:
  // tightened below, and said (the one rule: system.ts openFolderMode).
  const shared = bakedHome ? openFolderMode(sys, stateDir) : undefined;
  if (shared !== undefined) {
    problems.push(chosenFolderOpen(sys, stateDir, shared, (own) => installCommand({ userDataDir: options.userDataDir, home: own, platform: sys.platform })));
    return report({});
  }

  let launcher: string;
  try {
    // The browser runs the launcher from this folder: it gets the check the host applies to the same folder
    // before the host ever starts (a real folder of ours, closed to others), not after the launcher ran.
    if (sys.fs === (nodeFs as unknown)) {
      const was = ensurePrivateDir(stateDir, { platform: sys.platform });
      if (was !== undefined) notes.push(`the state folder ${tildify(sys, stateDir)} was open to others (mode ${octal(was)}); it is 700 now, as the host requires`);
      ensurePrivateDir(sys.path.dirname(launcherPath(stateDir, sys.platform)), { platform: sys.platform });
    }
    // How the person ran this install, said so that it holds from any folder: the host tells the extension.
    const command = commandPrefix({ cliPath, platform: sys.platform, lasting: true });
    launcher = writeLauncherWith(sys, { stateDir, nodePath, cliPath, home: bakedHome, command });
  } catch (error) {
    problems.push({ message: `could not write the launcher in ${tildify(sys, stateDir)}: ${errorMessage(error)}`, fix: 'check that the folder is writable by you, or pass --home DIR' });
    return report({});
  }

  const manifest = manifestText(buildManifest(launcher));
  const plan = planTargets(options, resolved);
  if (plan.write.length === 0) {
    problems.push({
      message: `no browser was found (none of ${BROWSERS.map((b) => BROWSER_DATA[b].label).join(', ')} has a profile folder here), so nothing was registered`,
      fix: `start your browser once so it makes its profile folder, then install again; or name it: ${installCommand({ browser: 'chrome', home: bakedHome, platform: sys.platform })} (or --user-data-dir DIR for a browser started with one)`,
    });
  }
  const written = new Set<string>();
  const replaced: Replaced[] = [];
  for (const location of plan.write) {
    const targetNotes: string[] = [];
    const target: TargetReport = { target: location.target, browser: location.browser, manifestPath: location.manifestPath, registryKey: location.registryKey, ok: false, notes: targetNotes };
    targets.push(target);
    const fixCommand = rerun(location.browser);
    // One registration per browser is shared by every install: another --home's is taken over, never silently
    // (review 2026-12-05 #6). The person asked for this install, so it is written; the report names the install it
    // replaced and how to give it back, and the record of it lets this install's uninstall name it too.
    // Before anything in it is read (a pipe planted at the manifest's name would hang the read: review 11g, G7).
    const foreign = foreignFolder(sys, sys.path.dirname(location.manifestPath));
    if (foreign) {
      target.problem = `wrote no manifest: ${foreign}, so another user could change what your browser starts`;
      target.fix = options.userDataDir
        ? `pass a --user-data-dir inside a folder of your own (\`mktemp -d\` makes one), then install again with it`
        : `fix that folder's owner or permissions, then: ${fixCommand}`;
      continue;
    }
    const where = location.registryKey ?? location.manifestPath;
    const other = await registeredLauncher(sys, exec, location);
    if (other !== undefined && !samePath(sys, other, launcher) && isFile(sys, other)) {
      const otherHome = sys.path.dirname(sys.path.dirname(other));
      const give = installCommand({ browser: location.browser, userDataDir: options.userDataDir, home: otherHome, platform: sys.platform });
      targetNotes.push(`this replaces another install's registration, which ran ${tildify(sys, other)}; to give it back to that install: ${give}`);
      replaced.push({ where, launcher: other, ...(location.browser ? { browser: location.browser } : {}) });
    }
    // A --user-data-dir with no browser profile in it (a typo, or a browser never started with it) is said: the
    // browser reads this manifest only when started with exactly that folder (review 2026-12-05 #13).
    if (options.userDataDir && !isFile(sys, sys.path.join(location.userDataDir, LOCAL_STATE))) {
      targetNotes.push(
        `${tildify(sys, location.userDataDir)} ${location.browserFound ? 'holds' : 'did not exist (install created it) and holds'} no browser profile yet (no ${LOCAL_STATE} file): check the path; the browser finds this manifest only when started with --user-data-dir=${quoteArg(location.userDataDir, sys.platform)}`,
      );
    }
    try {
      if (!written.has(location.manifestPath)) {
        sys.fs.mkdirSync(sys.path.dirname(location.manifestPath), { recursive: true, mode: 0o755 });
        // Whole or not at all, and never through a link planted at its name (review 11f, F1, F5).
        writeOwnedFile(sys, location.manifestPath, manifest, 0o644);
        written.add(location.manifestPath);
      }
    } catch (error) {
      target.problem = `could not write ${tildify(sys, location.manifestPath)}: ${errorMessage(error)}`;
      target.fix = `check the folder's permissions, then: ${fixCommand}`;
      continue;
    }
    if (location.registryKey) {
      try {
        await registerManifest(exec, location.registryKey, location.manifestPath);
        const value = await queryRegistry(exec, location.registryKey);
        if (!value || value.toLowerCase() !== location.manifestPath.toLowerCase()) {
          target.problem = `the registry key ${location.registryKey} reads ${value ? `"${value}"` : 'nothing'} after writing it`;
          target.fix = `check HKCU permissions (regedit), then: ${fixCommand}`;
          continue;
        }
      } catch (error) {
        target.problem = errorMessage(error);
        target.fix = `check HKCU permissions (regedit), then: ${fixCommand}`;
        continue;
      }
    }
    const check = verifyManifest(sys, location.manifestPath, { installCommand: fixCommand });
    const first = check.problems[0];
    if (first) {
      target.problem = check.problems.map((p) => p.message).join('; ');
      target.fix = first.fix;
    } else {
      target.ok = true;
    }
  }
  targets.push(...plan.skipped);
  const took = replaced.filter((r) => targets.some((t) => t.ok && (t.registryKey ?? t.manifestPath) === r.where));
  if (took.length > 0) rememberReplaced(sys, stateDir, (known) => [...known.filter((k) => !took.some((r) => r.where === k.where)), ...took]);
  // A manifest written for a browser started with --user-data-dir is in no place `uninstall` looks: remembered, so
  // the launcher it runs is kept while it is there (review 2026-12-05, relay #4).
  for (const t of targets) if (t.ok && t.target === '--user-data-dir' && t.manifestPath) rememberCustomManifests(sys, stateDir, (known) => [...known, t.manifestPath as string]);

  let token: InstallReport['token'];
  if (options.createToken !== false) {
    try {
      const t = ensureTokenFile(stateDir, { fs: sys.fs, platform: sys.platform });
      token = { path: t.path, created: t.created };
    } catch (error) {
      problems.push({ message: errorMessage(error), fix: 'check the state folder permissions, or pass --home DIR' });
    }
  }
  return report({ launcherPath: launcher, token });
}

function formatInstallReport(r: InstallReport, sys: ResolvedSystem): string[] {
  const lines: string[] = [];
  const t = (p: string) => tildify(sys, p);
  lines.push(`comet-relay native host "${NATIVE_HOST_NAME}" (state folder ${t(r.stateDir)}${r.home ? ', baked into the launcher as COMET_RELAY_HOME' : ''})`);
  lines.push(`  launcher  ${t(r.launcherPath)} → ${r.nodePath} ${t(r.cliPath)} host`);
  for (const p of r.problems) lines.push(`✘ ${p.message}`, `    fix: ${p.fix}`);
  for (const note of r.notes ?? []) lines.push(`  note: ${note}`);
  const width = Math.max(8, ...r.targets.map((x) => x.target.length));
  for (const target of r.targets) {
    const where = target.registryKey ? `${t(target.manifestPath)} (registered at ${target.registryKey})` : t(target.manifestPath);
    if (target.skipped) lines.push(`- ${target.target.padEnd(width)}  skipped: ${target.problem}; ${target.fix}`);
    else if (target.ok) lines.push(`✔ ${target.target.padEnd(width)}  ${where}`);
    else lines.push(`✘ ${target.target.padEnd(width)}  ${where}: ${target.problem}`, `    fix: ${target.fix}`);
    if (!target.skipped) for (const note of target.notes ?? []) lines.push(`    note: ${note}`);
  }
  if (r.token) lines.push(`  token     ${t(r.token.path)} (${r.token.created ? 'created' : 'kept'}; for "${cliCommand('serve')}", show it with: ${cliCommand('token')})`);
  if (r.ok) {
    lines.push(`Done. Load the comet-relay extension (\`${cliCommand('extension')}\` shows its folder and the steps) or reload it so it connects now, then check everything with: ${cliCommand('doctor')}`);
  } else {
    lines.push(`Some parts failed: fix the lines marked ✘ and run the install again, or run: ${cliCommand('doctor')}`);
  }
  return lines;
}

export interface UninstallOptions extends StateOptions {
  /** Which browsers to unregister. Default 'all': every known location, installed or not. */
  browsers?: Browser[] | 'all';
  /** Remove only `<userDataDir>/NativeMessagingHosts/com.comet_relay.host.json` (and, on Windows, the selected keys pointing at it). */
  userDataDir?: string;
  /** Also remove the token, logs, discovery records, sockets, code cache and uploaded attachments (`--purge`). */
  purge?: boolean;
  exec?: ExecFn;
  /** node and the CLI the printed sudo command for an unblock's undo names (default: this process's). */
  nodePath?: string;
  cliPath?: string;
  /**
   * Root under sudo, acting for this person: nothing is removed or rewritten through a link in their
   * folders, nor a file of anybody else's; what is left is said, with what to do (policy/owned-remove.ts).
   */
  asRootFor?: ActingFor;
}

export interface UninstallReport {
  ok: boolean;
  /** Files, folders and registry keys removed. */
  removed: string[];
  /** What was kept, and why (the launcher while another manifest still uses it). */
  kept: string[];
  problems: string[];
  /** What the person should know (a registration this install had taken over from another, not given back). */
  notes: string[];
  lines: string[];
}

/**
 * Removes manifests, registry keys and — once no known manifest still points at it — the launcher.
 * The token and logs stay unless `purge`. Removes only files it knows by name: a `--home` that
 * points at a shared folder loses nothing else.
 */
export async function uninstall(options: UninstallOptions = {}): Promise<UninstallReport> {
  const plainResolved = resolveState(options);
  const guard = options.asRootFor;
  // Under sudo every removal and write goes through the guarded file system; what it refuses is a problem line.
  const resolved = guard ? { ...plainResolved, sys: { ...plainResolved.sys, fs: guardedFs(plainResolved.sys, guard) } } : plainResolved;
  const { sys, stateDir } = resolved;
  const exec = options.exec ?? realExec;
  const removed: string[] = [];
  const kept: string[] = [];
  const problems: string[] = [];
  const launcher = launcherPath(stateDir, sys.platform);
  const all = (options.browsers ?? 'all') === 'all';
  const selected: Browser[] = all ? [...BROWSERS] : [...new Set(options.browsers as Browser[])];

  /** Once each: many files under one link are left alone for one reason. */
  const problem = (text: string) => {
    if (!problems.includes(text)) problems.push(text);
  };
  const failed = (file: string, error: unknown) => problem(error instanceof LeftAlone ? error.message : `could not remove ${file}: ${errorMessage(error)}`);
  /** Folders of ours that could not be read: said once, with whose they are, and not again as "files not ours". */
  const unreadable = new Set<string>();
  /** The default state folder only comet-relay uses; a --home given (whatever it names) may be shared with other things. */
  const ownFolder = !resolved.bakedHome || samePath(sys, stateDir, defaultHomeOf(sys));
  /**
   * A folder of ours the purge could not read. Gone, or a file of someone else's by that name, is nothing of ours;
   * one that cannot be read is said, with whose it is and who can remove it, never taken for empty (day-5 review F2;
   * day-6 F2, F3). Another user's in a folder that may be shared may be another program's: kept and said, with the
   * way out only if comet-relay alone uses it, never a failure the person can end only by deleting what may not be
   * ours (day-7 review F2). In the default folder, which only comet-relay uses, it is ours: the purge is not done
   * (day-7b G2; day-7c I1, I2).
   */
  const cannotRead = (full: string, error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return;
    unreadable.add(full);
    const owner = otherOwner(sys, full);
    const remover = owner === undefined ? 'make it readable or remove it yourself' : owner === 0 ? `\`sudo rm -r ${quoteArg(full, sys.platform)}\` removes it` : `user ${owner} or root can remove it`;
    const whose = owner === undefined ? '' : `it belongs to ${owner === 0 ? 'root' : `user ${owner}`} and `;
    if (owner === undefined || ownFolder) problem(`could not read ${tildify(sys, full)} (${code ?? errorMessage(error)}): ${whose}${remover}; then run the same uninstall again`);
    else kept.push(`${tildify(sys, full)} (${whose}cannot be read, so whether comet-relay's files are in it cannot be seen; if only comet-relay uses it, ${remover})`);
  };
  /** Whether root under sudo must not read or act on `file` (why said once); never outside sudo. */
  const leftAlone = (file: string): boolean => {
    const why = guard ? leftAloneWhy(sys, guard, file, 'file') : undefined;
    if (why) problem(why);
    return why !== undefined;
  };
  const removeFile = (file: string) => {
    try {
      if (!sys.fs.existsSync(file)) return;
      sys.fs.rmSync(file, { force: true });
      removed.push(file);
    } catch (error) {
      failed(file, error);
    }
  };
  const removeKey = async (key: string) => {
    try {
      if (await deleteRegistryKey(exec, key)) removed.push(key);
    } catch (error) {
      problems.push(errorMessage(error));
    }
  };

  // Only registrations that name this install's launcher go; another install's (another --home)
  // stay, and the report says whose they are.
  const ours = (manifestPath: string, label: string): boolean => {
    if (!sys.fs.existsSync(manifestPath) || leftAlone(manifestPath)) return false;
    const target = manifestLauncher(sys, manifestPath);
    if (target !== undefined && samePath(sys, target, launcher)) return true;
    kept.push(
      target === undefined
        ? `${tildify(sys, label)} (not a manifest comet-relay can read: remove it by hand if no other install uses it)`
        : `${tildify(sys, label)} (points at ${tildify(sys, target)}, another install's launcher: uninstall with --home ${tildify(sys, sys.path.dirname(sys.path.dirname(target)))} to remove it)`,
    );
    return false;
  };
  const removeManifest = (manifestPath: string) => {
    if (ours(manifestPath, manifestPath)) removeFile(manifestPath);
  };
  /** A key goes when it names our manifest, or a manifest that points at our launcher. */
  const removeOurKey = async (key: string, ownManifest: string) => {
    const value = await queryRegistry(exec, key);
    if (value === undefined) return;
    if (samePath(sys, value, ownManifest) || ours(value, key)) await removeKey(key);
  };

  if (options.userDataDir) {
    const location = userDataDirLocation(options.userDataDir, resolved);
    const present = sys.fs.existsSync(location.manifestPath);
    const mine = present && ours(location.manifestPath, location.manifestPath);
    if (mine) removeFile(location.manifestPath);
    // A key naming that file goes with it, or when the file is gone already (it can start nothing).
    if (sys.platform === 'win32' && (mine || !present)) {
      for (const browser of selected) {
        const key = registryKey(browser);
        const value = await queryRegistry(exec, key);
        if (value && samePath(sys, value, location.manifestPath)) await removeKey(key);
      }
    }
  } else {
    for (const browser of selected) {
      for (const location of manifestLocations(browser, resolved)) {
        if (location.registryKey) await removeOurKey(location.registryKey, location.manifestPath);
        removeManifest(location.manifestPath);
        if (sys.platform === 'win32') removeEmptyDir(sys, sys.path.dirname(location.manifestPath));
      }
    }
    // The registrations `install --user-data-dir` wrote are this install's too, remembered because they are in no place
    // a browser's name leads to: an uninstall that no --browser narrows takes them with the rest (new-user review #3).
    // Only those still running this launcher; one another install wrote over since is that install's.
    if (all) {
      for (const file of rememberCustomManifests(sys, stateDir, (known) => known)) {
        if (sys.fs.existsSync(file) && !leftAlone(file) && pointsAt(sys, file, launcher)) removeFile(file);
      }
    }
  }

  // A registration this install took over from another (install said so) is not given back to it: uninstall would
  // write a registration for a launcher in a state folder that is not its own, which may be stale or no longer wanted.
  // It names that install and the command that registers it again, so it is never left unregistered without a word.
  const notes: string[] = [];
  const gone = (where: string) => removed.some((r) => samePath(sys, r, where));
  for (const r of rememberReplaced(sys, stateDir, (known) => known.filter((k) => !gone(k.where)), (all) => all.filter((k) => gone(k.where)))) {
    if (!isFile(sys, r.launcher)) continue;
    const command = installCommand({ browser: r.browser, userDataDir: options.userDataDir, home: sys.path.dirname(sys.path.dirname(r.launcher)), platform: sys.platform });
    notes.push(`${tildify(sys, r.where)} is registered to no install now; before this install took it over it ran ${tildify(sys, r.launcher)} (another install's), which uninstall does not restore. To register that install again: ${command}`);
  }

  // The launcher goes only when nothing we know of still points at it: a browser's manifest, or one that
  // `install --user-data-dir` wrote (those that are gone or point elsewhere now are forgotten).
  const users: string[] = [];
  for (const browser of BROWSERS) {
    for (const location of manifestLocations(browser, resolved)) {
      let manifestPath: string | undefined = location.manifestPath;
      if (location.registryKey) manifestPath = await queryRegistry(exec, location.registryKey);
      if (manifestPath && pointsAt(sys, manifestPath, launcher)) users.push(browser);
    }
  }
  const custom = rememberCustomManifests(sys, stateDir, (known) => known.filter((file) => pointsAt(sys, file, launcher)));
  const customDirs = custom.map((file) => sys.path.dirname(sys.path.dirname(file)));
  for (const dir of customDirs) users.push(`--user-data-dir ${tildify(sys, dir)}`);
  // The exact uninstalls that take what still runs the launcher, with this state folder (`--browser all` without it
  // would look in another install's).
  const browserUsers = BROWSERS.filter((b) => users.includes(b));
  const customUninstalls = customDirs.map((dir) => uninstallCommand({ userDataDir: dir, home: resolved.bakedHome, platform: sys.platform }));
  const takeRest = [...(browserUsers.length > 0 ? [uninstallCommand({ browsers: browserUsers, home: resolved.bakedHome, platform: sys.platform })] : []), ...customUninstalls].join(' and ');
  if (users.length > 0 && !options.purge) {
    // A --browser left out was left out on purpose; a --user-data-dir registration is named with what removes it.
    const customRest = customUninstalls.join(' and ');
    kept.push(`${tildify(sys, launcher)} (still used by ${[...new Set(users)].join(', ')}${customRest ? `; ${customRest} removes ${customDirs.length > 1 ? 'those' : 'that'} registration` : ''})`);
  } else {
    removeFile(launcher);
    removeEmptyDir(sys, sys.path.dirname(launcher));
    if (users.length > 0) {
      problems.push(`the host manifests of ${[...new Set(users)].join(', ')} still point at the removed launcher; remove them with: ${takeRest}`);
    }
  }

  // What `unblock` wrote into a browser's policy goes too, exactly that (its record says what).
  if (!options.userDataDir) {
    for (const browser of unblockedBrowsers(sys, stateDir, selected)) {
      // The record goes once the policy is taken back: one root may not remove is not acted on at all.
      if (leftAlone(unblockRecordPath(sys, stateDir, browser))) continue;
      try {
        // Taken back where the record says it was written (any --policy-dir included): the command needs no folder of its own.
        const privilegedCommand = (needs: 'root' | 'admin') =>
          privilegedUnblockCommand({ platform: sys.platform, needs, browser, undo: true, stateDir, nodePath: options.nodePath ?? process.execPath, cliPath: options.cliPath ?? defaultCliPath() });
        const undone = await undoUnblock({ env: sys.env, platform: sys.platform, homedir: sys.homedir, fs: sys.fs, browser, stateDir, exec, privilegedCommand });
        if (!undone.ok) problems.push(...undone.lines);
        else if (undone.changed) removed.push(`comet-relay's entry in ${undone.where} (restart ${browser} for it to apply)`);
      } catch (error) {
        problems.push(`${browser}'s unblock was not taken back: ${errorMessage(error)} (then: ${cliCommand(`uninstall --browser ${browser}`)})`);
      }
    }
    // The copy of Comet's Local State goes once nothing of an unblock of Comet is left (an earlier undo may have left it).
    if (selected.includes('comet') && unblockedBrowsers(sys, stateDir, ['comet']).length === 0) {
      const backups = removeCometBackups(sys);
      removed.push(...backups.removed);
      problems.push(...backups.problems);
    }
  }

  if (options.purge) {
    // Only files comet-relay creates, by name; a folder goes only once nothing else is in it, so a
    // --home shared with other things (even one with a bin/ of its own) loses nothing else.
    removeFile(sys.path.join(stateDir, 'token'));
    // The public door's credential too: left behind, a later `serve --public-url` would take it up again.
    removeFile(sys.path.join(stateDir, sys.path.basename(publicTokenPath(stateDir))));
    // The record of the --user-data-dir registrations stays while one it lists is still there: it is all that leads
    // an uninstall to them (new-user review #3).
    const record = customManifestsPath(stateDir);
    const keepRecord = custom.length > 0 && sys.fs.existsSync(record);
    if (keepRecord) kept.push(`${tildify(sys, record)} (it lists the registrations of ${customDirs.map((d) => `--user-data-dir ${tildify(sys, d)}`).join(', ')}, still there)`);
    for (const { dir, name } of OWN_STATE_FILES) {
      const full = sys.path.join(stateDir, dir);
      let entries: string[] = [];
      try {
        entries = sys.fs.readdirSync(full);
      } catch (error) {
        cannotRead(full, error);
        continue;
      }
      for (const entry of entries) {
        const file = sys.path.join(full, entry);
        if (!name.test(entry) || (keepRecord && samePath(sys, file, record))) continue;
        // A record's name is a pattern another program's file may fit in a shared --home (`hosts/inventory.json`): it
        // goes only when what it holds is one of ours (review 11f, F4).
        if (!ownRecord(sys, dir, entry, file)) continue;
        removeFile(file);
      }
      removeEmptyDir(sys, full);
    }
    // Uploads (a person's documents, copied for Computer): each folder whose meta.json says we made it.
    const uploads = attachmentsDir(stateDir);
    let folders: string[] = [];
    try {
      folders = sys.fs.readdirSync(uploads);
    } catch (error) {
      cannotRead(uploads, error);
    }
    for (const folder of folders) {
      const full = sys.path.join(uploads, folder);
      let meta: string;
      try {
        meta = sys.fs.readFileSync(sys.path.join(full, 'meta.json'), 'utf8');
      } catch (error) {
        // No meta.json: not an upload of ours. One that cannot be read: said, as a folder of ours would be (day-7d F2).
        cannotRead(full, error);
        continue;
      }
      if (!isOwnAttachmentMeta(meta, folder)) continue;
      try {
        for (const file of ATTACHMENT_FILES) sys.fs.rmSync(sys.path.join(full, file), { force: true });
        removed.push(full);
      } catch (error) {
        failed(full, error);
      }
      removeEmptyDir(sys, full);
    }
    for (const dir of [...OWN_STATE_FILES.map((f) => f.dir), 'attachments', 'bin', 'NativeMessagingHosts']) {
      const full = sys.path.join(stateDir, dir);
      removeEmptyDir(sys, full); // NativeMessagingHosts/ once its per-browser folders went
      const others = (() => {
        try {
          return sys.fs.readdirSync(full).filter((entry) => !(keepRecord && samePath(sys, sys.path.join(full, entry), record)) && !unreadable.has(sys.path.join(full, entry)));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          return code === 'ENOENT' || code === 'ENOTDIR' || unreadable.has(full) ? [] : ['(it cannot be read)'];
        }
      })();
      if (others.length > 0) kept.push(`${tildify(sys, full)} (holds files not created by comet-relay)`);
    }
    // Data packs are the person's own files (`selectors add`): kept, and said so; the empty folder the host makes goes.
    const packs = packsDir(stateDir);
    removeEmptyDir(sys, packs);
    if (sys.fs.existsSync(packs)) kept.push(`${tildify(sys, packs)} (selector sets and readers you added; \`${cliCommand('selectors remove NAME')}\` removes one)`);
    removeEmptyDir(sys, stateDir);
  } else {
    // Only what is there: a report that names a folder nobody made sends the person looking for it.
    const stays = ['token', sys.path.basename(publicTokenPath(stateDir)), 'logs'].map((name) => sys.path.join(stateDir, name)).filter((file) => sys.fs.existsSync(file));
    if (stays.length > 0) kept.push(`${spokenList(stays.map((file) => tildify(sys, file)))} (remove ${stays.length > 1 ? 'them' : 'it'} with --purge)`);
  }

  const lines: string[] = [];
  // "Nothing to remove" only when nothing was found either: above a ✘ or a kept line it would say the install is gone
  // while something of it stands.
  if (removed.length === 0 && problems.length === 0 && kept.length === 0) lines.push('Nothing to remove: comet-relay was not registered in the selected places.');
  else if (removed.length === 0) lines.push('Nothing was removed: what stands, and why, is said below.');
  for (const r of removed) lines.push(`removed  ${tildify(sys, r)}`);
  for (const k of kept) lines.push(`kept     ${k}`);
  for (const n of notes) lines.push(`note     ${n}`);
  for (const p of problems) lines.push(`✘ ${p}`);
  if (removed.length > 0 && problems.length === 0) lines.push('A host that is still running stops when the browser closes or the extension is removed.');
  return { ok: problems.length === 0, removed, kept, problems, notes, lines };
}

/** `a`, `a and b`, `a, b and c`. */
function spokenList(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The host manifests `install --user-data-dir` wrote, as `change` leaves them (saved when that changed them); an
 * unreadable list is an empty one. Nothing is ever deleted from it but a name: it only keeps the launcher.
 */
function rememberCustomManifests(sys: ResolvedSystem, stateDir: string, change: (known: string[]) => string[]): string[] {
  const isPath = (f: unknown): f is string => typeof f === 'string' && sys.path.isAbsolute(f);
  return rememberList(sys, customManifestsPath(stateDir), isPath, (known) => [...new Set(change(known))]).next;
}

/**
 * The profile folders `install --user-data-dir` registered this install in whose manifest is still there and runs its
 * launcher, from the record (read only): what doctor names, since no browser's own folder holds those registrations.
 */
export function registeredUserDataDirs(sys: ResolvedSystem, stateDir: string): string[] {
  const launcher = launcherPath(stateDir, sys.platform);
  let known: unknown;
  try {
    known = JSON.parse(sys.fs.readFileSync(customManifestsPath(stateDir), 'utf8'));
  } catch {
    return []; // none recorded
  }
  if (!Array.isArray(known)) return [];
  const live = known.filter((f): f is string => typeof f === 'string' && sys.path.isAbsolute(f) && sys.fs.existsSync(f) && pointsAt(sys, f, launcher));
  return [...new Set(live.map((f) => sys.path.dirname(sys.path.dirname(f))))];
}

/** A browser registration (POSIX: the manifest's path; Windows: its registry key) install took over from another install's launcher. */
interface Replaced {
  where: string;
  launcher: string;
  browser?: Browser;
}

/**
 * The registrations install took over, as `change` leaves them; returns what `pick` takes from the list as it was
 * (uninstall: the ones it has just removed). Saved like rememberCustomManifests, and only ever names paths.
 */
function rememberReplaced(sys: ResolvedSystem, stateDir: string, change: (known: Replaced[]) => Replaced[], pick: (known: Replaced[]) => Replaced[] = () => []): Replaced[] {
  const isReplaced = (r: unknown): r is Replaced => {
    const x = r as Partial<Replaced> | null;
    return typeof x?.where === 'string' && typeof x.launcher === 'string' && sys.path.isAbsolute(x.launcher) && (x.browser === undefined || (BROWSERS as readonly string[]).includes(x.browser));
  };
  return pick(rememberList(sys, replacedInstallsPath(stateDir), isReplaced, change).known);
}

/** A JSON list in the state folder: read (unreadable is empty), changed, and saved when that changed it (best effort). */
function rememberList<T>(sys: ResolvedSystem, file: string, isItem: (item: unknown) => item is T, change: (known: T[]) => T[]): { known: T[]; next: T[] } {
  let known: T[] = [];
  try {
    const data = JSON.parse(sys.fs.readFileSync(file, 'utf8')) as unknown;
    if (Array.isArray(data)) known = data.filter(isItem);
  } catch {
    // none yet
  }
  const next = change(known);
  if (JSON.stringify(next) !== JSON.stringify(known)) {
    try {
      sys.fs.mkdirSync(sys.path.dirname(file), { recursive: true, mode: 0o700 });
      // A list cut short reads as empty, and uninstall would forget registrations it holds (review 11f, F5); root under
      // sudo gives it to the folder's owner, as the write in place it replaced kept it theirs (review 11g, G2).
      writeOwnedFile(sys, file, `${JSON.stringify(next, null, 2)}\n`, 0o600, ownerFor(sys, sys.path.dirname(file), processUid()));
    } catch {
      // unsaved: the next install or uninstall tries again; until then a launcher may be kept or removed as before
    }
  }
  return { known, next };
}

/** The launcher the browser's registration at `location` runs now (Windows: through its registry key), if any. */
async function registeredLauncher(sys: ResolvedSystem, exec: ExecFn, location: ManifestLocation): Promise<string | undefined> {
  const manifestPath = location.registryKey ? await queryRegistry(exec, location.registryKey) : location.manifestPath;
  return manifestPath && sys.fs.existsSync(manifestPath) ? manifestLauncher(sys, manifestPath) : undefined;
}

/** A Chromium browser's profile folder holds this file once the browser has run with it. */
const LOCAL_STATE = 'Local State';

function pointsAt(sys: ResolvedSystem, manifestPath: string, launcher: string): boolean {
  const target = manifestLauncher(sys, manifestPath);
  return target !== undefined && samePath(sys, target, launcher);
}

/** The launcher a host manifest names, or undefined when it cannot be read as one. */
function manifestLauncher(sys: ResolvedSystem, manifestPath: string): string | undefined {
  try {
    const data = JSON.parse(sys.fs.readFileSync(manifestPath, 'utf8')) as { path?: unknown };
    return typeof data.path === 'string' ? data.path : undefined;
  } catch {
    return undefined;
  }
}

function samePath(sys: ResolvedSystem, a: string, b: string): boolean {
  return sys.platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function removeEmptyDir(sys: ResolvedSystem, dir: string): void {
  try {
    if (sys.fs.readdirSync(dir).length === 0) sys.fs.rmdirSync(dir);
  } catch {
    // Not there or not empty: leave it.
  }
}

/** The state folder an install (or a host) without --home or COMET_RELAY_HOME uses. */
export function defaultHomeOf(sys: ResolvedSystem): string {
  const env = { ...sys.env };
  delete env.COMET_RELAY_HOME;
  return stateDirPath({ env, platform: sys.platform, homedir: sys.homedir });
}

/** The user `file` belongs to when that is not this process's (whose it is says who can remove it), else undefined. */
function otherOwner(sys: ResolvedSystem, file: string): number | undefined {
  try {
    const owner = sys.fs.lstatSync?.(file).uid;
    const me = process.getuid?.();
    return owner === undefined || me === undefined || owner === me ? undefined : owner;
  } catch {
    return undefined;
  }
}

/**
 * Why no manifest is written into `dir` (the browser's NativeMessagingHosts folder): it, or a folder above it, belongs
 * to another user or may be written by every user (a sticky one like /tmp excepted), who could then point the browser
 * at a program of theirs, swap the profile, or plant a link there (review 11f, F1: a `--user-data-dir` in /tmp another
 * user made first; review 11g, G1: a folder of theirs further up). Each is judged where it leads (a link the person made
 * to a folder of their own is theirs); folders not there yet are made by us.
 */
export function foreignFolder(sys: ResolvedSystem, dir: string): string | undefined {
  const uid = processUid();
  if (sys.platform === 'win32' || uid === undefined) return undefined;
  for (let folder = dir; ; folder = sys.path.dirname(folder)) {
    let stat: ReturnType<ResolvedSystem['fs']['statSync']> | undefined;
    try {
      stat = sys.fs.statSync(folder);
    } catch {
      stat = undefined;
    }
    if (stat) {
      if (!stat.isDirectory()) return `${tildify(sys, folder)} is not a folder`;
      if (stat.uid !== undefined && stat.uid !== uid && stat.uid !== 0) return `${tildify(sys, folder)} belongs to user ${stat.uid}, not to you`;
      // Every user, that is: a folder group-writable for the person's own group (a 002 umask) stays theirs, and in a
      // sticky one (/tmp) nobody moves what is not theirs.
      if ((stat.mode & 0o002) !== 0 && (stat.mode & 0o1000) === 0) return `${tildify(sys, folder)} can be written by every user (mode ${(stat.mode & 0o777).toString(8)})`;
    }
    if (sys.path.dirname(folder) === folder) return undefined;
  }
}

/**
 * Whether a discovery record or a remembered profile (`hosts/<id>.json`, `profiles/<id>.json`) holds what comet-relay
 * writes there, for the id its name says; any other file of the state folder's patterns is ours by its name alone.
 */
function ownRecord(sys: ResolvedSystem, dir: string, entry: string, file: string): boolean {
  if (dir === 'logs' && /\.log(\.\d+)?$/.test(entry)) return ownLog(sys, file);
  if (dir === 'installs') return readsAs(sys, file, Array.isArray);
  if ((dir !== 'hosts' && dir !== 'profiles') || !entry.endsWith('.json')) return true;
  const id = entry.slice(0, -'.json'.length);
  if (dir === 'hosts') return readsAs(sys, file, (value) => asHostRecord(value)?.profileId === id);
  return readsAs(sys, file, (value) => {
    const v = value as { profileId?: unknown; profileLabel?: unknown } | null;
    return typeof v === 'object' && v !== null && v.profileId === id && typeof v.profileLabel === 'string';
  });
}

/** Whether `file` holds JSON that `test` accepts. */
function readsAs(sys: ResolvedSystem, file: string, test: (value: unknown) => boolean): boolean {
  try {
    return test(JSON.parse(sys.fs.readFileSync(file, 'utf8')));
  } catch {
    return false;
  }
}

/**
 * Whether a log of the state folder's names is ours by what it says: a line as the logger writes it (`<ISO time> INFO
 * [pid] …`, lib/relay/logger.ts) or as the launcher does (`… comet-relay launcher: …`) in its first 4 kB (a rotated
 * copy may start mid-line), or nothing at all; another program's `logs/host.log` in a shared --home stays.
 */
function ownLog(sys: ResolvedSystem, file: string): boolean {
  let head: string;
  try {
    head = sys.fs.readFileSync(file, 'utf8').slice(0, 4096);
  } catch {
    return false;
  }
  return head === '' || /(?:^|\n)\d{4}-\d\d-\d\dT[\d:.]+Z? (?:INFO|WARN|ERROR) \[\d+\] |comet-relay launcher: /.test(head);
}
