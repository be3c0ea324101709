import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { EXTENSION_ID } from '../protocol/identity';
import { BROWSER_DATA, type Browser, expandPath } from './browsers';
import { COMET_FACTS, FACTS_CHECKED, POLICY_PLACES, PROFILE_LOCKS } from './comet-facts';
import { type ExtensionSettings, linuxPlace, macPlace, NeedsPrivilege, type PolicyPlace, windowsPlace } from './policy-places';
import { cliCommand } from '../relay/invocation';
import { privilegedUnblockCommand } from './policy/privileged-command';
import { isLink, makeDirs, ownerFor, processUid, writeOwnedFile } from './policy/owned-write';
import { defaultCliPath, errorMessage, type ExecFn, realExec, type ResolvedSystem, resolveSystem, type SystemOptions } from './system';

/**
 * `comet-relay unblock`: lets comet-relay's extension — and, unless asked, no other — run on
 * perplexity.ai where a browser's ExtensionSettings policy blocks extensions there (Comet as it
 * ships; a company's Chrome). It adds one entry, for our pinned ID, to the policy already in force
 * and records what it wrote, so `--undo` (and `uninstall`) take back exactly that and nothing else.
 */

export const PERPLEXITY_HOSTS = '*://*.perplexity.ai';
/** The suffix of the copy prepareCometStart keeps of Comet's Local State (undo removes it). */
const LOCAL_STATE_BACKUP = '.comet-relay-backup';

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
  /** The uid this runs as (default the process's): root writes the record as the person whose folder it is. */
  uid?: number;
}

export interface UnblockReport {
  ok: boolean;
  /** True when something was written (or, with --dry-run, would be). */
  changed: boolean;
  /** Where the policy is (file, or registry key and value), once known. */
  where?: string;
  lines: string[];
}

const Settings = z.record(z.string(), z.record(z.string(), z.unknown()));

/** What unblock wrote at one place: enough to take back exactly that. */
const PlaceRecordSchema = z.object({
  where: z.string(),
  /** `EXTENSION_ID`, or `*` with --all-extensions. */
  key: z.string(),
  /** The ExtensionSettings value at the place before, and the one written. */
  before: Settings.optional(),
  after: Settings,
  /** Linux: the administrator's value in force from the other files when it was copied (doctor compares). */
  base: Settings.optional(),
  /** Saved before the policy is written, cleared once it is: undo handles a write that may or may not have happened. */
  pending: z.boolean().optional(),
  writtenAt: z.string(),
});
type PlaceRecord = z.infer<typeof PlaceRecordSchema>;

/** Every place unblock wrote for one browser (a second place never replaces the first). */
const RecordSchema = z.object({
  version: z.literal(2),
  browser: z.string(),
  places: z.array(PlaceRecordSchema),
  /** Also flip Comet's Local State switch before comet-relay starts Comet (set for Comet only). */
  cometSwitch: z.boolean().optional(),
});
type UnblockRecord = z.infer<typeof RecordSchema>;

/** The first record's form (one place): read as a record of that one place. */
const RecordV1Schema = PlaceRecordSchema.omit({ base: true, pending: true }).extend({ version: z.literal(1), browser: z.string(), cometSwitch: z.boolean().optional() });

export const unblockRecordPath = (sys: ResolvedSystem, stateDir: string, browser: Browser) => sys.path.join(stateDir, 'unblock', `${browser}.json`);

function readRecord(sys: ResolvedSystem, stateDir: string, browser: Browser): UnblockRecord | undefined {
  const file = unblockRecordPath(sys, stateDir, browser);
  // A link there (dangling or not) is reported, never read or written through.
  if (isLink(sys, file)) throw new Error(`${file} is a link; comet-relay writes nothing through it. Remove it, then run the command again.`);
  if (!sys.fs.existsSync(file)) return undefined;
  try {
    const data: unknown = JSON.parse(sys.fs.readFileSync(file, 'utf8'));
    const v1 = RecordV1Schema.safeParse(data);
    if (v1.success) {
      const { version: _v, browser: b, cometSwitch, ...place } = v1.data;
      return { version: 2, browser: b, places: [place], ...(cometSwitch ? { cometSwitch } : {}) };
    }
    return RecordSchema.parse(data);
  } catch (error) {
    throw new Error(`The record of what unblock wrote (${file}) cannot be read (${errorMessage(error)}); remove it, and check ${browser}'s policy by hand.`);
  }
}

