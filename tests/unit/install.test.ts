import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { install, uninstall } from '../../lib/install/install';
import { EXTENSION_ORIGIN, NATIVE_HOST_NAME } from '../../lib/protocol/identity';
import { linuxInstallHome } from '../support/install-home';
import { fakeReg, memoryFs } from './install-memfs';
import { cliCommand } from '../../lib/relay/invocation';

const linuxSetup = (env: Record<string, string> = {}) => linuxInstallHome('install', env);

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('install on Linux', () => {
  it('checks the folder it writes the launcher into as the host checks it: a real folder of yours, closed to others', async () => {
    const setup = linuxSetup();
    const state = path.join(setup.homedir, '.local', 'state', 'comet-relay');
    fs.mkdirSync(state, { recursive: true, mode: 0o777 });
    fs.chmodSync(state, 0o777);
    const opened = await install({ ...setup, browsers: ['chromium'] });
    expect(opened.ok).toBe(true);
    expect(fs.statSync(state).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(state, 'bin')).mode & 0o777).toBe(0o700);

    // A symbolic link where the folder should be: whoever made it chose where the launcher goes.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-elsewhere-'));
    onTestFinished(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
    const linked = linuxSetup();
    const linkedState = path.join(linked.homedir, '.local', 'state', 'comet-relay');
    fs.mkdirSync(path.dirname(linkedState), { recursive: true });
    fs.symlinkSync(elsewhere, linkedState);
    const refused = await install({ ...linked, browsers: ['chromium'] });
    expect(refused.ok).toBe(false);
    expect(refused.lines.join('\n')).toMatch(/is a symbolic link/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a folder that belongs to another user before writing the launcher there', async () => {
    const setup = linuxSetup();
    const state = path.join(setup.homedir, '.local', 'state', 'comet-relay');
    fs.mkdirSync(state, { recursive: true });
    fs.chownSync(state, 4242, 4242);
    const refused = await install({ ...setup, browsers: ['chromium'] });
    expect(refused.ok).toBe(false);
    expect(refused.lines.join('\n')).toMatch(/belongs to user 4242, not to you/);
    expect(fs.existsSync(path.join(state, 'bin'))).toBe(false);
  });

  it('--browser all: writes only for the browsers that exist, makes no folder for the others, and says which it skipped', async () => {
    const setup = linuxSetup();
    fs.mkdirSync(path.join(setup.homedir, '.config', 'BraveSoftware', 'Brave-Browser'), { recursive: true });
    fs.mkdirSync(path.join(setup.homedir, '.config', 'google-chrome'), { recursive: true });
    const report = await install({ ...setup, browsers: 'all' });

    expect(report.ok).toBe(true);
    const state = path.join(setup.homedir, '.local', 'state', 'comet-relay');
    expect(report.stateDir).toBe(state);
    expect(report.launcherPath).toBe(path.join(state, 'bin', 'comet-relay-host'));
    const byTarget = Object.fromEntries(report.targets.map((t) => [t.target, t]));
    expect(Object.keys(byTarget).sort()).toEqual(['brave', 'chrome', 'chromium', 'comet', 'edge']);
    for (const name of ['chrome', 'brave']) {
      expect(byTarget[name]?.ok).toBe(true);
      expect(byTarget[name]?.skipped).toBeFalsy();
    }
    // Chromium is not there: skipped like any other, and no profile folder is made in its name.
    expect(byTarget.chromium).toMatchObject({ ok: true, skipped: true, problem: expect.stringContaining('Chromium not found') });
    expect(fs.existsSync(path.join(setup.homedir, '.config', 'chromium'))).toBe(false);
    expect(byTarget.edge).toMatchObject({ ok: true, skipped: true, problem: expect.stringContaining('Microsoft Edge not found') });
    expect(byTarget.edge?.fix).toContain(cliCommand('install --browser edge'));
    expect(byTarget.comet?.skipped).toBe(true);

    const manifestPath = path.join(setup.homedir, '.config', 'google-chrome', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`);
    expect(byTarget.chrome?.manifestPath).toBe(manifestPath);
    expect(readJson(manifestPath)).toEqual({
      name: NATIVE_HOST_NAME,
      description: expect.any(String),
      path: report.launcherPath,
      type: 'stdio',
      allowed_origins: [EXTENSION_ORIGIN],
    });
    expect(fs.existsSync(path.join(setup.homedir, '.config', 'microsoft-edge'))).toBe(false);
    const launcher = fs.readFileSync(report.launcherPath, 'utf8');
    expect(launcher).toContain(`CR_NODE='${process.execPath}'`);
    expect(launcher).toContain(`CR_CLI='${setup.cliPath}'`);

    expect(report.token).toEqual({ path: path.join(state, 'token'), created: true });
    expect(fs.statSync(path.join(state, 'token')).mode & 0o777).toBe(0o600);
    const text = report.lines.join('\n');
    expect(text).toContain('✔ chrome');
    expect(text).toContain('- edge');
    expect(text).not.toContain(fs.readFileSync(path.join(state, 'token'), 'utf8'));
  });

  it('--browser all with no browser found registers nothing, fails, and says how to name one', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: 'all' });
    expect(report.ok).toBe(false);
    expect(report.targets.every((t) => t.skipped)).toBe(true);
    expect(report.problems[0]?.message).toContain('no browser was found');
    expect(report.problems[0]?.fix).toContain(cliCommand('install --browser chrome'));
    expect(fs.existsSync(path.join(setup.homedir, '.config', 'google-chrome'))).toBe(false);
    expect(fs.existsSync(path.join(setup.homedir, '.config', 'chromium'))).toBe(false);
  });

  it('honours XDG_CONFIG_HOME and an explicit browser list (installed or not)', async () => {
    const setup = linuxSetup();
    const xdg = path.join(setup.homedir, 'xdg');
    const report = await install({ ...setup, env: { XDG_CONFIG_HOME: xdg }, browsers: ['edge'] });
    expect(report.ok).toBe(true);
    expect(report.targets).toHaveLength(1);
    expect(report.targets[0]?.manifestPath).toBe(path.join(xdg, 'microsoft-edge', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`));
    expect(fs.existsSync(report.targets[0]?.manifestPath as string)).toBe(true);
  });

  it('--user-data-dir writes only into that profile, --home is baked into the launcher', async () => {
    const setup = linuxSetup();
    const profile = path.join(setup.homedir, 'profile');
    const home = path.join(setup.homedir, 'test-home');
    const report = await install({ ...setup, userDataDir: profile, home });
    expect(report.ok).toBe(true);
    expect(report.targets.map((t) => t.manifestPath)).toEqual([path.join(profile, 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`)]);
    expect(fs.existsSync(path.join(setup.homedir, '.config'))).toBe(false);
    expect(report.stateDir).toBe(home);
    expect(report.launcherPath).toBe(path.join(home, 'bin', 'comet-relay-host'));
    expect(fs.readFileSync(report.launcherPath, 'utf8')).toContain(`COMET_RELAY_HOME='${home}'\nexport COMET_RELAY_HOME`);
    expect(report.token?.path).toBe(path.join(home, 'token'));
  });

  it('--user-data-dir in a folder another user made or all may write: no manifest written there, nor through a link (review 11f, F1)', async () => {
    // A link planted at the manifest's name, to a file of the person's: refused, the file untouched.
    const planted = linuxSetup();
    const shared = path.join(planted.homedir, 'shared-profile');
    fs.mkdirSync(path.join(shared, 'NativeMessagingHosts'), { recursive: true });
    const victim = path.join(planted.homedir, 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 AAAA precious\n');
    fs.symlinkSync(victim, path.join(shared, 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`));
    const linked = await install({ ...planted, home: path.join(planted.homedir, 'state'), userDataDir: shared });
    expect(linked.ok).toBe(false);
    expect(linked.targets[0]?.problem).toMatch(/is a link; comet-relay writes nothing through it/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA precious\n');

    // The profile folder everyone may write (a /tmp/profile made open): nothing written, and why.
    const open = linuxSetup();
    const openProfile = path.join(open.homedir, 'open-profile');
    fs.mkdirSync(openProfile);
    fs.chmodSync(openProfile, 0o777);
    const opened = await install({ ...open, home: path.join(open.homedir, 'state'), userDataDir: openProfile });
    expect(opened.targets[0]?.problem).toMatch(/^wrote no manifest: .*open-profile can be written by every user \(mode 777\), so another user could change what your browser starts$/);
    expect(opened.targets[0]?.fix).toBe('pass a --user-data-dir inside a folder of your own (`mktemp -d` makes one), then install again with it');
    expect(fs.existsSync(path.join(openProfile, 'NativeMessagingHosts'))).toBe(false);
    // A profile not there yet, under a folder all may write that is not sticky: whoever may write there could swap it
    // later (review 11g, G1). A sticky one (as /tmp) is no such place.
    const under = path.join(openProfile, 'me');
    expect((await install({ ...open, home: path.join(open.homedir, 'state'), userDataDir: under })).targets[0]?.problem).toMatch(/open-profile can be written by every user/);
    expect(fs.existsSync(under)).toBe(false);
    fs.chmodSync(openProfile, 0o1777);
    expect((await install({ ...open, home: path.join(open.homedir, 'state'), userDataDir: under })).ok).toBe(true);

    // Another user's folder, as the file system reports its owner.
    const theirs = linuxSetup();
    const theirProfile = path.join(theirs.homedir, 'their-profile');
    fs.mkdirSync(theirProfile);
    const owned = { ...fs, statSync: (file: string) => Object.assign(fs.statSync(file), file === theirProfile ? { uid: 4242 } : {}) } as unknown as typeof fs;
    const refused = await install({ ...theirs, fs: owned as never, home: path.join(theirs.homedir, 'state'), userDataDir: theirProfile });
    expect(refused.targets[0]?.problem).toMatch(/their-profile belongs to user 4242, not to you/);
    expect(fs.existsSync(path.join(theirProfile, 'NativeMessagingHosts'))).toBe(false);
  });

  it('as root under sudo, with no folder named: refused, nothing written (review 11f, F6)', async () => {
    const setup = linuxSetup({ SUDO_USER: 'alice', SUDO_UID: '1000' });
    await expect(install({ ...setup, browsers: ['chromium'], uid: 0 })).rejects.toThrow(
      /^install runs as root under sudo \(for alice\): what it writes \(the launcher, the token, the browsers' manifests\) would be root's, which alice's browser cannot run\. Nothing was written\. Run `.*install` as alice, without sudo\.$/,
    );
    expect(fs.existsSync(path.join(setup.homedir, '.local'))).toBe(false);
    // COMET_RELAY_HOME kept by `sudo -E` is no folder named for this run (review 11g, G3).
    await expect(install({ ...setup, env: { ...setup.env, COMET_RELAY_HOME: path.join(setup.homedir, 'relay') }, browsers: ['chromium'], uid: 0 })).rejects.toThrow(/^install runs as root under sudo/);
    // Folders named on the command line are the person's choice (a test harness run as root).
    const named = await install({ ...setup, userDataDir: path.join(setup.homedir, 'profile'), home: path.join(setup.homedir, 'relay'), uid: 0 });
    expect(named.ok).toBe(true);
  });

  it('COMET_RELAY_HOME in the environment is baked too, so the browser-started host meets the clients', async () => {
    const setup = linuxSetup();
    const home = path.join(setup.homedir, 'env-home');
    const report = await install({ ...setup, env: { COMET_RELAY_HOME: home }, browsers: ['chromium'] });
    expect(report.home).toBe(home);
    expect(fs.readFileSync(report.launcherPath, 'utf8')).toContain(`COMET_RELAY_HOME='${home}'`);
  });

  it('reports a missing CLI and a missing node with what to do', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, cliPath: path.join(setup.homedir, 'nope', 'cli.js'), nodePath: '/nonexistent/node', browsers: ['chromium'] });
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.message)).toEqual([
      'node was not found at /nonexistent/node',
      expect.stringContaining('cli.js does not exist (not built yet?)'),
    ]);
    // The manifest check follows the launcher to node and the CLI, too.
    expect(report.targets[0]?.problem).toContain('the launcher runs node at /nonexistent/node, which does not exist');
    expect(report.lines.join('\n')).toContain('fix: run: npm run build, then install again');
  });

  it('keeps an existing token', async () => {
    const setup = linuxSetup();
    const first = await install({ ...setup, browsers: ['chromium'] });
    const token = fs.readFileSync(first.token?.path as string, 'utf8');
    const second = await install({ ...setup, browsers: ['chromium'] });
    expect(second.token?.created).toBe(false);
    expect(fs.readFileSync(second.token?.path as string, 'utf8')).toBe(token);
  });
});

