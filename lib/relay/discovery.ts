import fs from 'node:fs';
import path from 'node:path';
import { hostRecordPath, hostsDir, profilesDir } from './paths';
import { ensurePrivateDir, ownedByUs } from './private-dir';

/**
 * One JSON file per running host (one per browser profile), so any number of clients can find
 * every profile without a fixed port. Records of hosts that died are ignored and removed.
 * Checked by hand, not with zod: the host writes and removes these and loads no zod.
 */
export interface HostRecord {
  profileId: string;
  profileLabel: string;
  browser: { name: string; version: string };
  extensionVersion: string;
  hostVersion: string;
  socketPath: string;
  pid: number;
  startedAt: string;
  connectedAt: string;
  /** The hello's portOpenedAt: which of two hosts of one profile the browser opened last. */
  portOpenedAt?: number;
  /** The host's key: a client takes its welcome only with a proof made with it (lib/relay/host-proof.ts). */
  key?: string;
  /** The file the host's code runs from, and its mtime when the host started (`codeStamp`). */
  code?: CodeStamp;
}

/**
 * Where a process's code came from: a rebuild or reinstall in place keeps the version (a clone's never changes) but
 * writes the file anew, so a host whose file changed since it started runs old code (doctor says so).
 */
export interface CodeStamp {
  file: string;
  mtimeMs: number;
}

/** The stamp of `file` (by default the bundle this code runs from), or undefined when it cannot be read. */
export function codeStamp(file: string | undefined = typeof __filename === 'string' ? __filename : undefined): CodeStamp | undefined {
  if (!file) return undefined;
  try {
    return { file, mtimeMs: fs.statSync(file).mtimeMs };
  } catch {
    return undefined;
  }
}

const TEXT_FIELDS = ['profileId', 'profileLabel', 'extensionVersion', 'hostVersion', 'socketPath', 'startedAt', 'connectedAt'] as const;

/** The record with only its known fields, or undefined when a field is missing or of the wrong type. */
export function asHostRecord(value: unknown): HostRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const browser = v.browser as Record<string, unknown> | null | undefined;
  if (typeof browser !== 'object' || browser === null || Array.isArray(browser)) return undefined;
  if (typeof browser.name !== 'string' || typeof browser.version !== 'string') return undefined;
  if (!Number.isSafeInteger(v.pid)) return undefined;
  for (const field of TEXT_FIELDS) if (typeof v[field] !== 'string') return undefined;
  return {
    profileId: v.profileId as string,
    profileLabel: v.profileLabel as string,
    browser: { name: browser.name, version: browser.version },
    extensionVersion: v.extensionVersion as string,
    hostVersion: v.hostVersion as string,
    socketPath: v.socketPath as string,
    pid: v.pid as number,
    startedAt: v.startedAt as string,
    connectedAt: v.connectedAt as string,
    ...(Number.isFinite(v.portOpenedAt) ? { portOpenedAt: v.portOpenedAt as number } : {}),
    ...(typeof v.key === 'string' ? { key: v.key } : {}),
    ...(isCodeStamp(v.code) ? { code: { file: v.code.file, mtimeMs: v.code.mtimeMs } } : {}),
  };
}

function isCodeStamp(value: unknown): value is CodeStamp {
  const v = value as Partial<CodeStamp> | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.file === 'string' && Number.isFinite(v.mtimeMs);
}

/** A record as it may be shown (`status --json`): its key stays in the user's folder. */
export function shownRecord({ key: _key, ...shown }: HostRecord): Omit<HostRecord, 'key'> {
  return shown;
}

export function writeHostRecord(home: string, record: HostRecord): void {
  ensurePrivateDir(hostsDir(home));
  const file = hostRecordPath(home, record.profileId);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
  rememberProfile(home, record);
}

/** A profile a host has served: known by name after its browser closed, so a name meant for it reaches no other. */
export interface KnownProfile {
  profileId: string;
  profileLabel: string;
}

