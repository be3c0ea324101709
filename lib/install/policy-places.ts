import type { Browser } from './browsers';
import { MAC_MANAGED_PREFERENCES, POLICY_PLACES } from './comet-facts';
import { cliCommand } from '../relay/invocation';
import { parseChromiumJson } from './policy/chromium-json';
import { isOwnedTempName, makeDirs, writeOwnedFile } from './policy/owned-write';
import { type ExportFiles, exportedValue } from './policy/reg-export';
import { errorMessage, type ExecFn, type ResolvedSystem } from './system';

/**
 * The one place on this machine where `unblock` writes a browser's `ExtensionSettings` policy, and
 * how to read and write it there: a file in Linux's managed policy folder, a registry value on
 * Windows, the managed preferences plist on macOS. Each place reads two things: the value now at
 * our place (what undo compares with) and the value our write must carry so nobody else's entries
 * are lost (on Linux, the value in force from the other files, since Chromium takes a policy whole
 * from one file and never merges it across files).
 */

/** An `ExtensionSettings` policy value: extension id (or `*`) → that extension's settings. */
export type ExtensionSettings = Record<string, Record<string, unknown>>;

export const POLICY_NAME = 'ExtensionSettings';
/** Our file in a Linux managed folder: named to sort after the usual names, since the last file wins. */
export const LINUX_POLICY_FILE = 'zz-comet-relay.json';

export interface PlaceRead {
  /** The ExtensionSettings value at our place now (undefined: not set there). */
  current: ExtensionSettings | undefined;
  /** The value in force without our write, which ours must carry. */
  base: ExtensionSettings | undefined;
  /** Things the person should know (files Chromium skips, a later file that would hide ours). */
  notes: string[];
}

export interface PolicyPlace {
  browser: Browser;
  /** Human words for where it is written: a file path, or `HKLM\…` value ExtensionSettings. */
  where: string;
  /** Who may write there: `root` (sudo), `admin` (elevated prompt) or the person. */
  needs: 'root' | 'admin' | 'user';
  read(): Promise<PlaceRead>;
  /** The value at our place alone (what undo compares with), without reading what else is in force. */
  readCurrent(): Promise<ExtensionSettings | undefined>;
  /** Exactly what `apply(next)` does, line by line, for --dry-run and the question before writing. */
  describe(next: ExtensionSettings | undefined): string[];
  /** Writes `next` at the place, or removes our value when `next` is undefined. Throws with the OS's words. */
  apply(next: ExtensionSettings | undefined): Promise<void>;
}