/**
 * Saves (or, with no place left, removes) the record. Readable by all (it holds only policy values):
 * a record written under sudo into the person's home must still be readable by their own
 * `uninstall`; and given to that person, with every folder root creates for it.
 */
function saveRecord(sys: ResolvedSystem, options: UnblockOptions, record: UnblockRecord | undefined): void {
  const file = unblockRecordPath(sys, options.stateDir, options.browser);
  if (!record || record.places.length === 0) {
    sys.fs.rmSync(file, { force: true });
    removeEmptyDir(sys, sys.path.dirname(file));
    return;
  }
  const uid = options.uid ?? processUid();
  const owner = ownerFor(sys, options.stateDir, uid);
  const checkFrom = uid === 0 ? existingAncestor(sys, options.stateDir) : undefined;
  // The state folder as install makes it (private); its unblock/ folder readable, like the record.
  makeDirs(sys, options.stateDir, 0o700, owner, checkFrom);
  makeDirs(sys, sys.path.dirname(file), 0o755, owner, checkFrom);
  writeOwnedFile(sys, file, `${JSON.stringify(record, null, 2)}\n`, 0o644, owner);
}

/** The nearest folder of `dir` that exists: the state folder's chain is checked from there down. */
function existingAncestor(sys: ResolvedSystem, dir: string): string {
  let at = dir;
  while (!sys.fs.existsSync(at) && sys.path.dirname(at) !== at) at = sys.path.dirname(at);
  return at;
}

function placeFor(options: UnblockOptions, sys: ResolvedSystem): Promise<PolicyPlace> | PolicyPlace {
  const exec = options.exec ?? realExec;
  if (sys.platform === 'win32') return windowsPlace(options.browser, exec);
  if (sys.platform === 'darwin') return macPlace(options.browser, sys, exec);
  return linuxPlace(options.browser, sys, options.policyDir);
}

/** The place a record names, whatever unblock would choose today (another --policy-dir, HKLM gaining a value). */
function placeAt(options: UnblockOptions, sys: ResolvedSystem, where: string): Promise<PolicyPlace> | PolicyPlace {
  const exec = options.exec ?? realExec;
  if (sys.platform === 'win32') return windowsPlace(options.browser, exec, where);
  if (sys.platform === 'darwin') return macPlace(options.browser, sys, exec);
  return linuxPlace(options.browser, sys, sys.path.dirname(where));
}

const hosts = (entry: Record<string, unknown> | undefined, field: string): string[] => {
  const value = entry?.[field];
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
};
const union = (...lists: string[][]) => [...new Set(lists.flat())];
/**
 * Whether one of `list`'s host patterns (`<scheme>://<host>[:port][/path]`, as runtime_blocked_hosts
 * takes them) covers https://www.perplexity.ai: a scheme of `*`, http or https, and a host that is
 * `*`, a `*.` suffix of www.perplexity.ai (`*.ai` included) or one of its names.
 */
