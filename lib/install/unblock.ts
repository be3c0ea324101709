import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { EXTENSION_ID } from '../protocol/identity';
import { BROWSER_DATA, type Browser, expandPath } from './browsers';
import { COMET_FACTS, FACTS_CHECKED, PROFILE_LOCKS } from './comet-facts';
import { type ExtensionSettings, linuxPlace, macPlace, NeedsPrivilege, type PolicyPlace, windowsPlace } from './policy-places';
import { errorMessage, type ExecFn, realExec, type ResolvedSystem, resolveSystem, type SystemOptions } from './system';
import { cliCommand } from '../relay/invocation';

/**
 * `comet-relay unblock`: lets comet-relay's extension — and, unless asked, no other — run on
 * perplexity.ai where a browser's ExtensionSettings policy blocks extensions there (Comet as it
 * ships; a company's Chrome). It adds one entry, for our pinned ID, to the policy already in force
 * and records what it wrote, so `--undo` (and `uninstall`) take back exactly that and nothing else.
 */

export const PERPLEXITY_HOSTS = '*://*.perplexity.ai';

export interface UnblockOptions extends SystemOptions {
  browser: Browser;
  /** The comet-relay state folder, where the record of what was written is kept. */
  stateDir: string;
  /** Write the `*` entry (every extension) instead of ours alone. */
  allExtensions?: boolean;
  dryRun?: boolean;
  /** Asked with the exact change before writing; absent means the caller said --yes. */
  confirm?: (question: string) => Promise<boolean>;
  exec?: ExecFn;
  /** Linux: a managed policy folder other than the browser's (tests; a distribution's own path). */
  policyDir?: string;
  /** The command that reruns this one with the privilege it lacks (named in the error). */
  privilegedCommand?: (needs: 'root' | 'admin') => string;
}

export interface UnblockReport {
  ok: boolean;
  /** True when something was written (or, with --dry-run, would be). */
  changed: boolean;
  /** Where the policy is (file, or registry key and value), once known. */
  where?: string;
  lines: string[];
}

/** What unblock wrote at one place: enough to take back exactly that. */
const RecordSchema = z.object({
  version: z.literal(1),
  browser: z.string(),
  where: z.string(),
  /** `EXTENSION_ID`, or `*` with --all-extensions. */
  key: z.string(),
  /** The ExtensionSettings value at the place before, and the one written. */
  before: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  after: z.record(z.string(), z.record(z.string(), z.unknown())),
  /** Also flip Comet's Local State switch before comet-relay starts Comet (set for Comet only). */
  cometSwitch: z.boolean().optional(),
  writtenAt: z.string(),
});
type UnblockRecord = z.infer<typeof RecordSchema>;

export const unblockRecordPath = (sys: ResolvedSystem, stateDir: string, browser: Browser) => sys.path.join(stateDir, 'unblock', `${browser}.json`);

function readRecord(sys: ResolvedSystem, stateDir: string, browser: Browser): UnblockRecord | undefined {
  const file = unblockRecordPath(sys, stateDir, browser);
  if (!sys.fs.existsSync(file)) return undefined;
  try {
    return RecordSchema.parse(JSON.parse(sys.fs.readFileSync(file, 'utf8')));
  } catch (error) {
    throw new Error(`The record of what unblock wrote (${file}) cannot be read (${errorMessage(error)}); remove it, and check ${browser}'s policy by hand.`);
  }
}

function placeFor(options: UnblockOptions, sys: ResolvedSystem): Promise<PolicyPlace> | PolicyPlace {
  const exec = options.exec ?? realExec;
  if (sys.platform === 'win32') return windowsPlace(options.browser, exec);
  if (sys.platform === 'darwin') return macPlace(options.browser, sys, exec);
  return linuxPlace(options.browser, sys, options.policyDir);
}

const hosts = (entry: Record<string, unknown> | undefined, field: string): string[] => {
  const value = entry?.[field];
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
};
const union = (...lists: string[][]) => [...new Set(lists.flat())];
const blocksPerplexity = (list: string[]) => list.some((pattern) => /perplexity\.ai/i.test(pattern) || pattern === '*' || pattern === '<all_urls>');

/**
 * The entry that lets `key` run on perplexity.ai, given the value in force. An extension with an
 * entry that names hosts of its own takes none from `*`, so ours carries `*`'s blocked and allowed
 * hosts (allowed wins over blocked): it stays out of every site the administrator blocked for all.
 */