describe('install on macOS', () => {
  it('writes Comet into the candidate folder that exists, or into both when neither does', async () => {
    const setup = { ...linuxSetup(), platform: 'darwin' as const };
    const support = path.join(setup.homedir, 'Library', 'Application Support');
    let report = await install({ ...setup, browsers: ['comet'] });
    expect(report.targets.map((t) => t.manifestPath)).toEqual([
      path.join(support, 'Comet', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`),
      path.join(support, 'Perplexity', 'Comet', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`),
    ]);
    expect(report.stateDir).toBe(path.join(support, 'comet-relay'));

    const other = { ...linuxSetup(), platform: 'darwin' as const };
    fs.mkdirSync(path.join(other.homedir, 'Library', 'Application Support', 'Perplexity', 'Comet'), { recursive: true });
    report = await install({ ...other, browsers: ['comet'] });
    expect(report.targets.map((t) => t.manifestPath)).toEqual([path.join(other.homedir, 'Library', 'Application Support', 'Perplexity', 'Comet', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`)]);
  });
});

describe('install on Windows', () => {
  const winSetup = () => {
    const fs = memoryFs();
    fs.mkdirSync('C:\\Program Files\\nodejs', { recursive: true });
    fs.writeFileSync('C:\\Program Files\\nodejs\\node.exe', 'MZ');
    fs.mkdirSync('C:\\src\\comet-relay\\dist', { recursive: true });
    fs.writeFileSync('C:\\src\\comet-relay\\dist\\cli.js', '// built');
    fs.mkdirSync('C:\\Users\\ann\\AppData\\Local\\Perplexity\\Comet\\User Data', { recursive: true });
    const reg = fakeReg();
    return {
      reg,
      fs,
      options: {
        platform: 'win32' as const,
        homedir: 'C:\\Users\\ann',
        env: { LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' },
        fs,
        exec: reg.exec,
        nodePath: 'C:\\Program Files\\nodejs\\node.exe',
        cliPath: 'C:\\src\\comet-relay\\dist\\cli.js',
      },
    };
  };

  it('writes a .bat launcher and registers each manifest under HKCU with reg add', async () => {
    const { reg, fs, options } = winSetup();
    const report = await install({ ...options, browsers: 'all' });
    expect(report.ok).toBe(true);
    const state = 'C:\\Users\\ann\\AppData\\Local\\comet-relay';
    expect(report.launcherPath).toBe(`${state}\\bin\\comet-relay-host.bat`);
    expect(fs.readFileSync(report.launcherPath, 'utf8')).toContain('set "CR_NODE=C:\\Program Files\\nodejs\\node.exe"');

    const adds = reg.calls.filter((c) => c[1] === 'add');
    // Only Comet's user data folder exists: Chrome and Chromium get no key and no folder.
    expect(adds).toEqual([
      ['reg', 'add', 'HKCU\\Software\\Perplexity\\Comet\\NativeMessagingHosts\\com.comet_relay.host', '/ve', '/t', 'REG_SZ', '/d', `${state}\\NativeMessagingHosts\\comet\\com.comet_relay.host.json`, '/f'],
    ]);
    const manifest = JSON.parse(fs.readFileSync(`${state}\\NativeMessagingHosts\\comet\\com.comet_relay.host.json`, 'utf8'));
    expect(manifest.path).toBe(report.launcherPath);
    expect(report.targets.find((t) => t.target === 'brave')).toMatchObject({ skipped: true });
    expect(report.lines.join('\n')).toContain('registered at HKCU\\Software\\Perplexity\\Comet\\NativeMessagingHosts\\com.comet_relay.host');
  });

  it('reports a failing reg add with the fix', async () => {
    const { options } = winSetup();
    const report = await install({ ...options, browsers: ['edge'], exec: async () => ({ code: 1, stdout: '', stderr: 'ERROR: Access is denied.' }) });
    expect(report.ok).toBe(false);
    expect(report.targets[0]?.problem).toContain('reg add HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.comet_relay.host failed (exit 1): ERROR: Access is denied.');
    expect(report.targets[0]?.fix).toContain(cliCommand('install --browser edge'));
  });

  it('uninstall deletes the keys, the manifests and the launcher, and keeps the token', async () => {
    const { reg, fs, options } = winSetup();
    const installed = await install({ ...options, browsers: ['chrome', 'comet'] });
    const result = await uninstall({ ...options });
    expect(result.ok).toBe(true);
    expect(reg.values.size).toBe(0);
    expect(reg.calls.filter((c) => c[1] === 'delete').map((c) => c[2])).toEqual([
      'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.comet_relay.host',
      'HKCU\\Software\\Perplexity\\Comet\\NativeMessagingHosts\\com.comet_relay.host',
    ]);
    expect(fs.existsSync(installed.launcherPath)).toBe(false);
    expect(fs.existsSync(installed.token?.path as string)).toBe(true);
    // Only what is there: no logs folder was ever made here (new-user review #19).
    expect(result.lines.join('\n')).toContain(`kept     ${installed.token?.path} (remove it with --purge)`);
  });
});

describe('verification', () => {
  it('catches a manifest admitting another extension and a launcher that is not executable', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chromium'] });
    const manifestPath = report.targets[0]?.manifestPath as string;
    const { verifyManifest } = await import('../../lib/install/verify');
    const { resolveSystem } = await import('../../lib/install/system');
    const sys = resolveSystem({ platform: 'linux', homedir: setup.homedir, env: {} });

    const manifest = readJson(manifestPath);
    manifest.allowed_origins = ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/'];
    fs.writeFileSync(manifestPath, JSON.stringify(manifest));
    fs.chmodSync(report.launcherPath, 0o644);

    const check = verifyManifest(sys, manifestPath, { installCommand: 'npx comet-relay install --browser chromium' });
    expect(check.ok).toBe(false);
    expect(check.problems.map((p) => p.message)).toEqual([
      `the manifest admits extension chrome-extension://abcdefghijklmnopabcdefghijklmnop/ but the installed comet-relay extension is ${EXTENSION_ORIGIN}, so the browser refuses to start the host ("Access to the specified native messaging host is forbidden")`,
      `the host program ~/.local/state/comet-relay/bin/comet-relay-host is not executable`,
    ]);
    expect(check.problems[1]?.fix).toContain(`chmod 755 ${report.launcherPath}`);

    fs.writeFileSync(manifestPath, '{ not json');
    expect(verifyManifest(sys, manifestPath, { installCommand: 'x' }).problems[0]?.message).toContain('is not valid JSON');
  });
});

describe('uninstall leaves what another install registered', () => {
  it('Linux: uninstall --home B keeps the manifest that points at home A\'s launcher, and says so', async () => {
    const setup = linuxSetup();
    const homeA = path.join(setup.homedir, 'home-a');
    const homeB = path.join(setup.homedir, 'home-b');
    const a = await install({ ...setup, home: homeA, browsers: ['chrome'] });
    const manifest = a.targets[0]?.manifestPath as string;
    const result = await uninstall({ ...setup, home: homeB, browsers: ['chrome'] });
    expect(readJson(manifest).path).toBe(a.launcherPath);
    expect(result.removed).toEqual([]);
    expect(result.kept.join('\n')).toMatch(/com\.comet_relay\.host\.json \(points at .*home-a.*comet-relay-host, another install's launcher: uninstall with --home .*home-a to remove it\)/);
    // Its own registration still goes.
    const gone = await uninstall({ ...setup, home: homeA, browsers: ['chrome'] });
    expect(gone.removed).toContain(manifest);
    expect(fs.existsSync(manifest)).toBe(false);
  });

  it('Linux: --user-data-dir removes that profile\'s manifest only when it points at this install', async () => {
    const setup = linuxSetup();
    const profile = path.join(setup.homedir, 'profile');
    fs.mkdirSync(profile);
    const a = await install({ ...setup, home: path.join(setup.homedir, 'home-a'), userDataDir: profile });
    const manifest = a.targets[0]?.manifestPath as string;
    const result = await uninstall({ ...setup, home: path.join(setup.homedir, 'home-b'), userDataDir: profile });
    expect(fs.existsSync(manifest)).toBe(true);
    expect(result.kept.join('\n')).toMatch(/another install's launcher/);
  });

  it('Windows: uninstall --home B keeps the HKCU key and manifest of home A', async () => {
    const fsw = memoryFs();
    fsw.mkdirSync('C:\\Program Files\\nodejs', { recursive: true });
    fsw.writeFileSync('C:\\Program Files\\nodejs\\node.exe', 'MZ');
    fsw.mkdirSync('C:\\src\\comet-relay\\dist', { recursive: true });
    fsw.writeFileSync('C:\\src\\comet-relay\\dist\\cli.js', '// built');
    const reg = fakeReg();
    const options = {
      platform: 'win32' as const,
      homedir: 'C:\\Users\\ann',
      env: { LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' },
      fs: fsw,
      exec: reg.exec,
      nodePath: 'C:\\Program Files\\nodejs\\node.exe',
      cliPath: 'C:\\src\\comet-relay\\dist\\cli.js',
    };
    const a = await install({ ...options, home: 'C:\\relay-a', browsers: ['chrome'] });
    const result = await uninstall({ ...options, home: 'C:\\relay-b', browsers: ['chrome'] });
    expect(reg.values.get('hkcu\\software\\google\\chrome\\nativemessaginghosts\\com.comet_relay.host')).toBe(a.targets[0]?.manifestPath);
    expect(reg.calls.filter((c) => c[1] === 'delete')).toEqual([]);
    expect(fsw.existsSync(a.targets[0]?.manifestPath as string)).toBe(true);
    expect(result.kept.join('\n')).toMatch(/HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com\.comet_relay\.host \(points at .*relay-a.*another install's launcher/i);
  });
});

describe('uninstall on Linux', () => {
  it('keeps the launcher an `install --user-data-dir` manifest still runs, names it, and lets it go once that is uninstalled too (review 2026-12-05, relay #4)', async () => {
    const setup = linuxSetup();
    const profile = path.join(setup.homedir, 'test-profile');
    fs.mkdirSync(profile);
    const report = await install({ ...setup, browsers: ['chrome'] });
    const custom = await install({ ...setup, userDataDir: profile });
    const customManifest = custom.targets[0]?.manifestPath as string;
    const chromeOnly = await uninstall({ ...setup, browsers: ['chrome'] });
    expect(chromeOnly.removed).toEqual([report.targets[0]?.manifestPath]);
    expect(fs.existsSync(report.launcherPath)).toBe(true);
    expect(chromeOnly.kept.join('\n')).toContain(`still used by --user-data-dir ${profile.replace(setup.homedir, '~')}`);
    expect(fs.existsSync(customManifest)).toBe(true);
    const last = await uninstall({ ...setup, userDataDir: profile });
    expect(last.removed).toEqual(expect.arrayContaining([customManifest, report.launcherPath]));
    expect(fs.existsSync(report.launcherPath)).toBe(false);
  });

  it('keeps the launcher while another browser still uses it; --purge removes token, logs and records', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chrome', 'chromium'] });
    fs.mkdirSync(path.join(report.stateDir, 'logs'));
    fs.writeFileSync(path.join(report.stateDir, 'logs', 'host.log'), '2026-12-06T03:00:00.000Z INFO [42] host started\n');
    fs.writeFileSync(path.join(report.stateDir, 'notes.txt'), 'not ours');

    const partial = await uninstall({ ...setup, browsers: ['chrome'] });
    expect(partial.removed).toEqual([report.targets[0]?.manifestPath]);
    expect(partial.kept[0]).toContain('still used by chromium');
    expect(fs.existsSync(report.launcherPath)).toBe(true);

    const purge = await uninstall({ ...setup, purge: true });
    expect(purge.ok).toBe(true);
    expect(fs.existsSync(report.targets[1]?.manifestPath as string)).toBe(false);
    expect(fs.existsSync(report.launcherPath)).toBe(false);
    expect(fs.existsSync(path.join(report.stateDir, 'token'))).toBe(false);
    expect(fs.existsSync(path.join(report.stateDir, 'logs'))).toBe(false);
    // Only files it knows by name: anything else in the folder stays.
    expect(fs.readFileSync(path.join(report.stateDir, 'notes.txt'), 'utf8')).toBe('not ours');
  });

  it('--purge with a --home that holds other files removes only what comet-relay created there', async () => {
    const setup = linuxSetup();
    const report = await install({ ...setup, browsers: ['chromium'] });
    const state = report.stateDir;
    const put = (relative: string, text = 'x') => {
      fs.mkdirSync(path.dirname(path.join(state, relative)), { recursive: true });
      fs.writeFileSync(path.join(state, relative), text);
    };
    // Ours: logs (rotated too), a discovery record and its temp file, a remembered profile, a socket file, the tokens.
    for (const ours of ['public-token', 'hosts/0123456789abcdef.json.4242.tmp', 'run/0123456789abcdef.sock']) put(ours);
    // Logs as the logger and the launcher write them (a rotated copy may start mid-line), and an empty one.
    put('logs/host.log', '2026-12-06T03:00:00.000Z INFO [42] host started {"profile":"Work"}\n');
    put('logs/host.log.2', 'ile":"Work"}\n2026-12-05T03:00:00.000Z WARN [41] a page went away\n');
    put('logs/mcp.log', '');
    put('logs/serve.log.1', "2026-12-06T03:00:00 comet-relay launcher: cannot start the host: node (/usr/bin/node) or the CLI (/x) is missing.\n");
    const record = { profileId: '0123456789abcdef', profileLabel: 'Work', browser: { name: 'Chromium', version: '156' }, extensionVersion: '0.1.0', hostVersion: '0.1.0', socketPath: '/run/x.sock', pid: 42, startedAt: 't', connectedAt: 't' };
    put('hosts/0123456789abcdef.json', JSON.stringify(record));
    put('profiles/0123456789abcdef.json', JSON.stringify({ profileId: '0123456789abcdef', profileLabel: 'Work' }));
    // Not ours, in the same folders: a --home shared with other tools (a bin/ of the user's own!), and files whose names
    // fit our records' but hold another program's JSON (review 11f, F4).
    const theirs = ['bin/my-script.sh', 'logs/nginx.log', 'logs/host.log.backup', 'hosts/known_hosts', 'run/postgres.pid', 'NativeMessagingHosts/other.json', 'notes.txt'];
    for (const file of theirs) put(file, 'not ours');
    const theirJson = ['hosts/inventory.json', 'profiles/settings.json', 'hosts/0123456789abcdef0.json'];
    for (const file of theirJson) put(file, JSON.stringify({ all: { hosts: ['web1'] } }));
    // And a log of our names that another program writes (review 11g).
    put('logs/serve.log', '[notice] nginx started\n');
    theirs.push(...theirJson, 'logs/serve.log');

    const purge = await uninstall({ ...setup, purge: true });
    expect(purge.ok).toBe(true);
    for (const ours of ['token', 'public-token', 'logs/host.log', 'logs/host.log.2', 'logs/mcp.log', 'logs/serve.log.1', 'hosts/0123456789abcdef.json', 'hosts/0123456789abcdef.json.4242.tmp', 'profiles/0123456789abcdef.json', 'run/0123456789abcdef.sock']) {
      expect(fs.existsSync(path.join(state, ours)), ours).toBe(false);
    }
    for (const file of theirs) expect(fs.existsSync(path.join(state, file)), file).toBe(true);
    expect(fs.existsSync(report.launcherPath)).toBe(false);
    expect(purge.lines.join('\n')).toMatch(/kept .*bin .*not created by comet-relay/);
    // What it removed is listed, the public door's credential by name.
    expect(purge.lines.join('\n')).toMatch(/removed +\S*public-token/);
  });

  it('says so when there is nothing to remove', async () => {
    const setup = linuxSetup();
    const result = await uninstall({ ...setup, browsers: ['edge'] });
    expect(result.removed).toEqual([]);
    expect(result.lines[0]).toContain('Nothing to remove');
  });
});