export function blocksPerplexity(list: string[]): boolean {
  const names = ['www.perplexity.ai', 'perplexity.ai'];
  return list.some((raw) => {
    const pattern = raw.trim().toLowerCase();
    if (pattern === '*' || pattern === '<all_urls>') return true;
    const match = /^(\*|https?):\/\/([^/:]*)/.exec(pattern);
    if (!match) return /perplexity\.ai/.test(pattern);
    const host = match[2] as string;
    if (host === '*') return true;
    if (host.startsWith('*.')) return names.some((name) => name.endsWith(host.slice(1)) || name === host.slice(2));
    return names.includes(host);
  });
}

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
  const prior = record?.places.find((entry) => entry.where === place.where);
  const lines: string[] = [];

  const existing = base?.[EXTENSION_ID];
  if (!options.allExtensions && existing && blocksPerplexity(hosts(existing, 'runtime_blocked_hosts')) && !hosts(existing, 'runtime_allowed_hosts').includes(PERPLEXITY_HOSTS)) {
    throw new Error(
      `${label}'s policy blocks comet-relay's extension (${EXTENSION_ID}) by its own ID at ${place.where}: an administrator chose that, so comet-relay will not override it. Ask them to allow ${PERPLEXITY_HOSTS} for that ID.`,
    );
  }

  // Entries someone added to our own place since we wrote it (Linux: our file) stay; the rest comes from what is in force.
  const theirs: ExtensionSettings = {};
  if (current && prior) {
    for (const [id, entry] of Object.entries(current)) {
      if (id !== key && !(base && id in base) && !isDeepStrictEqual(prior.after[id], entry)) theirs[id] = entry;
    }
  }
  const next: ExtensionSettings = { ...base, ...theirs, [key]: entryFor(key, base) };
  // Linux: our file carries a copy of the administrator's value, frozen until the next unblock.
  const copied = sys.platform === 'linux' && base !== undefined;

  lines.push(`${label}: ExtensionSettings at ${place.where}`);
  for (const note of notes) lines.push(`  note: ${note}`);
  if (prior?.base !== undefined && !isDeepStrictEqual(prior.base, base)) {
    lines.push("  note: the administrator's ExtensionSettings changed since unblock copied it; this write carries their change.");
  }
  if (options.allExtensions) {
    lines.push(
      `  --all-extensions: this lets EVERY extension in ${label} read and change perplexity.ai pages (your Perplexity account, threads and files), not only comet-relay's. ${options.browser === 'comet' ? 'Comet blocks them there on purpose. ' : ''}Prefer the default, which allows comet-relay's extension (${EXTENSION_ID}) alone.`,
    );
  }
  if (isDeepStrictEqual(next, current)) {
    lines.push(`  already in place: ${key === '*' ? 'every extension' : `comet-relay's extension (${EXTENSION_ID})`} may run on ${PERPLEXITY_HOSTS}. Nothing written.`);
    return { ok: true, changed: false, where: place.where, lines };
  }
  lines.push(...place.describe(next).map((line) => `  ${line}`));
  if (copied) lines.push(`  ${COPY_NOTE}`);
  if (options.dryRun) {
    lines.push('  --dry-run: nothing was written. Run again without --dry-run to write it.');
    return { ok: true, changed: true, where: place.where, lines };
  }
  if (options.confirm && !(await options.confirm(`${lines.join('\n')}\nWrite this? [y/N] `))) {
    return { ok: false, changed: false, where: place.where, lines: [...lines, '  Nothing written (not confirmed).'] };
  }
  // The record first, marked pending: no policy is ever in place without the record that takes it back.
  // Keep the earliest "before": a second unblock must not make our own first write look like someone else's value.
  const before = prior ? prior.before : current;
  const entry: PlaceRecord = {
    where: place.where,
    key,
    ...(before ? { before } : {}),
    after: next,
    ...(copied ? { base } : {}),
    pending: true,
    writtenAt: new Date().toISOString(),
  };
  const saved: UnblockRecord = {
    version: 2,
    browser: options.browser,
    places: [...(record?.places.filter((other) => other.where !== place.where) ?? []), entry],
    ...(options.browser === 'comet' ? { cometSwitch: true } : {}),
  };
  const recordFile = unblockRecordPath(sys, options.stateDir, options.browser);
  try {
    saveRecord(sys, options, saved);
  } catch (error) {
    throw new Error(
      `Nothing was written: the record of what unblock writes (${recordFile}) must be saved first, and could not be (${errorMessage(error)}). Fix that, or pass --home DIR for a folder this user may write, then run unblock again.`,
    );
  }
  try {
    await place.apply(next);
  } catch (error) {
    try {
      saveRecord(sys, options, record);
    } catch {
      // The pending entry stays: undo finds the policy as it was and forgets it.
    }
    throw privilegeError(error, options, place);
  }
  delete entry.pending;
  try {
    saveRecord(sys, options, saved);
  } catch (error) {
    throw new Error(
      `The policy was written at ${place.where}, but its record in ${recordFile} could not be completed (${errorMessage(error)}); it still names the write, so \`${cliCommand(`unblock --undo --browser ${options.browser}`)}\` takes it back.`,
    );
  }
  lines.push(`  written; what was written is recorded in ${recordFile} so \`${cliCommand(`unblock --undo --browser ${options.browser}`)}\` takes back exactly that.`);
  lines.push(`Restart ${label} (quit it fully, then start it) for the policy to apply; chrome://policy${options.browser === 'comet' ? ' (in Comet: comet://policy)' : ''} shows it in force.`);
  if (options.browser === 'comet') lines.push(cometSwitchNote());
  return { ok: true, changed: true, where: place.where, lines };
}