export function entryFor(key: string, base: ExtensionSettings | undefined): Record<string, unknown> {
  const existing = base?.[key];
  const star = base?.['*'];
  const ownHosts = existing !== undefined && ('runtime_allowed_hosts' in existing || 'runtime_blocked_hosts' in existing);
  const from = key === '*' || ownHosts ? existing : star;
  const entry: Record<string, unknown> = { ...existing, runtime_allowed_hosts: union(hosts(from, 'runtime_allowed_hosts'), [PERPLEXITY_HOSTS]) };
  const blocked = hosts(from, 'runtime_blocked_hosts');
  if (blocked.length > 0) entry.runtime_blocked_hosts = blocked;
  return entry;
}

/** Writes (or, dry, shows) the policy that lets comet-relay's extension run on perplexity.ai. */
export async function unblock(options: UnblockOptions): Promise<UnblockReport> {
  const sys = resolveSystem(options);
  const label = BROWSER_DATA[options.browser].label;
  const key = options.allExtensions ? '*' : EXTENSION_ID;
  const place = await placeFor(options, sys);
  const { current, base, notes } = await place.read();
  const record = readRecord(sys, options.stateDir, options.browser);
  const lines: string[] = [];

  const existing = base?.[EXTENSION_ID];
  if (!options.allExtensions && existing && blocksPerplexity(hosts(existing, 'runtime_blocked_hosts')) && !hosts(existing, 'runtime_allowed_hosts').includes(PERPLEXITY_HOSTS)) {
    throw new Error(
      `${label}'s policy blocks comet-relay's extension (${EXTENSION_ID}) by its own ID at ${place.where}: an administrator chose that, so comet-relay will not override it. Ask them to allow ${PERPLEXITY_HOSTS} for that ID.`,
    );
  }

  // Entries someone added to our own place since we wrote it (Linux: our file) stay; the rest comes from what is in force.
  const theirs: ExtensionSettings = {};
  if (current && record) {
    for (const [id, entry] of Object.entries(current)) {
      if (id !== key && !(base && id in base) && !isDeepStrictEqual(record.after[id], entry)) theirs[id] = entry;
    }
  }
  const next: ExtensionSettings = { ...base, ...theirs, [key]: entryFor(key, base) };

  lines.push(`${label}: ExtensionSettings at ${place.where}`);
  for (const note of notes) lines.push(`  note: ${note}`);
  if (options.allExtensions) {
    lines.push(
      `  --all-extensions: this lets EVERY extension in ${label} read and change perplexity.ai pages (your Perplexity account, threads and files), not only comet-relay's. ${options.browser === 'comet' ? 'Comet blocks them there on purpose. ' : ''}Prefer the default, which allows comet-relay's extension (${EXTENSION_ID}) alone.`,
    );
  }
  if (isDeepStrictEqual(next, current)) {
    lines.push(`  already in place: ${key === '*' ? 'every extension' : `comet-relay's extension (${EXTENSION_ID})`} may run on ${PERPLEXITY_HOSTS}. Nothing written.`);
    return { ok: true, changed: false, where: place.where, lines };
  }
  const change = place.describe(next).map((line) => `  ${line}`);
  lines.push(...change);
  if (options.dryRun) {
    lines.push('  --dry-run: nothing was written. Run again without --dry-run to write it.');
    return { ok: true, changed: true, where: place.where, lines };
  }
  if (options.confirm && !(await options.confirm(`${lines.join('\n')}\nWrite this? [y/N] `))) {
    return { ok: false, changed: false, where: place.where, lines: [...lines, '  Nothing written (not confirmed).'] };
  }
  try {
    await place.apply(next);
  } catch (error) {
    throw privilegeError(error, options, place);
  }
  // Keep the earliest "before": a second unblock must not make our own first write look like someone else's value.
  const saved: UnblockRecord = {
    version: 1,
    browser: options.browser,
    where: place.where,
    key,
    before: record && record.where === place.where ? record.before : current,
    after: next,
    ...(options.browser === 'comet' ? { cometSwitch: true } : {}),
    writtenAt: new Date().toISOString(),
  };
  const recordFile = unblockRecordPath(sys, options.stateDir, options.browser);
  // Readable by all (it holds only policy values): a record written under sudo into the person's home must
  // still be readable by their own `uninstall`, which then names the sudo command for the write it cannot do.
  sys.fs.mkdirSync(sys.path.dirname(recordFile), { recursive: true, mode: 0o755 });
  sys.fs.writeFileSync(recordFile, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o644 });
  lines.push(`  written; what was written is recorded in ${recordFile} so \`${cliCommand(`unblock --undo --browser ${options.browser}`)}\` takes back exactly that.`);
  lines.push(`Restart ${label} (quit it fully, then start it) for the policy to apply; chrome://policy${options.browser === 'comet' ? ' (in Comet: comet://policy)' : ''} shows it in force.`);
  if (options.browser === 'comet') lines.push(cometSwitchNote());
  return { ok: true, changed: true, where: place.where, lines };
}

