import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runUnblock } from '../../lib/cli/unblock-command';
import { runUninstall } from '../../lib/cli/uninstall-command';
import { install } from '../../lib/install/install';
import { LINUX_POLICY_FILE } from '../../lib/install/policy-places';
import type { FsLike } from '../../lib/install/system';
import { PERPLEXITY_HOSTS, prepareCometStart, undoUnblock, unblock } from '../../lib/install/unblock';
import { linuxInstallHome } from '../support/install-home';

/** unblock's faults of the 2026-12-05 review (#5, #8, #14), and uninstall's under sudo: each test failed before its fix. */

const PERSON = 4242;
const under = (dir: string, file: string) => file === dir || file.startsWith(`${dir}/`);

/** root's home and the person's, a policy folder, and node:fs seen by a root run under sudo (nothing is really chown-ed). */
function sudoSetup(passwd: (personHome: string) => string) {
  const setup = linuxInstallHome('unblock-sudo');
  const rootHome = path.join(setup.homedir, 'root');
  const personHome = path.join(setup.homedir, 'home', 'me');
  const policyDir = path.join(setup.homedir, 'managed');
  for (const dir of [rootHome, personHome, policyDir]) fs.mkdirSync(dir, { recursive: true });
  const given: string[] = [];
  /** Files under the person's home that lstat says are root's (one root made there, or a hard link to one of root's). */
  const rootsFiles = new Set<string>();
  /** Folders under the person's home that lstat says are root's, with all they hold (made by a `sudo … install` that kept HOME). */
  const rootsTrees: string[] = [];
  /** Files under the person's home that lstat says are a third user's, by uid. */
  const othersFiles = new Map<string, number>();
  const spy: FsLike = {
    ...(fs as unknown as FsLike),
    readFileSync: (f: string, e: 'utf8') => (f === '/etc/passwd' ? passwd(personHome) : fs.readFileSync(f, e)),
    lstatSync: (f) => {
      const stat = fs.lstatSync(f);
      const uid = othersFiles.get(f) ?? (under(personHome, f) && !rootsFiles.has(f) && !rootsTrees.some((dir) => under(dir, f)) ? PERSON : 0);
      return Object.assign(stat, { uid, gid: uid });
    },
    chownSync: (f, uid) => {
      given.push(`${path.relative(setup.homedir, f)} ${uid}`);
    },
    fchownSync: (_fd, uid) => {
      given.push(`file ${uid}`);
    },
  };
  const out: string[] = [];
  const io = { out: (t: string) => out.push(t), interactive: false, platform: 'linux' as const, env: { SUDO_USER: 'me', SUDO_UID: String(PERSON), SUDO_GID: String(PERSON) }, homedir: rootHome, fs: spy, uid: 0 };
  return { ...setup, rootHome, personHome, policyDir, given, rootsFiles, rootsTrees, othersFiles, out, io };
}

