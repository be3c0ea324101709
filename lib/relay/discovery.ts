import fs from 'node:fs';
import { z } from 'zod';
import { hostRecordPath, hostsDir } from './paths';
import { ensurePrivateDir, ownedByUs } from './private-dir';

/**
 * One JSON file per running host (one per browser profile), so any number of clients can find
 * every profile without a fixed port. Records of hosts that died are ignored and removed.
 */
export const HostRecord = z.object({
  profileId: z.string(),
  profileLabel: z.string(),
  browser: z.object({ name: z.string(), version: z.string() }),
  extensionVersion: z.string(),
  hostVersion: z.string(),
  socketPath: z.string(),
  pid: z.number().int(),
  startedAt: z.string(),
  connectedAt: z.string(),
});
export type HostRecord = z.infer<typeof HostRecord>;

export function writeHostRecord(home: string, record: HostRecord): void {
  ensurePrivateDir(hostsDir(home));
  const file = hostRecordPath(home, record.profileId);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** Removes the record only if it is still ours: a newer host for the same profile may own it now. */
export function removeHostRecord(home: string, profileId: string, pid = process.pid): void {
  const file = hostRecordPath(home, profileId);
  const current = readRecord(file);
  if (current && current.pid !== pid) return;
  fs.rmSync(file, { force: true });
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
    else fs.rmSync(file, { force: true });
  }
  return hosts.sort((a, b) => b.connectedAt.localeCompare(a.connectedAt));
}

/**
 * The host a client should talk to: by exact profile id, else by label substring
 * (case-insensitive), else the most recently connected one.
 */
export function pickHost(hosts: HostRecord[], profile?: string): HostRecord | undefined {
  if (!profile) return hosts[0];
  const wanted = profile.toLowerCase();
  return (
    hosts.find((h) => h.profileId === profile) ?? hosts.find((h) => h.profileLabel.toLowerCase().includes(wanted))
  );
}

function readRecord(file: string): HostRecord | undefined {
  try {
    const parsed = HostRecord.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