const COPY_NOTE =
  'This file carries a copy of the ExtensionSettings in force from the other files (it sorts last, and the browser takes the policy whole from one file): a later change to those files is not in force until unblock runs again (doctor says when).';

/** What undo does at one recorded place. */
interface UndoStep {
  entry: PlaceRecord;
  place: PolicyPlace;
  /** The value to write back; `keep` when nothing at the place changes (the record of it may still go). */
  next: ExtensionSettings | undefined | 'keep';
  lines: string[];
}

function planUndo(entry: PlaceRecord, place: PolicyPlace, current: ExtensionSettings | undefined): UndoStep {
  const lines = [`ExtensionSettings at ${place.where}`];
  let next: ExtensionSettings | undefined | 'keep';
  if (isDeepStrictEqual(current, entry.after)) {
    next = entry.before;
  } else if (current && isDeepStrictEqual(current[entry.key], entry.after[entry.key])) {
    // Changed since, but our entry is as we wrote it: only it goes back; the rest is theirs now.
    next = { ...current };
    const before = entry.before?.[entry.key];
    if (before === undefined) delete next[entry.key];
    else next[entry.key] = before;
    if (Object.keys(next).length === 0) next = undefined;
    lines.push("  changed since unblock wrote it: only comet-relay's entry is taken back, the rest is kept.");
  } else if (entry.pending && isDeepStrictEqual(current, entry.before)) {
    lines.push('  the write this record was saved for never happened: nothing to take back.');
    next = 'keep';
  } else {
    lines.push(
      current?.[entry.key] === undefined
        ? "  comet-relay's entry is not there any more: nothing to take back."
        : `  the entry for ${entry.key} was changed since unblock wrote it: kept as it is (remove it by hand if you want it gone).`,
    );
    next = 'keep';
  }
  if (next !== 'keep' && isDeepStrictEqual(next, current)) {
    lines.push('  nothing to change.');
    next = 'keep';
  }
  if (next !== 'keep') lines.push(...place.describe(next).map((line) => `  ${line}`));
  return { entry, place, next, lines };
}

/**
 * Takes back exactly what unblock wrote for `browser`, at every place its record names (wherever
 * that was written: another --policy-dir, HKCU before HKLM gained a value); what someone changed
 * since stays theirs. The record goes only with a real, confirmed undo.
 */