/** Takes back exactly what unblock wrote for `browser`; what someone changed since stays theirs. */
export async function undoUnblock(options: UnblockOptions): Promise<UnblockReport> {
  const sys = resolveSystem(options);
  const label = BROWSER_DATA[options.browser].label;
  const record = readRecord(sys, options.stateDir, options.browser);
  const recordFile = unblockRecordPath(sys, options.stateDir, options.browser);
  if (!record) {
    return { ok: true, changed: false, lines: [`${label}: no record of an unblock in ${recordFile}; nothing to take back.`] };
  }
  const place = await placeFor(options, sys);
  if (place.where !== record.where) {
    return {
      ok: false,
      changed: false,
      lines: [`${label}: unblock wrote at ${record.where}, but now it would write at ${place.where} (the policy moved, e.g. HKLM gained a value); check ${record.where} by hand. The record stays in ${recordFile}.`],
    };
  }
  const { current } = await place.read();
  const lines = [`${label}: ExtensionSettings at ${place.where}`];
  let next: ExtensionSettings | undefined;
  if (isDeepStrictEqual(current, record.after)) {
    next = record.before;
  } else if (current && isDeepStrictEqual(current[record.key], record.after[record.key])) {
    // Changed since, but our entry is as we wrote it: only it goes back; the rest is theirs now.
    next = { ...current };
    const before = record.before?.[record.key];
    if (before === undefined) delete next[record.key];
    else next[record.key] = before;
    if (Object.keys(next).length === 0) next = undefined;
    lines.push('  changed since unblock wrote it: only comet-relay\'s entry is taken back, the rest is kept.');
  } else {
    lines.push(
      current?.[record.key] === undefined
        ? '  comet-relay\'s entry is not there any more: nothing to take back.'
        : `  the entry for ${record.key} was changed since unblock wrote it: kept as it is (remove it by hand if you want it gone).`,
    );
    sys.fs.rmSync(recordFile, { force: true });
    return { ok: true, changed: false, where: place.where, lines };
  }
  if (isDeepStrictEqual(next, current)) {
    sys.fs.rmSync(recordFile, { force: true });
    return { ok: true, changed: false, where: place.where, lines: [...lines, '  nothing to change.'] };
  }
  lines.push(...place.describe(next).map((line) => `  ${line}`));
  if (options.dryRun) return { ok: true, changed: true, where: place.where, lines: [...lines, '  --dry-run: nothing was changed.'] };
  if (options.confirm && !(await options.confirm(`${lines.join('\n')}\nTake it back? [y/N] `))) {
    return { ok: false, changed: false, where: place.where, lines: [...lines, '  Nothing changed (not confirmed).'] };
  }
  try {
    await place.apply(next);
  } catch (error) {
    throw privilegeError(error, options, place);
  }
  sys.fs.rmSync(recordFile, { force: true });
  removeEmptyDir(sys, sys.path.dirname(recordFile));
  lines.push(`  taken back. Restart ${label} for it to apply.`);
  return { ok: true, changed: true, where: place.where, lines };
}

/** The browsers that have a record of an unblock in `stateDir` (uninstall takes them back). */
export function unblockedBrowsers(sys: ResolvedSystem, stateDir: string, browsers: readonly Browser[]): Browser[] {
  return browsers.filter((browser) => sys.fs.existsSync(unblockRecordPath(sys, stateDir, browser)));
}

function privilegeError(error: unknown, options: UnblockOptions, place: PolicyPlace): Error {
  if (!(error instanceof NeedsPrivilege)) return new Error(`Could not write ${place.where}: ${errorMessage(error)}`);
  const command = options.privilegedCommand?.(error.needs);
  const how = error.needs === 'root' ? 'with sudo' : 'from an elevated prompt (right-click the terminal, "Run as administrator")';
  return new Error(`Could not write ${place.where}: ${error.message}. Run it ${how}${command ? `: ${command}` : ''}`);
}

