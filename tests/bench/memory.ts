import fs from 'node:fs';
import { listHosts } from '../../lib/relay/discovery';

/** (c) The host's peak and current resident memory (Linux /proc; undefined elsewhere). */
export interface HostMemory {
  pid: number;
  peakBytes?: number;
  currentBytes?: number;
}

export function hostMemory(home: string): HostMemory | undefined {
  const host = listHosts(home)[0];
  if (!host) return undefined;
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${host.pid}/status`, 'utf8');
  } catch {
    return { pid: host.pid };
  }
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return { pid: host.pid, peakBytes: kb('VmHWM'), currentBytes: kb('VmRSS') };
}