const PROFILE_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** Keeps the profile's id and current label (a rename overwrites it). Best effort: discovery works without it. */
function rememberProfile(home: string, { profileId, profileLabel }: KnownProfile): void {
  if (!PROFILE_ID.test(profileId)) return;
  try {
    ensurePrivateDir(profilesDir(home));
    const file = path.join(profilesDir(home), `${profileId}.json`);
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify({ profileId, profileLabel })}\n`, { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    // an unwritable folder: the profile is simply not remembered
  }
}

/** Every profile a host of this state folder has served, running or not. */
export function knownProfiles(home: string): KnownProfile[] {
  let names: string[];
  try {
    names = fs.readdirSync(profilesDir(home));
  } catch {
    return [];
  }
  const known: KnownProfile[] = [];
  for (const name of names) {
    const file = path.join(profilesDir(home), name);
    if (!name.endsWith('.json') || !ownedByUs(file)) continue;
    try {
      const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<KnownProfile> | null;
      if (typeof value?.profileId === 'string' && typeof value.profileLabel === 'string' && PROFILE_ID.test(value.profileId)) {
        known.push({ profileId: value.profileId, profileLabel: value.profileLabel });
      }
    } catch {
      // unreadable: not known
    }
  }
  return known;
}

/**
 * Removes the record only if it is still the one `owner` wrote (same pid, same port): a newer host
 * for the same profile may own it now. False when the record is there and could not be taken away
 * (a folder this user cannot change), so a caller can say so instead of trusting it gone.
 */
export function removeHostRecord(home: string, profileId: string, owner: Pick<HostRecord, 'pid' | 'portOpenedAt'> = { pid: process.pid }): boolean {
  return removeIfStill(hostRecordPath(home, profileId), (current) => !current || (current.pid === owner.pid && current.portOpenedAt === owner.portOpenedAt));
}

/**
 * Deletes a record file if what it holds at the moment of deletion is `unwanted`. A record read,
 * judged, then deleted by path would take with it a record that a new host of the same profile
 * renamed into place in between: that host then runs unseen by every client, though its browser
 * shows it connected. So the file is first taken aside by rename (atomic), judged there, and a
 * record that turns out wanted goes back with link(), which never overwrites a newer one.
 */
function removeIfStill(file: string, unwanted: (record: HostRecord | undefined) => boolean): boolean {
  const aside = `${file}.${process.pid}.gone`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'; // gone already; else it stays (EACCES, EROFS, EPERM)
  }
  try {
    if (unwanted(readRecord(aside))) return true;
    fs.linkSync(aside, file);
  } catch {
    // EEXIST: a newer record landed meanwhile, and it wins
  } finally {
    fs.rmSync(aside, { force: true });
  }
  return true; // what is there now is not the unwanted record
}

/** The record of one profile's host as it is on disk now (alive or not). */
export function readHostRecord(home: string, profileId: string): HostRecord | undefined {
  return readRecord(hostRecordPath(home, profileId));
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Live hosts, most recently connected first. Stale records are deleted on the way. */
export function listHosts(home: string, alive: (pid: number) => boolean = isProcessAlive): HostRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(hostsDir(home));
  } catch {
    return [];
  }
  const hosts: HostRecord[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = `${hostsDir(home)}/${name}`;
    if (!ownedByUs(file)) continue; // not ours to trust, nor to delete
    const record = readRecord(file);
    if (record && alive(record.pid)) hosts.push(record);
    // Only a record of ours whose host is gone: a file there that is no record (another program's, in a --home shared
    // with it) is left alone, as `uninstall --purge` leaves it (review 11g, G7).
    else if (record) removeIfStill(file, (current) => current !== undefined && !alive(current.pid));
  }
  return hosts.sort((a, b) => b.connectedAt.localeCompare(a.connectedAt));
}

/**
 * The host a client should talk to: the most recently connected one when no profile is named; else the profile
 * whose id or label is exactly the name (labels case-insensitive). A profile of exactly that name that is known but
 * not running is waited for, never stood in for (review of 2026-12-04, #4: "Work" closed reached "Workshop", another
 * account). Only when no profile, running or not, has that name does a unique beginning of a connected profile's
 * label pick it, and the pick says so (`byPrefix`); a name that begins several picks none (review of 2026-12-02, #12).
 */
export type HostPick =
  | { host: HostRecord; byPrefix?: boolean; ambiguous?: undefined; notRunning?: undefined }
  | { host?: undefined; ambiguous: HostRecord[]; notRunning?: KnownProfile };

export function pickHost(hosts: HostRecord[], profile?: string, known: readonly KnownProfile[] = []): HostPick {
  const [newest] = hosts;
  if (!profile) return newest ? { host: newest } : { ambiguous: [] };
  const wanted = profile.toLowerCase();
  const exact = hosts.find((h) => h.profileId === profile) ?? hosts.find((h) => h.profileLabel.toLowerCase() === wanted);
  if (exact) return { host: exact };
  const absent = known.find((k) => k.profileId === profile) ?? known.find((k) => k.profileLabel.toLowerCase() === wanted);
  if (absent) return { ambiguous: [], notRunning: absent };
  const prefixed = hosts.filter((h) => h.profileLabel.toLowerCase().startsWith(wanted));
  const [only] = prefixed;
  return only && prefixed.length === 1 ? { host: only, byPrefix: true } : { ambiguous: prefixed };
}

/** How profiles are listed in a message: `"Work" (a1b2c3d4e), "Personal" (…)`. */
export function describeProfiles(hosts: HostRecord[]): string {
  return hosts.map((h) => `"${h.profileLabel}" (${h.profileId})`).join(', ');
}

function readRecord(file: string): HostRecord | undefined {
  try {
    return asHostRecord(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}