function removeEmptyDir(sys: ResolvedSystem, dir: string): void {
  try {
    if (sys.fs.readdirSync(dir).length === 0) sys.fs.rmdirSync(dir);
  } catch {
    // not there or not empty
  }
}

// ---------------------------------------------------------------- Comet's Local State switch

function cometSwitchNote(): string {
  return `Comet: if its own block still stops the extension after the restart, comet-relay also sets Comet's "${COMET_FACTS.ntpSwitch.value}" switch (in its ${COMET_FACTS.localStateFile.value} file, which Comet resets at each start) whenever comet-relay itself starts Comet for comet_connect, only while Comet is not running, keeping a backup beside it. \`unblock --undo --browser comet\` stops that too.`;
}

export interface CometSwitchResult {
  /** `set`: flipped to true (backup written); `already`: true already; `running`, `absent`, `off`: left alone, with why. */
  outcome: 'set' | 'already' | 'running' | 'absent' | 'off';
  message: string;
}

/**
 * Before comet-relay starts Comet itself (comet_connect with no browser connected): when the person
 * ran `unblock --browser comet`, and no Comet runs on the profile, sets the Local State switch that
 * lets extensions script Comet's Perplexity pages for the next run, with a backup of the file. Only
 * an existing `false` is flipped: where Comet keeps the key is shown only by Comet writing it.
 */
export function prepareCometStart(options: SystemOptions & { stateDir: string }): CometSwitchResult {
  const sys = resolveSystem(options);
  if (!sys.fs.existsSync(unblockRecordPath(sys, options.stateDir, 'comet'))) {
    return { outcome: 'off', message: `Comet's Local State switch is left alone (\`${cliCommand('unblock --browser comet')}\` was not run).` };
  }
  const name = COMET_FACTS.ntpSwitch.value;
  for (const segments of COMET_FACTS.userData.value[sys.platform]) {
    const dir = expandPath(segments, sys);
    const file = sys.path.join(dir, COMET_FACTS.localStateFile.value);
    if (!sys.fs.existsSync(file)) continue;
    if (lockPresent(sys, sys.path.join(dir, PROFILE_LOCKS.value[sys.platform]))) {
      return { outcome: 'running', message: `Comet seems to be running on ${dir} (its ${PROFILE_LOCKS.value[sys.platform]} is there): its ${name} switch was left alone, since Comet rewrites the file while it runs.` };
    }
    const text = sys.fs.readFileSync(file, 'utf8');
    let state: unknown;
    try {
      state = JSON.parse(text);
    } catch (error) {
      return { outcome: 'absent', message: `${file} is not JSON (${errorMessage(error)}); left alone.` };
    }
    const found = setSwitch(state, name);
    if (found === 'absent') return { outcome: 'absent', message: `${file} holds no "${name}" switch; left alone (facts checked ${FACTS_CHECKED}).` };
    if (found === 'already') return { outcome: 'already', message: `Comet's "${name}" switch is already on in ${file}.` };
    const backup = `${file}.comet-relay-backup`;
    sys.fs.writeFileSync(backup, text, { mode: 0o600 });
    sys.fs.writeFileSync(file, JSON.stringify(state));
    return { outcome: 'set', message: `Set Comet's "${name}" switch to true in ${file} before starting Comet (backup: ${backup}); Comet resets it at each start.` };
  }
  return { outcome: 'absent', message: `No Comet ${COMET_FACTS.localStateFile.value} file was found; its switch was left alone.` };
}

/** Sets every `name: false` in the tree to true; says whether there was one. */
function setSwitch(node: unknown, name: string): 'set' | 'already' | 'absent' {
  let result: 'set' | 'already' | 'absent' = 'absent';
  const visit = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    for (const [k, v] of Object.entries(value)) {
      if (k === name && typeof v === 'boolean') {
        if (v === false) {
          (value as Record<string, unknown>)[k] = true;
          result = 'set';
        } else if (result === 'absent') result = 'already';
      } else visit(v);
    }
  };
  visit(node);
  return result;
}

function lockPresent(sys: ResolvedSystem, file: string): boolean {
  // SingletonLock is a symlink to "host-pid", which exists as no file: existsSync would say false, so the folder is listed.
  try {
    return sys.fs.readdirSync(sys.path.dirname(file)).includes(sys.path.basename(file));
  } catch {
    return false;
  }
}