export async function undoUnblock(options: UnblockOptions): Promise<UnblockReport> {
  const sys = resolveSystem(options);
  const label = BROWSER_DATA[options.browser].label;
  const record = readRecord(sys, options.stateDir, options.browser);
  const recordFile = unblockRecordPath(sys, options.stateDir, options.browser);
  if (!record || record.places.length === 0) {
    const none = `${label}: no record of an unblock in ${recordFile}; nothing to take back.`;
    // "Nothing to take back" is said from the policy itself, not only from a missing record: a record kept in
    // another state folder (an earlier `sudo … unblock` kept it in root's) leaves our entry in force (review 2026-12-05 #5).
    const where = await ourEntryAt(options, sys);
    if (!where) return { ok: true, changed: false, lines: [none] };
    return {
      ok: false,
      changed: false,
      where,
      lines: [
        none,
        `  But ${where} still lets comet-relay's extension (${EXTENSION_ID}) run on ${PERPLEXITY_HOSTS}: an unblock whose record is in another state folder wrote it (an earlier \`sudo … unblock\` may have kept it in root's). Run the undo with that folder as --home to take back exactly what it wrote, or remove comet-relay's entry there by hand.`,
      ],
    };
  }
  const steps: UndoStep[] = [];
  for (const entry of record.places) {
    const place = await placeAt(options, sys, entry.where);
    steps.push(planUndo(entry, place, await place.readCurrent()));
  }
  const lines = [`${label}:`, ...steps.flatMap((step) => step.lines.map((line) => `  ${line}`))];
  const where = steps.map((step) => step.place.where).join(' and ');
  const writes = steps.filter((step) => step.next !== 'keep');
  if (options.dryRun) {
    return { ok: true, changed: writes.length > 0, where, lines: [...lines, `  --dry-run: nothing was changed; the record stays in ${recordFile}.`] };
  }
  const question = writes.length > 0 ? 'Take it back? [y/N] ' : `Forget the record of it (${recordFile})? [y/N] `;
  if (options.confirm && !(await options.confirm(`${lines.join('\n')}\n${question}`))) {
    return { ok: false, changed: false, where, lines: [...lines, `  Nothing changed (not confirmed); the record stays in ${recordFile}.`] };
  }
  const left = [...record.places];
  for (const step of steps) {
    if (step.next !== 'keep') {
      try {
        await step.place.apply(step.next);
      } catch (error) {
        // What was taken back leaves the record; the rest stays for the next undo (as it was, if even that fails).
        try {
          saveRecord(sys, options, { ...record, places: left });
        } catch {
          // the record still names every place; undo finds those already taken back as "not there any more"
        }
        throw privilegeError(error, options, step.place);
      }
    }
    left.splice(left.indexOf(step.entry), 1);
  }
  saveRecord(sys, options, undefined);
  if (options.browser === 'comet') {
    const backups = removeCometBackups(sys);
    lines.push(...backups.removed.map((file) => `  removed ${file} (comet-relay's copy of Comet's ${COMET_FACTS.localStateFile.value}).`), ...backups.problems.map((line) => `  ${line}`));
  }
  lines.push(writes.length > 0 ? `  taken back. Restart ${label} for it to apply.` : '  the record of it is removed.');
  return { ok: true, changed: writes.length > 0, where, lines };
}

/** Where unblock would write, when comet-relay's entry allowing perplexity.ai is there now; undefined when not, or when that cannot be read. */
async function ourEntryAt(options: UnblockOptions, sys: ResolvedSystem): Promise<string | undefined> {
  try {
    const place = await placeFor(options, sys);
    const current = await place.readCurrent();
    return hosts(current?.[EXTENSION_ID], 'runtime_allowed_hosts').includes(PERPLEXITY_HOSTS) ? place.where : undefined;
  } catch {
    return undefined; // the undo had nothing to go on anyway; the line above says so
  }
}

/** The browsers that have a record of an unblock in `stateDir` (uninstall takes them back). */
export function unblockedBrowsers(sys: ResolvedSystem, stateDir: string, browsers: readonly Browser[]): Browser[] {
  return browsers.filter((browser) => sys.fs.existsSync(unblockRecordPath(sys, stateDir, browser)));
}

