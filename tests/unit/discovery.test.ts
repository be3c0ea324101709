import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asHostRecord, codeStamp, type HostRecord, knownProfiles, listHosts, pickHost, removeHostRecord, writeHostRecord } from '../../lib/relay/discovery';
import { hostRecordPath, pipeNonce, socketPath, stateDir } from '../../lib/relay/paths';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'comet-relay-discovery-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const record = (profileId: string, connectedAt: string, pid = process.pid, label = `Profile ${profileId}`): HostRecord => ({
  profileId,
  profileLabel: label,
  browser: { name: 'Chromium', version: '156.0.0.0' },
  extensionVersion: '0.1.0',
  hostVersion: '0.1.0',
  socketPath: socketPath(home, profileId),
  pid,
  startedAt: connectedAt,
  connectedAt,
});

describe('state directory', () => {
  it('follows COMET_RELAY_HOME, then the OS convention', () => {
    expect(stateDir({ env: { COMET_RELAY_HOME: '/tmp/x' } })).toBe('/tmp/x');
    expect(stateDir({ env: {}, platform: 'linux', homedir: '/home/u' })).toBe('/home/u/.local/state/comet-relay');
    expect(stateDir({ env: { XDG_STATE_HOME: '/xdg' }, platform: 'linux', homedir: '/home/u' })).toBe('/xdg/comet-relay');
    expect(stateDir({ env: {}, platform: 'darwin', homedir: '/Users/u' })).toBe('/Users/u/Library/Application Support/comet-relay');
    expect(stateDir({ env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32', homedir: 'C:\\Users\\u' })).toBe(
      'C:\\Users\\u\\AppData\\Local\\comet-relay',
    );
  });

  it('keeps socket paths short enough for unix sockets, and uses named pipes on Windows', () => {
    expect(socketPath('/tmp/h', 'abc').endsWith('run/abc.sock')).toBe(true);
    expect(socketPath(`/tmp/${'d'.repeat(120)}`, 'abc').length).toBeLessThanOrEqual(100);
    expect(socketPath('C:\\x', 'abc', 'win32')).toMatch(/^\\\\\.\\pipe\\comet-relay-[0-9a-f]{16}$/);
  });

  it('names a Windows pipe with a nonce nobody else can guess, new for each host', () => {
    const a = socketPath('C:\\x', 'abc', 'win32', pipeNonce());
    const b = socketPath('C:\\x', 'abc', 'win32', pipeNonce());
    expect(a).toMatch(/^\\\\\.\\pipe\\comet-relay-[0-9a-f]{16}-[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });
});

describe('discovery records', () => {
  it('lists live hosts, most recently connected first', () => {
    writeHostRecord(home, record('aaaaaaaa1', '2026-01-01T00:00:00.000Z'));
    writeHostRecord(home, record('bbbbbbbb2', '2026-02-01T00:00:00.000Z'));
    expect(listHosts(home).map((h) => h.profileId)).toEqual(['bbbbbbbb2', 'aaaaaaaa1']);
  });

  it("removes records of dead hosts; a file there that is no record is ignored and left (another program's, in a shared --home: review 11g, G7)", () => {
    writeHostRecord(home, record('aaaaaaaa1', '2026-01-01T00:00:00.000Z', 999_999_999));
    fs.writeFileSync(path.join(home, 'hosts', 'garbage.json'), '{not json');
    fs.writeFileSync(path.join(home, 'hosts', 'inventory.json'), JSON.stringify({ all: { hosts: ['web1'] } }));
    expect(listHosts(home)).toEqual([]);
    expect(fs.readdirSync(path.join(home, 'hosts')).sort()).toEqual(['garbage.json', 'inventory.json']);
  });

  it('a record that lands while a stale one is judged survives: a killed host\'s successor stays findable', () => {
    const dead = 999_999_991;
    const successor = 999_999_992;
    writeHostRecord(home, record('aaaaaaaa1', '2026-01-01T00:00:00.000Z', dead));
    let landed = false;
    // The new host renames its record into place between the listing's read and its delete.
    const alive = (pid: number) => {
      if (pid === dead && !landed) {
        landed = true;
        writeHostRecord(home, record('aaaaaaaa1', '2026-01-01T00:00:01.000Z', successor));
      }
      return pid === successor;
    };
    expect(listHosts(home, alive)).toEqual([]);
    expect(listHosts(home, alive).map((h) => h.pid)).toEqual([successor]);
    expect(fs.readdirSync(path.join(home, 'hosts'))).toEqual(['aaaaaaaa1.json']);
  });

  it('picks by id, then by label, else the newest', () => {
    const hosts = [record('bbbbbbbb2', '2', process.pid, 'Work'), record('aaaaaaaa1', '1', process.pid, 'Personal')];
    expect(pickHost(hosts).host?.profileId).toBe('bbbbbbbb2');
    expect(pickHost(hosts, 'aaaaaaaa1').host?.profileId).toBe('aaaaaaaa1');
    expect(pickHost(hosts, 'person').host?.profileId).toBe('aaaaaaaa1');
    expect(pickHost(hosts, 'nobody')).toEqual({ ambiguous: [] });
  });

  it('takes an exact name before a more recently connected profile whose name only contains it', () => {
    const hosts = [record('cccccccc3', '3', process.pid, 'Homework'), record('dddddddd4', '2', process.pid, 'Work')];
    expect(pickHost(hosts, 'Work').host?.profileId).toBe('dddddddd4');
    expect(pickHost(hosts, 'work').host?.profileId).toBe('dddddddd4');
    // Only "Homework" connected: "Work" is not a name of it, nor the start of one.
    expect(pickHost(hosts.slice(0, 1), 'Work').host).toBeUndefined();
  });

  it('#4: a known "Work" whose browser is not running is waited for, never stood in for by a connected "Workshop"', () => {
    const dead = 2 ** 22 + 7; // no such process
    writeHostRecord(home, record('w0rk000001', '1', dead, 'Work'));
    writeHostRecord(home, record('w0rkshop01', '2', process.pid, 'Workshop'));
    const hosts = listHosts(home);
    expect(hosts.map((h) => h.profileLabel)).toEqual(['Workshop']);
    const known = knownProfiles(home);
    expect(pickHost(hosts, 'Work', known)).toEqual({ ambiguous: [], notRunning: { profileId: 'w0rk000001', profileLabel: 'Work' } });
    expect(pickHost(hosts, 'w0rk000001', known).host).toBeUndefined();
    // A name no profile has exactly still reaches the one connected profile it begins, and the pick says how.
    expect(pickHost(hosts, 'Works', known)).toMatchObject({ host: { profileLabel: 'Workshop' }, byPrefix: true });
    expect(pickHost(hosts, 'Workshop', known)).toEqual({ host: hosts[0] });
  });

  it('refuses a name that begins several profiles instead of picking the newest of them', () => {
    const hosts = [record('eeeeeeee5', '5', process.pid, 'Work laptop'), record('ffffffff6', '4', process.pid, 'Work desktop')];
    expect(pickHost(hosts, 'work').ambiguous?.map((h) => h.profileId)).toEqual(['eeeeeeee5', 'ffffffff6']);
    expect(pickHost(hosts, 'work d').host?.profileId).toBe('ffffffff6');
  });

  it('leaves a record alone that a newer host for the same profile wrote', () => {
    writeHostRecord(home, record('aaaaaaaa1', '1', 1));
    removeHostRecord(home, 'aaaaaaaa1', { pid: 2 });
    expect(fs.existsSync(hostRecordPath(home, 'aaaaaaaa1'))).toBe(true);
    removeHostRecord(home, 'aaaaaaaa1', { pid: 1, portOpenedAt: 5 });
    expect(fs.existsSync(hostRecordPath(home, 'aaaaaaaa1'))).toBe(true);
    removeHostRecord(home, 'aaaaaaaa1', { pid: 1 });
    expect(fs.existsSync(hostRecordPath(home, 'aaaaaaaa1'))).toBe(false);
  });

  it('says whether a record is gone: false only when it is there and could not be taken away', () => {
    writeHostRecord(home, record('aaaaaaaa1', '1', 1));
    const file = hostRecordPath(home, 'aaaaaaaa1');
    const rename = fs.renameSync;
    // A folder this user cannot change (root ignores a chmod, so the refusal is stubbed).
    const refused = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(from) === file) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      rename(from, to);
    });
    try {
      expect(removeHostRecord(home, 'aaaaaaaa1', { pid: 1 })).toBe(false);
      expect(fs.existsSync(file)).toBe(true);
    } finally {
      refused.mockRestore();
    }
    expect(removeHostRecord(home, 'aaaaaaaa1', { pid: 2 })).toBe(true); // a newer host's: not ours to remove, kept
    expect(fs.existsSync(file)).toBe(true);
    expect(removeHostRecord(home, 'aaaaaaaa1', { pid: 1 })).toBe(true);
    expect(removeHostRecord(home, 'aaaaaaaa1', { pid: 1 })).toBe(true); // gone already
    expect(fs.existsSync(file)).toBe(false);
  });

  it('returns nothing when the state directory does not exist yet', () => {
    expect(listHosts(path.join(home, 'missing'))).toEqual([]);
  });
});

describe('host records are checked field by field', () => {
  it('keeps a whole record and drops unknown fields', () => {
    const whole = record('p1', '2026-12-01T00:00:00.000Z');
    expect(asHostRecord({ ...whole, extra: 1 })).toEqual(whole);
  });

  it('keeps the code stamp when it is whole, and drops one of another shape (an optional field)', () => {
    const whole = { ...record('p1', '2026-12-01T00:00:00.000Z'), code: { file: '/opt/dist/host-command.js', mtimeMs: 1.5 } };
    expect(asHostRecord(whole)).toEqual(whole);
    for (const code of [null, 'x', { file: '/a' }, { file: 3, mtimeMs: 1 }, { file: '/a', mtimeMs: Number.NaN }]) {
      expect(asHostRecord({ ...whole, code })).toEqual(record('p1', '2026-12-01T00:00:00.000Z'));
    }
  });

  it('stamps a file by its mtime, and nothing for a file that is not there', () => {
    const file = path.join(home, 'code.js');
    fs.writeFileSync(file, '');
    fs.utimesSync(file, 1000, 1000);
    expect(codeStamp(file)).toEqual({ file, mtimeMs: 1_000_000 });
    expect(codeStamp(path.join(home, 'gone.js'))).toBeUndefined();
    expect(codeStamp()?.file).toBe(__filename.replace(/tests\/unit\/discovery\.test\.ts$/, 'lib/relay/discovery.ts'));
  });

  it('refuses a record with any field missing or of another type', () => {
    const whole = record('p1', '2026-12-01T00:00:00.000Z') as unknown as Record<string, unknown>;
    for (const key of Object.keys(whole)) {
      const { [key]: _gone, ...missing } = whole;
      expect(asHostRecord(missing), `without ${key}`).toBeUndefined();
      for (const wrong of [null, 5, 'x', [], {}]) {
        if (typeof wrong === typeof whole[key] && !Array.isArray(wrong)) continue;
        expect(asHostRecord({ ...whole, [key]: wrong }), `${key}: ${JSON.stringify(wrong)}`).toBeUndefined();
      }
    }
    expect(asHostRecord({ ...whole, pid: 1.5 })).toBeUndefined();
    expect(asHostRecord({ ...whole, browser: { name: 'Chromium' } })).toBeUndefined();
    for (const value of [null, [], 'record', 3]) expect(asHostRecord(value)).toBeUndefined();
  });

  it('a damaged record file is ignored (and left: whose it is cannot be told; the host replaces its own when it starts)', () => {
    writeHostRecord(home, record('p1', '2026-12-01T00:00:00.000Z'));
    fs.writeFileSync(hostRecordPath(home, 'p1'), JSON.stringify({ ...record('p1', 'x'), pid: 'not a pid' }));
    expect(listHosts(home)).toEqual([]);
    writeHostRecord(home, record('p1', '2026-12-02T00:00:00.000Z'));
    expect(listHosts(home).map((h) => h.profileId)).toEqual(['p1']);
  });
});