describe('#5 sudo unblock with root\'s HOME keeps its record where the person\'s own undo looks (review 2026-12-05 #5)', () => {
  it("#5: the record lands in SUDO_USER's state folder, given to them, and the run says so", async () => {
    const h = sudoSetup((home) => `root:x:0:0:root:/root:/bin/sh\nme:x:${PERSON}:${PERSON}:Me:${home}:/bin/sh\n`);
    expect(await runUnblock({ browser: 'chromium', yes: true, 'policy-dir': h.policyDir }, h.io)).toBe(0);
    const record = path.join(h.personHome, '.local', 'state', 'comet-relay', 'unblock', 'chromium.json');
    expect(JSON.parse(fs.readFileSync(record, 'utf8')).places).toHaveLength(1);
    expect(fs.existsSync(path.join(h.rootHome, '.local'))).toBe(false);
    expect(h.given).toContain(`home/me/.local/state/comet-relay/unblock ${PERSON}`);
    expect(h.given.at(-1)).toBe(`file ${PERSON}`);
    expect(h.out.join('')).toMatch(/running as root under sudo for me: the record of what unblock writes goes to .*home\/me\/\.local\/state\/comet-relay/);

    // The person's own undo (their HOME, no sudo needed for this policy folder) finds it and takes it back.
    const undo = await undoUnblock({ platform: 'linux', homedir: h.personHome, env: {}, browser: 'chromium', stateDir: path.join(h.personHome, '.local', 'state', 'comet-relay'), policyDir: h.policyDir });
    expect(undo.changed).toBe(true);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
  });

  it('#5: when the person\'s home cannot be found, nothing is written and the error says to pass --home', async () => {
    const h = sudoSetup(() => 'root:x:0:0:root:/root:/bin/sh\n');
    await expect(runUnblock({ browser: 'chromium', yes: true, 'policy-dir': h.policyDir }, h.io)).rejects.toThrow(/runs as root under sudo \(for me\) with root's home .*Nothing was written\. Run `.*unblock --browser chromium` without sudo: it prints the sudo command with your state folder as --home/);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    expect(fs.existsSync(path.join(h.rootHome, '.local'))).toBe(false);
  });

  it('#5: an undo with no record still looks at the policy, and says when comet-relay\'s entry is there', async () => {
    const h = sudoSetup(() => '');
    const options = { platform: 'linux' as const, homedir: h.homedir, env: {}, browser: 'chromium' as const, policyDir: h.policyDir };
    await unblock({ ...options, stateDir: path.join(h.rootHome, 'state') });
    const undo = await undoUnblock({ ...options, stateDir: path.join(h.personHome, 'state') });
    expect(undo.ok).toBe(false);
    expect(undo.lines.join('\n')).toMatch(/no record of an unblock .*\n {2}But .*zz-comet-relay\.json still lets comet-relay's extension .* run on \*:\/\/\*\.perplexity\.ai/);
  });
});

describe("sudo uninstall with root's HOME takes back the install of the person who ran sudo, never root's (as #5)", () => {
  const MANIFEST = 'NativeMessagingHosts/com.comet_relay.host.json';
  const passwd = (home: string) => `root:x:0:0:root:/root:/bin/sh\nme:x:${PERSON}:${PERSON}:Me:${home}:/bin/sh\n`;

  /** The person's install with an unblock (its record in their state folder), and root's own install beside it. */
  async function twoInstalls(h: ReturnType<typeof sudoSetup>) {
    const installs = { person: h.personHome, root: h.rootHome };
    for (const homedir of Object.values(installs)) {
      fs.mkdirSync(path.join(homedir, '.config', 'chromium'), { recursive: true });
      expect((await install({ platform: 'linux', env: {}, homedir, cliPath: h.cliPath, nodePath: h.nodePath, browsers: ['chromium'] })).ok).toBe(true);
    }
    const personState = path.join(h.personHome, '.local', 'state', 'comet-relay');
    await unblock({ platform: 'linux', homedir: h.personHome, env: {}, browser: 'chromium', stateDir: personState, policyDir: h.policyDir });
    expect(fs.readdirSync(h.policyDir)).toHaveLength(1);
    const files = (home: string) => ({
      manifest: path.join(home, '.config', 'chromium', MANIFEST),
      launcher: path.join(home, '.local', 'state', 'comet-relay', 'bin', 'comet-relay-host'),
    });
    return { person: files(h.personHome), root: files(h.rootHome), record: path.join(personState, 'unblock', 'chromium.json') };
  }

  it("removes the person's registration, launcher and unblock, leaves root's install, and says whose it took back", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium' }, io)).toBe(0);
    expect([f.person.manifest, f.person.launcher, f.record].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    expect([f.root.manifest, f.root.launcher].filter((file) => fs.existsSync(file))).toEqual([f.root.manifest, f.root.launcher]);
    const text = h.out.join('');
    expect(text).toMatch(/^note: running as root under sudo for me: uninstall takes back me's install \(its state folder .*home\/me\/\.local\/state\/comet-relay and the browser folders under .*home\/me\), not root's\./);
    expect(text).toContain(`removed  ${f.person.manifest.replace(h.personHome, '~')}`);
  });

  it("refuses, removing nothing, when the person's home cannot be found, and says to run it without sudo", async () => {
    const h = sudoSetup(() => 'root:x:0:0:root:/root:/bin/sh\n');
    const f = await twoInstalls(h);
    const { interactive: _, ...io } = h.io;
    await expect(runUninstall({ browsers: ['chromium'], browser: 'chromium', purge: true }, io)).rejects.toMatchObject({
      code: 'CONFIG_ERROR',
      message: expect.stringMatching(
        /^uninstall runs as root under sudo \(for me\) with root's home \(.*\), so it would take back root's install, not me's; and me's home folder is not in \/etc\/passwd\. Nothing was removed\. Run `.*uninstall --browser chromium --purge` without sudo: /,
      ),
    });
    const left = [f.person.manifest, f.person.launcher, f.record, f.root.manifest, f.root.launcher];
    expect(left.filter((file) => fs.existsSync(file))).toEqual(left);
    expect(fs.readdirSync(h.policyDir)).toHaveLength(1);
  });

  /** Replaces the folder `dir` with a link to `target`, a folder of root's holding `name` (a file of the name uninstall removes). */
  function linkTo(dir: string, target: string, name: string, text = 'system file\n') {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, name), text);
    fs.symlinkSync(target, dir);
    return path.join(target, name);
  }

  it("a link in the person's state folder (bin/ → a system folder) is not followed: the file of the launcher's name there stays, and the run says why", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const system = linkTo(path.dirname(f.person.launcher), path.join(h.homedir, 'etc'), 'comet-relay-host');
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium' }, io)).toBe(1);
    expect(fs.readFileSync(system, 'utf8')).toBe('system file\n');
    const text = h.out.join('');
    expect(text).toContain(
      "✘ left alone ~/.local/state/comet-relay/bin and everything under it: it is a link, and root follows no link in me's folders; if it is comet-relay's, remove it yourself, as me, or run `",
    );
    expect(text).toMatch(/uninstall --browser chromium` as me, without sudo\n/);
    // What is reached without a link still goes: the registration, the unblock and its record.
    expect([f.person.manifest, f.record].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
  });

  it("a browser's NativeMessagingHosts/ that links to a system folder: the manifest there stays, and the run says why", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const text = fs.readFileSync(f.person.manifest, 'utf8');
    const system = linkTo(path.dirname(f.person.manifest), path.join(h.homedir, 'usr', 'lib', 'chromium', 'native-messaging-hosts'), path.basename(f.person.manifest), text);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium', purge: true }, io)).toBe(1);
    expect(fs.readFileSync(system, 'utf8')).toBe(text);
    expect(h.out.join('')).toContain("✘ left alone ~/.config/chromium/NativeMessagingHosts and everything under it: it is a link, and root follows no link in me's folders;");
  });

  // Before the day-4 review (F3) a file of root's here was left alone too. Removing it takes away its name only: even a
  // hard link to one of root's files leaves that file's text where it was; and it is what a `sudo … install` with HOME kept leaves.
  it("--purge removes a file of root's in the person's state folder (a hard link to root's, say: only the name goes), and leaves a third user's, saying so", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const state = path.dirname(path.dirname(f.person.launcher));
    const token = path.join(state, 'token');
    const roots = path.join(h.homedir, 'shadow');
    fs.writeFileSync(roots, 'root only\n');
    fs.rmSync(token);
    fs.linkSync(roots, token);
    h.rootsFiles.add(token);
    fs.mkdirSync(path.join(state, 'logs'));
    const log = path.join(state, 'logs', 'host.log');
    fs.writeFileSync(log, '2026-12-06T03:00:00.000Z INFO [42] host started\n');
    h.othersFiles.set(log, 5151);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: 'all', purge: true }, io)).toBe(1);
    expect(fs.existsSync(token)).toBe(false);
    expect(fs.readFileSync(roots, 'utf8')).toBe('root only\n');
    expect(fs.readdirSync(state)).toEqual(['logs']);
    expect(fs.readFileSync(log, 'utf8')).toBe('2026-12-06T03:00:00.000Z INFO [42] host started\n');
    expect([f.person.manifest, f.record].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(h.out.join('')).toContain("✘ left alone ~/.local/state/comet-relay/logs/host.log: it belongs to user 5151, neither me nor root, and root removes no other user's files for me;");
  });

  it('the same purge with nothing of root\'s or linked in the person\'s folders removes all of it', async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: 'all', purge: true }, io)).toBe(0);
    expect(fs.existsSync(path.dirname(path.dirname(f.person.launcher)))).toBe(false);
    expect(fs.existsSync(f.person.manifest)).toBe(false);
    expect(h.out.join('')).not.toContain('left alone');
  });

  /** What a `sudo comet-relay install` (and unblock) with HOME kept made in the person's home: root's, with all it holds. */
  const sudoMade = (h: ReturnType<typeof sudoSetup>) => h.rootsTrees.push(path.join(h.personHome, '.local', 'state'), path.join(h.personHome, '.config', 'chromium', 'NativeMessagingHosts'));

  it("after `sudo comet-relay install` with HOME kept (macOS, sudo -E), sudo uninstall removes what it made: root's files in the person's link-free folders, the unblock's record too (day-4 review F3)", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    sudoMade(h);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium' }, { ...io, homedir: h.personHome })).toBe(0);
    expect([f.person.manifest, f.person.launcher, f.record].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    const text = h.out.join('');
    expect(text).not.toContain('left alone');
    expect(text).toContain(`removed  ${f.person.manifest.replace(h.personHome, '~')}`);
    expect([f.root.manifest, f.root.launcher].filter((file) => fs.existsSync(file))).toEqual([f.root.manifest, f.root.launcher]);
  });

  it("root's files there stay when a link is on their way: sudo uninstall says so, and never that nothing was there (day-4 review F3)", async () => {
    const h = sudoSetup(passwd);
    fs.mkdirSync(path.join(h.personHome, '.config', 'chromium'), { recursive: true });
    expect((await install({ platform: 'linux', env: {}, homedir: h.personHome, cliPath: h.cliPath, nodePath: h.nodePath, browsers: ['chromium'] })).ok).toBe(true);
    const manifest = path.join(h.personHome, '.config', 'chromium', MANIFEST);
    const text = fs.readFileSync(manifest, 'utf8');
    const system = linkTo(path.dirname(manifest), path.join(h.homedir, 'usr', 'lib', 'chromium', 'native-messaging-hosts'), path.basename(manifest), text);
    sudoMade(h);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium' }, { ...io, homedir: h.personHome })).toBe(1);
    expect(fs.readFileSync(system, 'utf8')).toBe(text);
    const out = h.out.join('');
    expect(out).not.toContain('Nothing to remove');
    expect(out).toMatch(/^Nothing was removed: what stands, and why, is said below\.\nkept {5}~\/\.local\/state\/comet-relay\/bin\/comet-relay-host \(still used by chromium\)\n.*\n✘ left alone ~\/\.config\/chromium\/NativeMessagingHosts and everything under it: it is a link/);
  });

  it("--home with a state folder of the person's is refused, removing nothing: root would look in root's browser folders; it says to run it without sudo", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const own = path.join(h.personHome, 'relay');
    fs.mkdirSync(path.join(h.personHome, '.config', 'chromium'), { recursive: true });
    await install({ platform: 'linux', env: {}, homedir: h.personHome, home: own, cliPath: h.cliPath, nodePath: h.nodePath, browsers: ['chromium'] });
    const { interactive: _, ...io } = h.io;
    await expect(runUninstall({ browsers: ['chromium'], browser: 'chromium', home: own }, io)).rejects.toMatchObject({
      code: 'CONFIG_ERROR',
      message: expect.stringMatching(
        /^uninstall runs as root under sudo \(for me\) with the state folder .*home\/me\/relay \(--home\), which is not root's: .*home\/me belongs to me\. .*Nothing was removed\. Run `.*uninstall --browser chromium --home .*home\/me\/relay` without sudo: it takes back your install, and for an unblock's policy, which needs root, prints the sudo command to run\.$/,
      ),
    });
    const left = [f.person.manifest, path.join(own, 'bin', 'comet-relay-host'), f.root.manifest, f.root.launcher];
    expect(left.filter((file) => fs.existsSync(file))).toEqual(left);
  });

  it("--home with a state folder of root's own takes back root's install there, as without sudo", async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const roots = path.join(h.rootHome, 'relay');
    await install({ platform: 'linux', env: {}, homedir: h.rootHome, home: roots, cliPath: h.cliPath, nodePath: h.nodePath, browsers: ['chromium'] });
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'], browser: 'chromium', home: roots }, io)).toBe(0);
    expect([f.root.manifest, path.join(roots, 'bin', 'comet-relay-host')].filter((file) => fs.existsSync(file))).toEqual([]);
    expect([f.person.manifest, f.person.launcher].filter((file) => fs.existsSync(file))).toEqual([f.person.manifest, f.person.launcher]);
  });

  it('--home, or a HOME that is the person\'s own (sudo -E), is taken as given', async () => {
    const h = sudoSetup(passwd);
    const f = await twoInstalls(h);
    const { interactive: _, ...io } = h.io;
    expect(await runUninstall({ browsers: ['chromium'] }, { ...io, homedir: h.personHome })).toBe(0);
    expect([f.person.manifest, f.person.launcher].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(h.out.join('')).not.toContain('running as root under sudo');
  });
});

/** A company policy long enough that the record passes 4 KiB. */
function bigCompany(policyDir: string) {
  const entries: Record<string, unknown> = { '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS] } };
  for (let i = 0; i < 40; i++) entries[String.fromCharCode(97 + (i % 16)).repeat(31) + String.fromCharCode(97 + Math.floor(i / 16))] = { installation_mode: 'force_installed', update_url: 'https://clients2.google.com/service/update2/crx' };
  fs.writeFileSync(path.join(policyDir, '10-company.json'), JSON.stringify({ ExtensionSettings: entries }));
}

/** node:fs whose writes to files under `dir` take at most `max` bytes a call, or fail with ENOSPC once `full()` says so. */
function nearlyFull(dir: string, max: number, full: () => boolean = () => false): FsLike {
  const paths = new Map<number, string>();
  return {
    ...(fs as unknown as FsLike),
    openSync: (f: string, flags: number, mode?: number) => {
      const fd = fs.openSync(f, flags, mode);
      paths.set(fd, f);
      return fd;
    },
    writeSync: ((fd: number, data: string | Uint8Array, offset?: number, length?: number) => {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      const from = typeof data === 'string' ? 0 : (offset ?? 0);
      const want = typeof data === 'string' ? bytes.length : (length ?? bytes.length - from);
      if (!under(dir, paths.get(fd) ?? '')) return fs.writeSync(fd, bytes, from, want);
      if (full()) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return fs.writeSync(fd, bytes, from, Math.min(want, max));
    }) as FsLike['writeSync'],
  };
}

describe('#8 the record and the policy are written whole or not at all (review 2026-12-05 #8)', () => {
  it('#8: an OS that takes 4 KiB a call still gets the whole record and policy file', async () => {
    const setup = linuxInstallHome('unblock-sudo');
    const policyDir = path.join(setup.homedir, 'managed');
    fs.mkdirSync(policyDir);
    bigCompany(policyDir);
    const options = { platform: 'linux' as const, homedir: setup.homedir, env: {}, browser: 'chromium' as const, stateDir: path.join(setup.homedir, 'state'), policyDir };
    await unblock({ ...options, fs: nearlyFull(setup.homedir, 4096) });
    const record = path.join(options.stateDir, 'unblock', 'chromium.json');
    expect(fs.statSync(record).size).toBeGreaterThan(4096);
    expect(JSON.parse(fs.readFileSync(record, 'utf8')).places).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(policyDir, LINUX_POLICY_FILE), 'utf8')).ExtensionSettings).toBeDefined();
    expect((await undoUnblock(options)).changed).toBe(true);
  });

  it('#8: a full disk leaves the earlier record as it was, writes no policy, and reports no success', async () => {
    const setup = linuxInstallHome('unblock-sudo');
    const first = path.join(setup.homedir, 'managed', 'a');
    const second = path.join(setup.homedir, 'managed', 'b');
    fs.mkdirSync(first, { recursive: true });
    bigCompany(first);
    const options = { platform: 'linux' as const, homedir: setup.homedir, env: {}, browser: 'chromium' as const, stateDir: path.join(setup.homedir, 'state'), policyDir: first };
    await unblock(options);
    const record = path.join(options.stateDir, 'unblock', 'chromium.json');
    const before = fs.readFileSync(record, 'utf8');
    let written = 0;
    const full = nearlyFull(options.stateDir, 4096, () => written++ > 0);
    await expect(unblock({ ...options, policyDir: second, fs: full })).rejects.toThrow(/^Nothing was written: the record of what unblock writes .*ENOSPC/);
    expect(fs.readFileSync(record, 'utf8')).toBe(before);
    expect(fs.readdirSync(path.dirname(record))).toEqual(['chromium.json']);
    expect(fs.existsSync(path.join(second, LINUX_POLICY_FILE))).toBe(false);
  });
});

describe("#14 Comet's Local State is replaced whole, keeping its mode (review 2026-12-05 #14)", () => {
  const SWITCH = 'Allow-external-extensions-scripting-on-NTP';
  const cometHome = () => {
    const setup = linuxInstallHome('unblock-sudo');
    const profile = path.join(setup.homedir, 'Library', 'Application Support', 'Comet');
    fs.mkdirSync(profile, { recursive: true });
    const localState = path.join(profile, 'Local State');
    fs.writeFileSync(localState, JSON.stringify({ profile: { info_cache: { Default: { name: 'Me' } } }, perplexity: { feature: { [SWITCH]: false } } }), { mode: 0o600 });
    fs.chmodSync(localState, 0o600);
    const stateDir = path.join(setup.homedir, 'state');
    fs.mkdirSync(path.join(stateDir, 'unblock'), { recursive: true });
    fs.writeFileSync(path.join(stateDir, 'unblock', 'comet.json'), '{}');
    return { profile, localState, options: { platform: 'darwin' as const, homedir: setup.homedir, env: {}, stateDir } };
  };

  it('#14: a write cut off half way leaves Local State as it was', () => {
    const h = cometHome();
    const before = fs.readFileSync(h.localState, 'utf8');
    const cut = (error: string) => Object.assign(new Error(error), { code: 'EIO' });
    const paths = new Map<number, string>();
    const killed: FsLike = {
      ...(fs as unknown as FsLike),
      // The old in-place write: half the text lands, then the process dies.
      writeFileSync: (f, d, o) => {
        if (f === h.localState) {
          fs.writeFileSync(f, d.slice(0, d.length / 2), o);
          throw cut('killed');
        }
        return fs.writeFileSync(f, d, o);
      },
      openSync: (f: string, flags: number, mode?: number) => {
        const fd = fs.openSync(f, flags, mode);
        paths.set(fd, f);
        return fd;
      },
      writeSync: ((fd: number, data: Uint8Array, offset?: number, length?: number) => {
        if (under(h.profile, paths.get(fd) ?? '')) {
          fs.writeSync(fd, data, offset ?? 0, Math.floor((length ?? data.length) / 2));
          throw cut('killed');
        }
        return fs.writeSync(fd, data, offset, length);
      }) as FsLike['writeSync'],
    };
    expect(() => prepareCometStart({ ...h.options, fs: killed })).toThrow(/killed/);
    expect(fs.readFileSync(h.localState, 'utf8')).toBe(before);
    expect(fs.readdirSync(h.profile).sort()).toEqual(['Local State', 'Local State.comet-relay-backup']);
  });

  it('#14: once set, Local State keeps its mode and no temporary file is left', () => {
    const h = cometHome();
    expect(prepareCometStart(h.options).outcome).toBe('set');
    expect(fs.statSync(h.localState).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(h.localState, 'utf8')).perplexity.feature[SWITCH]).toBe(true);
    expect(fs.readdirSync(h.profile).sort()).toEqual(['Local State', 'Local State.comet-relay-backup']);
  });
});