function privilegeError(error: unknown, options: UnblockOptions, place: PolicyPlace): Error {
  if (!(error instanceof NeedsPrivilege)) return new Error(`Could not write ${place.where}: ${errorMessage(error)}`);
  const command = options.privilegedCommand?.(error.needs);
  const how = error.needs === 'root' ? 'with sudo' : 'from PowerShell run as administrator (right-click it, "Run as administrator")';
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
    const backup = `${file}${LOCAL_STATE_BACKUP}`;
    sys.fs.writeFileSync(backup, text, { mode: 0o600 });
    // Comet's own file (its profile list; on Windows its os_crypt key), written by a process MCP clients kill at will:
    // whole or not at all (a new file beside it renamed over it), with the mode it had (review 2026-12-05 #14).
    writeOwnedFile(sys, file, JSON.stringify(state), sys.fs.statSync(file).mode & 0o7777);
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

/**
 * Takes away the backups of Comet's Local State that prepareCometStart left (the name is ours
 * alone), once no unblock of Comet is recorded: undo, and uninstall even after an earlier undo.
 * Says each file removed, or why one could not be.
 */
export function removeCometBackups(sys: ResolvedSystem): { removed: string[]; problems: string[] } {
  const removed: string[] = [];
  const problems: string[] = [];
  for (const segments of COMET_FACTS.userData.value[sys.platform]) {
    const backup = `${sys.path.join(expandPath(segments, sys), COMET_FACTS.localStateFile.value)}${LOCAL_STATE_BACKUP}`;
    if (!sys.fs.existsSync(backup)) continue;
    try {
      sys.fs.rmSync(backup);
      removed.push(backup);
    } catch (error) {
      problems.push(`could not remove ${backup} (${errorMessage(error)}); it is comet-relay's copy of Comet's ${COMET_FACTS.localStateFile.value}, remove it by hand.`);
    }
  }
  return { removed, problems };
}

// ---------------------------------------------------------------- drift of the copied value (Linux)

export interface UnblockDrift {
  browser: Browser;
  where: string;
  /** What changed, and the command that carries it into our file. */
  detail: string;
  fix: string;
}

/**
 * Linux: where unblock's file carries a copy of the administrator's ExtensionSettings, whether
 * their files still say the same. A change (a block added since) is not in force until unblock
 * runs again; `doctor` reports each.
 */
export async function unblockDrift(options: SystemOptions & { stateDir: string; browsers: readonly Browser[]; nodePath?: string; cliPath?: string }): Promise<UnblockDrift[]> {
  const sys = resolveSystem(options);
  const found: UnblockDrift[] = [];
  // Only Linux's file carries a copy; elsewhere no record is read.
  if (sys.platform !== 'linux') return found;
  for (const browser of options.browsers) {
    let record: UnblockRecord | undefined;
    try {
      record = readRecord(sys, options.stateDir, browser);
    } catch {
      continue; // doctor's own check of the record says why
    }
    for (const entry of record?.places ?? []) {
      if (entry.base === undefined) continue;
      const dir = sys.path.dirname(entry.where);
      let base: ExtensionSettings | undefined;
      try {
        ({ base } = await linuxPlace(browser, sys, dir).read());
      } catch (error) {
        found.push({ browser, where: entry.where, detail: `cannot compare unblock's copy in ${entry.where} with the administrator's files: ${errorMessage(error)}`, fix: 'fix what it names, then run unblock again' });
        continue;
      }
      if (isDeepStrictEqual(base, entry.base)) continue;
      const command = privilegedUnblockCommand({
        platform: 'linux',
        needs: 'root',
        browser,
        ...(dir === POLICY_PLACES[browser].linuxManaged.value ? {} : { policyDir: dir }),
        stateDir: options.stateDir,
        nodePath: options.nodePath ?? process.execPath,
        cliPath: options.cliPath ?? defaultCliPath(),
        yes: false,
      });
      found.push({
        browser,
        where: entry.where,
        detail: `the administrator's ExtensionSettings in ${dir} changed since unblock copied it into ${entry.where}, which the browser reads instead: their change is not in force`,
        fix: `run: ${command} (it carries their change; --undo takes the unblock back instead)`,
      });
    }
  }
  return found;
}