/** Thrown when the write is refused by the OS (not root, not elevated): the caller names the command to run. */
export class NeedsPrivilege extends Error {
  constructor(
    readonly needs: 'root' | 'admin',
    message: string,
  ) {
    super(message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a read value is an ExtensionSettings dictionary; `what` names where it came from. */
export function asExtensionSettings(value: unknown, what: string): ExtensionSettings | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || !Object.values(value).every(isRecord)) {
    throw new Error(`${what} holds an ExtensionSettings that is not a dictionary of extension entries; comet-relay will not rewrite it. Fix or remove it by hand, then run unblock again.`);
  }
  return value as ExtensionSettings;
}

const permissionDenied = (error: unknown) => ['EACCES', 'EPERM', 'EROFS'].includes((error as NodeJS.ErrnoException)?.code ?? '');

// ---------------------------------------------------------------- Linux

/** Linux: `<managed folder>/zz-comet-relay.json`, carrying the value in force from the other files plus ours. */
export function linuxPlace(browser: Browser, sys: ResolvedSystem, folderOverride?: string): PolicyPlace {
  const folder = folderOverride ?? POLICY_PLACES[browser].linuxManaged.value;
  if (!folder) {
    throw new Error(
      `Where ${browser === 'comet' ? 'Comet' : browser} reads machine policy on Linux is not publicly known (${POLICY_PLACES[browser].linuxManaged.source}), so comet-relay cannot write it. If you know the folder, pass it with --policy-dir DIR.`,
    );
  }
  const p = sys.path;
  const file = p.join(folder, LINUX_POLICY_FILE);
  // Read as Chromium reads it (comments, trailing commas, a BOM). A top level that is not an object
  // Chromium truly skips ("Expected JSON dictionary"); a file that cannot be read or parsed even so
  // is `unreadable`: the browser may read what we cannot, so nothing of it may be assumed away.
  const readJson = (name: string): { data?: Record<string, unknown>; skipped?: string; unreadable?: string } => {
    let text: string;
    try {
      text = sys.fs.readFileSync(p.join(folder, name), 'utf8');
    } catch (error) {
      return { unreadable: errorMessage(error) };
    }
    let data: unknown;
    try {
      data = parseChromiumJson(text);
    } catch (error) {
      return { unreadable: errorMessage(error) };
    }
    return isRecord(data) ? { data } : { skipped: 'its top level is not a JSON object' };
  };
  const ownFile = (): Record<string, unknown> | undefined => {
    if (!sys.fs.existsSync(file)) return undefined;
    const own = readJson(LINUX_POLICY_FILE);
    if (!own.data) throw new Error(`${file} exists but cannot be read as a policy file (${own.unreadable ?? own.skipped}); remove it or fix it, then run unblock again.`);
    return own.data;
  };
  return {
    browser,
    where: file,
    needs: 'root',
    async read() {
      const notes: string[] = [];
      let names: string[] = [];
      try {
        // Our own file, and the temporary one it is written through (a crash may leave it), are not the administrator's.
        names = sys.fs.readdirSync(folder).filter((name) => name !== LINUX_POLICY_FILE && !isOwnedTempName(name) && !isDir(sys, p.join(folder, name)));
      } catch {
        // No folder yet: no policy in force.
      }
      // Chromium reads every file in the folder in name order and takes each policy from the last file that sets it.
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      let base: ExtensionSettings | undefined;
      for (const name of names) {
        const { data, skipped, unreadable } = readJson(name);
        if (unreadable !== undefined) {
          throw new Error(
            `${p.join(folder, name)} cannot be read as a policy file (${unreadable}), though the browser may read it: comet-relay will not write a policy that could drop an administrator's. Nothing was written. Fix that file (or ask whoever manages this machine), then run unblock again.`,
          );
        }
        if (!data) {
          notes.push(`${p.join(folder, name)} is skipped by the browser too (${skipped}).`);
          continue;
        }
        if (!(POLICY_NAME in data)) continue;
        if (name > LINUX_POLICY_FILE) {
          throw new Error(
            `${p.join(folder, name)} sets ExtensionSettings and sorts after ${LINUX_POLICY_FILE}, so the browser would take its value and never see comet-relay's. Add comet-relay's entry to that file by hand (comet-relay will not edit another's file), or rename it to sort before ${LINUX_POLICY_FILE}.`,
          );
        }
        base = asExtensionSettings(data[POLICY_NAME], p.join(folder, name));
      }
      const own = ownFile();
      return { current: asExtensionSettings(own?.[POLICY_NAME], file), base, notes };
    },
    async readCurrent() {
      return asExtensionSettings(ownFile()?.[POLICY_NAME], file);
    },
    describe(next) {
      const own = ownFile();
      const rest = { ...own };
      delete rest[POLICY_NAME];
      if (next === undefined) {
        return Object.keys(rest).length === 0 ? [`remove ${file}`] : [`write ${file} without ExtensionSettings (keeping its other policies):`, ...indent(JSON.stringify(rest, null, 2))];
      }
      return [`write ${file} (mode 644${sys.fs.existsSync(folder) ? '' : `; creating ${folder}`}):`, ...indent(linuxText(rest, next))];
    },
    async apply(next) {
      const own = ownFile();
      const rest = { ...own };
      delete rest[POLICY_NAME];
      try {
        if (next === undefined) {
          if (Object.keys(rest).length === 0) sys.fs.rmSync(file, { force: true });
          else writeOwnedFile(sys, file, `${JSON.stringify(rest, null, 2)}\n`, 0o644);
          return;
        }
        // Modes set after each mkdir and write: the browser runs as the person, and a umask (sudo keeps the person's) must not hide the policy from it.
        makeDirs(sys, folder, 0o755);
        writeOwnedFile(sys, file, linuxText(rest, next), 0o644);
      } catch (error) {
        if (permissionDenied(error)) throw new NeedsPrivilege('root', `${folder} is writable only by root (${errorMessage(error)})`);
        throw error;
      }
    },
  };
}

const linuxText = (rest: Record<string, unknown>, next: ExtensionSettings) => `${JSON.stringify({ ...rest, [POLICY_NAME]: next }, null, 2)}\n`;
const indent = (text: string) => text.trimEnd().split('\n').map((line) => `    ${line}`);

function isDir(sys: ResolvedSystem, file: string): boolean {
  try {
    return sys.fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- Windows

/** The `reg.exe` argument lists unblock runs, as data (tests compare them; --dry-run prints them). */
export const regPolicyArgs = {
  querySubkey: (key: string) => ['query', `${key}\\${POLICY_NAME}`],
  add: (key: string, json: string) => ['add', key, '/v', POLICY_NAME, '/t', 'REG_SZ', '/d', json, '/f'],
  remove: (key: string) => ['delete', key, '/v', POLICY_NAME, '/f'],
};

/** Reads the ExtensionSettings REG_SZ under `key` exactly (through `reg export`, never a code page); undefined when not there. */
const queryPolicyValue = (exec: ExecFn, key: string, files?: ExportFiles) => exportedValue(exec, key, POLICY_NAME, files);

/**
 * Windows: `Software\Policies\<vendor>\<browser>` value ExtensionSettings (JSON text). Under HKCU
 * when the browser honours it and HKLM sets no ExtensionSettings (HKLM's would win); else HKLM,
 * which needs an elevated prompt.
 */
export async function windowsPlace(browser: Browser, exec: ExecFn, recordedKey?: string, files?: ExportFiles): Promise<PolicyPlace> {
  const facts = POLICY_PLACES[browser];
  const machine = `HKLM\\${facts.windowsKey.value}`;
  const user = `HKCU\\${facts.windowsKey.value}`;
  let key: string;
  if (recordedKey !== undefined) {
    // Undo: exactly where the record says unblock wrote, whatever would be chosen today.
    key = recordedKey.toUpperCase().startsWith('HKCU') ? user : machine;
  } else {
    for (const k of [machine, user]) {
      if ((await exec('reg', regPolicyArgs.querySubkey(k))).code === 0) {
        throw new Error(`${k}\\ExtensionSettings is set as a registry key tree, not as one JSON value; comet-relay will not rewrite it. Add comet-relay's entry there by hand (see ${cliCommand('unblock --dry-run')}), then restart the browser.`);
      }
    }
    const machineValue = await queryPolicyValue(exec, machine, files);
    key = facts.windowsUserHive.value && machineValue === undefined ? user : machine;
  }
  const parse = (text: string | undefined) => {
    if (text === undefined) return undefined;
    try {
      return asExtensionSettings(JSON.parse(text), `${key} value ExtensionSettings`);
    } catch (error) {
      if (error instanceof SyntaxError) throw new Error(`${key} value ExtensionSettings is not valid JSON (${error.message}); the browser ignores it too. Fix or delete it (regedit), then run unblock again.`);
      throw error;
    }
  };
  return {
    browser,
    where: `${key} value ExtensionSettings`,
    needs: key === machine ? 'admin' : 'user',
    async read() {
      const value = parse(await queryPolicyValue(exec, key, files));
      return { current: value, base: value, notes: [] };
    },
    async readCurrent() {
      return parse(await queryPolicyValue(exec, key, files));
    },
    describe(next) {
      return [next === undefined ? `reg ${regPolicyArgs.remove(key).join(' ')}` : `reg ${regPolicyArgs.add(key, JSON.stringify(next)).map(quoteForDisplay).join(' ')}`];
    },
    async apply(next) {
      const args = next === undefined ? regPolicyArgs.remove(key) : regPolicyArgs.add(key, JSON.stringify(next));
      const result = await exec('reg', args);
      if (result.code === 0) return;
      const said = (result.stderr || result.stdout).trim() || `exit ${result.code}`;
      if (/access is denied/i.test(said)) throw new NeedsPrivilege('admin', `writing ${key} needs an administrator (reg said: ${said})`);
      throw new Error(`reg ${args[0]} ${key} failed: ${said}`);
    },
  };
}

function quoteForDisplay(arg: string): string {
  return /^[\w\\/.:*-]+$/.test(arg) ? arg : `"${arg.replace(/"/g, '\\"')}"`;
}

// ---------------------------------------------------------------- macOS

/**
 * macOS: `/Library/Managed Preferences/<bundle id>.plist`, key ExtensionSettings (a dictionary).
 * Read through `plutil` (the file may be binary); written as an XML plist keeping every other key.
 */
export function macPlace(browser: Browser, sys: ResolvedSystem, exec: ExecFn): PolicyPlace {
  const bundle = POLICY_PLACES[browser].macBundleId.value;
  const file = sys.path.join(MAC_MANAGED_PREFERENCES.value, `${bundle}.plist`);
  const readAll = async (): Promise<Record<string, unknown> | undefined> => {
    if (!sys.fs.existsSync(file)) return undefined;
    const result = await exec('plutil', ['-convert', 'json', '-o', '-', file]);
    if (result.code !== 0) {
      throw new Error(`${file} exists but plutil cannot turn it into JSON (${(result.stderr || result.stdout).trim()}); comet-relay will not rewrite a plist it cannot read whole. Add the entry by hand (sudo defaults write / PlistBuddy).`);
    }
    const data: unknown = JSON.parse(result.stdout);
    if (!isRecord(data)) throw new Error(`${file} is not a dictionary plist; comet-relay will not rewrite it.`);
    return data;
  };
  // The key keeps its place among the others: undo gives back the very file that was there.
  const withValue = (doc: Record<string, unknown> | undefined, next: ExtensionSettings | undefined) => {
    const out = { ...doc };
    if (next === undefined) delete out[POLICY_NAME];
    else out[POLICY_NAME] = next;
    return out;
  };
  const nextDocument = async (next: ExtensionSettings | undefined) => withValue(await readAll(), next);
  let last: Record<string, unknown> | undefined;
  return {
    browser,
    where: file,
    needs: 'root',
    async read() {
      last = await readAll();
      const value = asExtensionSettings(last?.[POLICY_NAME], file);
      return { current: value, base: value, notes: [] };
    },
    async readCurrent() {
      return (await this.read()).current;
    },
    describe(next) {
      const doc = withValue(last, next);
      if (Object.keys(doc).length === 0) return [`remove ${file} (as root)`];
      return [`write ${file} (owner root:wheel, mode 644), as root:`, ...indent(plistXml(doc))];
    },
    async apply(next) {
      const doc = await nextDocument(next);
      try {
        if (Object.keys(doc).length === 0) {
          sys.fs.rmSync(file, { force: true });
          return;
        }
        makeDirs(sys, MAC_MANAGED_PREFERENCES.value, 0o755);
        writeOwnedFile(sys, file, plistXml(doc), 0o644);
      } catch (error) {
        if (permissionDenied(error)) throw new NeedsPrivilege('root', `${MAC_MANAGED_PREFERENCES.value} is writable only by root (${errorMessage(error)})`);
        throw error;
      }
    },
  };
}

/** An XML property list of a JSON-shaped value (what plutil gave us, plus our entry). */
export function plistXml(value: Record<string, unknown>): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const node = (v: unknown, pad: string): string => {
    if (typeof v === 'string') return `${pad}<string>${esc(v)}</string>`;
    if (typeof v === 'boolean') return `${pad}<${v}/>`;
    if (typeof v === 'number') return Number.isInteger(v) ? `${pad}<integer>${v}</integer>` : `${pad}<real>${v}</real>`;
    if (Array.isArray(v)) return v.length === 0 ? `${pad}<array/>` : [`${pad}<array>`, ...v.map((x) => node(x, `${pad}\t`)), `${pad}</array>`].join('\n');
    if (isRecord(v)) {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined && x !== null);
      if (entries.length === 0) return `${pad}<dict/>`;
      return [`${pad}<dict>`, ...entries.flatMap(([k, x]) => [`${pad}\t<key>${esc(k)}</key>`, node(x, `${pad}\t`)]), `${pad}</dict>`].join('\n');
    }
    throw new Error(`cannot write ${String(v)} in a plist`);
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n${node(value, '')}\n</plist>\n`;
}
