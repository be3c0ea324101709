import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { exitCodeOf } from '../../lib/cli/usage';
import { doctor } from '../../lib/install/doctor';
import { install, resolveState, uninstall } from '../../lib/install/install';
import { ensureToken, rotateToken } from '../../lib/install/token';
import { RelayError } from '../../lib/protocol/errors';
import { cliCommand } from '../../lib/relay/invocation';
import { codeCacheDirFor, customManifestsPath, stateDir } from '../../lib/relay/paths';
import { linuxInstallHome } from '../support/install-home';

/**
 * The faults of the new-user review of the CLI (2026-12-05) in install, uninstall, the state folder
 * and the token: each test failed before its fix.
 */

/** An install for a browser started with --user-data-dir, in a state folder of its own. */
/** The file system as the person sees it when `dir` is not theirs to read (this test runs as root, which reads everything). */
function refusingToRead(dir: string): typeof fs {
  return {
    ...fs,
    readdirSync: ((file: fs.PathLike, ...rest: unknown[]) => {
      if (path.resolve(String(file)) === dir) throw Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' });
      return (fs.readdirSync as (...a: unknown[]) => unknown)(file, ...rest);
    }) as typeof fs.readdirSync,
  };
}

/** An install into the default state folder, for a Chromium that has its profile folder. */
async function defaultInstall() {
  const setup = linuxInstallHome('install-ux');
  fs.mkdirSync(path.join(setup.homedir, '.config', 'chromium'), { recursive: true });
  return { setup, report: await install({ ...setup, browsers: ['chromium'] }) };
}

async function userDataDirInstall() {
  const setup = linuxInstallHome('install-ux');
  const home = path.join(setup.homedir, 'home2');
  const profile = path.join(setup.homedir, 'udd2');
  const report = await install({ ...setup, browsers: ['chromium'], home, userDataDir: profile });
  expect(report.ok).toBe(true);
  const manifest = report.targets[0]?.manifestPath as string;
  return { setup, home, profile, manifest, launcher: report.launcherPath };
}

describe('#3 uninstall takes the --user-data-dir registrations it remembers, and never purges the record of one left (new-user review #3)', () => {
  it('#3: uninstall --home H removes the manifest install --user-data-dir wrote, then the launcher', async () => {
    const { setup, home, manifest, launcher } = await userDataDirInstall();
    const result = await uninstall({ ...setup, home });
    expect(result.ok).toBe(true);
    expect(fs.existsSync(manifest)).toBe(false);
    expect(fs.existsSync(launcher)).toBe(false);
    expect(result.removed).toEqual(expect.arrayContaining([manifest, launcher]));
    expect(result.lines.join('\n')).not.toContain('Nothing to remove');
  });

  it('#3: uninstall --home H --purge leaves no manifest behind, and no ✘ pointing to `--browser all`', async () => {
    const { setup, home, manifest } = await userDataDirInstall();
    const result = await uninstall({ ...setup, home, purge: true });
    expect(result.ok).toBe(true);
    expect(fs.existsSync(manifest)).toBe(false);
    expect(fs.existsSync(home)).toBe(false);
    expect(result.lines.join('\n')).not.toContain('--browser all');
  });

  it('#3: narrowed to a browser, --purge keeps the record while the manifest it lists is there, and names the exact uninstall', async () => {
    const { setup, home, profile, manifest } = await userDataDirInstall();
    const exact = cliCommand(`uninstall --user-data-dir ${profile} --home ${home}`);
    const result = await uninstall({ ...setup, home, browsers: ['chrome'], purge: true });
    expect(fs.existsSync(manifest)).toBe(true);
    expect(fs.existsSync(customManifestsPath(home))).toBe(true);
    const text = result.lines.join('\n');
    expect(text).toContain(`still point at the removed launcher; remove them with: ${exact}`);
    expect(text).not.toContain('--browser all');
    expect(text).not.toMatch(/installs \(holds files not created by comet-relay\)/);
    // The command it names works, and a purge after it leaves nothing.
    const after = await uninstall({ ...setup, home, userDataDir: profile });
    expect(after.removed).toContain(manifest);
    await uninstall({ ...setup, home, purge: true });
    expect(fs.existsSync(home)).toBe(false);
  });

  it('#3: a report that keeps something never begins with "Nothing to remove", and names what removes a --user-data-dir one', async () => {
    const { setup, home, profile } = await userDataDirInstall();
    const result = await uninstall({ ...setup, home, browsers: ['chrome'] });
    expect(result.removed).toEqual([]);
    expect(result.lines[0]).toBe('Nothing was removed: what stands, and why, is said below.');
    expect(result.lines.join('\n')).toContain(`still used by --user-data-dir ~/udd2; ${cliCommand(`uninstall --user-data-dir ${profile} --home ${home}`)} removes that registration`);
  });
});

describe('#19 uninstall says it keeps only what is there (new-user review #19)', () => {
  it('#19: no logs folder, none named; one there, named', async () => {
    const setup = linuxInstallHome('install-ux');
    const report = await install({ ...setup, browsers: ['chromium'] });
    const result = await uninstall({ ...setup });
    const kept = result.kept.join('\n');
    expect(kept).toContain('~/.local/state/comet-relay/token (remove it with --purge)');
    expect(kept).not.toContain('logs');
    await install({ ...setup, browsers: ['chromium'] });
    fs.mkdirSync(path.join(report.stateDir, 'logs'));
    expect((await uninstall({ ...setup })).kept.join('\n')).toContain('~/.local/state/comet-relay/token and ~/.local/state/comet-relay/logs (remove them with --purge)');
  });
});

describe('#5 a state folder that is a file is said once, as what to pass instead (new-user review #5)', () => {
  const fileHome = () => {
    const setup = linuxInstallHome('install-ux');
    const file = path.join(setup.homedir, 'homefile');
    fs.writeFileSync(file, '');
    return { setup, file };
  };
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error as RelayError;
    }
    throw new Error('not refused');
  };

  it('#5: --home FILE: a CONFIG_ERROR that exits 2, before anything is made in it', async () => {
    const { setup, file } = fileHome();
    const error = refusal(() => resolveState({ ...setup, home: file }));
    expect(error).toBeInstanceOf(RelayError);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe(`--home ${file} is a file, not a folder: pass a folder with --home DIR (it is created for you).`);
    expect(exitCodeOf(error)).toBe(2);
    await expect(install({ ...setup, browsers: ['chromium'], home: file })).rejects.toThrow(`--home ${file} is a file, not a folder`);
    await expect(doctor({ ...setup, home: file, listHosts: () => [] })).rejects.toThrow(`--home ${file} is a file, not a folder`);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });

  it('#5: a folder under a file names the file; COMET_RELAY_HOME says to set it', () => {
    const { setup, file } = fileHome();
    expect(refusal(() => resolveState({ ...setup, home: path.join(file, 'sub') })).message).toBe(
      `--home ${path.join(file, 'sub')} cannot be a folder: ${file} is a file, not a folder; pass a folder with --home DIR (it is created for you).`,
    );
    const byEnv = refusal(() => stateDir({ env: { COMET_RELAY_HOME: file } }));
    expect(byEnv.message).toBe(`COMET_RELAY_HOME=${file} is a file, not a folder: set COMET_RELAY_HOME to a folder (it is created for you).`);
    expect(exitCodeOf(byEnv)).toBe(2);
    // A folder, or one that can be made, is taken as before.
    expect(stateDir({ env: { COMET_RELAY_HOME: path.join(setup.homedir, 'new', 'home') } })).toBe(path.join(setup.homedir, 'new', 'home'));
  });
});

describe('#12 the code cache goes into the state folder the command line names (new-user review #12)', () => {
  it('#12: --home DIR (or --home=DIR) before any `--` decides; none for uninstall --purge, which would put it back', () => {
    const folders = new Set(['/tmp/h2', '/tmp/h3', '/srv/env-home']);
    const stat = (file: string) => {
      if (!folders.has(file)) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      return { isDirectory: () => true };
    };
    const pathEnv = { env: { COMET_RELAY_HOME: '/srv/env-home' }, stat, realpath: (file: string) => file };
    expect(codeCacheDirFor(['token', '--home', '/tmp/h2'], pathEnv)).toBe('/tmp/h2/cache');
    expect(codeCacheDirFor(['install', '--browser', 'chromium', '--home=/tmp/h3'], pathEnv)).toBe('/tmp/h3/cache');
    expect(codeCacheDirFor(['token'], pathEnv)).toBe('/srv/env-home/cache');
    expect(codeCacheDirFor(['export', '--', '--home', '/tmp/h4'], pathEnv)).toBe('/srv/env-home/cache');
    expect(codeCacheDirFor(['uninstall', '--home', '/tmp/h2', '--purge'], pathEnv)).toBeUndefined();
    // The last --home, as the command's flag parser takes it (day-5 review F4).
    expect(codeCacheDirFor(['token', '--home', '/tmp/h2', '--home', '/tmp/h3'], pathEnv)).toBe('/tmp/h3/cache');
  });

  it('never makes a folder for the cache: a mistyped --home gets none; nor root under sudo, in a folder that is the person’s (day-5 review F1, F4)', () => {
    const stat = (file: string) => {
      if (file !== '/tmp/there') throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      return { isDirectory: () => true };
    };
    expect(codeCacheDirFor(['token', '--home', '/tmp/tpyo'], { stat }, 1000)).toBeUndefined();
    expect(codeCacheDirFor(['token', '--home', '/tmp/there'], { stat }, 1000)).toBe('/tmp/there/cache');
    expect(codeCacheDirFor(['token', '--home', '/tmp/there'], { stat, env: { SUDO_UID: '1000', SUDO_USER: 'me' } }, 0)).toBeUndefined();
    expect(codeCacheDirFor(['token', '--home', '/tmp/there'], { stat, env: {}, realpath: (f) => f }, 0)).toBe('/tmp/there/cache');
    // Root by another way than sudo (doas, pkexec, `sudo su -`): a folder of the person's is theirs (day-6 review F1).
    const theirs = (file: string) => ({ ...stat(file), uid: 1000 });
    expect(codeCacheDirFor(['token', '--home', '/tmp/there'], { stat: theirs, env: {} }, 0)).toBeUndefined();
    expect(codeCacheDirFor(['token', '--home', '/tmp/there'], { stat: theirs, env: {} }, 1000)).toBe('/tmp/there/cache');
    // Root, a link on the way (a parent folder the person may switch): none (day-7b review G1).
    expect(codeCacheDirFor(['token', '--home', '/tmp/l/there'], { stat, env: {}, realpath: () => '/srv/there' }, 0)).toBeUndefined();
    // A real link, as root by doas or pkexec finds it: the person's --home leads to a folder of root's (day-7 review F1).
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-cache-link-'));
    try {
      fs.mkdirSync(path.join(scratch, 'var'));
      fs.symlinkSync(path.join(scratch, 'var'), path.join(scratch, 'state'));
      const own = fs.statSync(path.join(scratch, 'var')).uid;
      expect(codeCacheDirFor(['token', '--home', path.join(scratch, 'var')], { env: {} }, own)).toBe(path.join(scratch, 'var', 'cache'));
      expect(codeCacheDirFor(['token', '--home', path.join(scratch, 'state')], { env: {} }, own)).toBeUndefined();
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('#13 a state folder open to others: one rule, kept by install, token and doctor alike (new-user review #13)', () => {
  const sharedHome = () => {
    const setup = linuxInstallHome('install-ux');
    fs.mkdirSync(path.join(setup.homedir, '.config', 'chromium'), { recursive: true });
    const shared = path.join(setup.homedir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    return { setup, shared };
  };

  it('#13: token refuses a chosen folder install refuses, writes nothing there, and leaves its mode', () => {
    const { setup, shared } = sharedHome();
    expect(() => ensureToken(shared, { env: {}, homedir: setup.homedir })).toThrow(/^The state folder .*shared \(--home or COMET_RELAY_HOME\) is open to others \(mode 777\)/);
    expect(() => ensureToken(shared, { env: {}, homedir: setup.homedir })).toThrow(`which is created for you: pass --home ${path.join(shared, 'comet-relay')}; or, if the folder is yours alone, run: chmod 700 ${shared}`);
    // From COMET_RELAY_HOME (serve): the setting to change.
    expect(() => ensureToken(shared, { env: { COMET_RELAY_HOME: shared }, homedir: setup.homedir })).toThrow(`export COMET_RELAY_HOME=${path.join(shared, 'comet-relay')} (where COMET_RELAY_HOME is set)`);
    expect(() => rotateToken(shared, { env: {}, homedir: setup.homedir })).toThrow(/is open to others/);
    expect(fs.readdirSync(shared)).toEqual([]);
    expect(fs.statSync(shared).mode & 0o777).toBe(0o777);
  });

  it("#13: comet-relay's own default folder is made 700 by token, as by install and the host", () => {
    const setup = linuxInstallHome('install-ux');
    const own = path.join(setup.homedir, '.local', 'state', 'comet-relay');
    fs.mkdirSync(own, { recursive: true });
    fs.chmodSync(own, 0o755);
    expect(ensureToken(own, { env: {}, homedir: setup.homedir })).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.statSync(own).mode & 0o777).toBe(0o700);
  });

  it("#13: doctor fails the folder first, with install's two ways out, and each of them works", async () => {
    const { setup, shared } = sharedHome();
    const refused = await install({ ...setup, browsers: ['chromium'], home: shared });
    expect(refused.ok).toBe(false);
    const report = await doctor({ ...setup, home: shared, listHosts: () => [] });
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed[0]).toMatchObject({ name: 'state folder', detail: expect.stringContaining('is open to others (mode 777)') });
    const fix = String(failed[0]?.fix);
    const own = path.join(shared, 'comet-relay');
    expect(fix).toContain(cliCommand(`install --home ${own}`));
    expect(fix).toContain(`chmod 700 ${shared}`);
    // The first way: the folder of comet-relay's own inside it installs.
    expect((await install({ ...setup, browsers: ['chromium'], home: own })).ok).toBe(true);
    // The second: once it is closed, install takes it and doctor no longer names it.
    fs.chmodSync(shared, 0o700);
    expect((await install({ ...setup, browsers: ['chromium'], home: shared })).ok).toBe(true);
    expect((await doctor({ ...setup, home: shared, listHosts: () => [] })).checks.map((c) => c.name)).not.toContain('state folder');
  });

  it("#13: doctor fails comet-relay's own default folder open to others with the chmod that closes it", async () => {
    const { setup, report } = await defaultInstall();
    fs.chmodSync(report.stateDir, 0o750);
    const check = (await doctor({ ...setup, listHosts: () => [] })).checks.find((c) => c.name === 'state folder');
    expect(check).toMatchObject({ ok: false, fix: expect.stringMatching(new RegExp(`^run: chmod 700 ${report.stateDir}`)) });
  });
});

describe('uninstall --purge and a folder it cannot read (review 2026-12-05, day 5, F2)', () => {
  it('says the folder it could not read, never "Nothing to remove", and the state folder stays named', async () => {
    const { setup, home } = await userDataDirInstall();
    const cache = path.join(home, 'cache');
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(path.join(cache, 'commands.js.cache'), 'x');
    // A folder root made under sudo: the person may not read it (root reads everything here, so the refusal is played).
    const guarded = refusingToRead(cache);
    const result = await uninstall({ ...setup, home, purge: true, fs: guarded as never });
    const said = result.lines.join('\n');
    expect(said).not.toContain('Nothing to remove');
    expect(said).toContain(cache.replace(setup.homedir, '~'));
    expect(result.ok).toBe(false);
    expect(fs.existsSync(home)).toBe(true);
  });
});

describe("uninstall --purge and an unreadable folder of another user's in a shared --home (day-7 review F2)", () => {
  it('keeps it and says whose it is, with the way out only if comet-relay alone uses it; the purge itself succeeds', async () => {
    const { setup, home } = await userDataDirInstall();
    const logs = path.join(home, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    fs.writeFileSync(path.join(logs, 'backup-2026.log'), 'another program’s');
    const guarded = refusingToRead(logs);
    // The folder is root's and the person runs uninstall (this test runs as root: the person's uid is played).
    const me = vi.spyOn(process, 'getuid').mockReturnValue(4242);
    try {
      const result = await uninstall({ ...setup, home, purge: true, fs: guarded as never });
      const said = result.lines.join('\n');
      expect(result.ok, said).toBe(true);
      expect(said).toContain(`${logs.replace(setup.homedir, '~')} (it belongs to root and cannot be read, so whether comet-relay's files are in it cannot be seen; if only comet-relay uses it, \`sudo rm -r ${logs}\` removes it)`);
      expect(said).not.toMatch(/✘/);
      expect(fs.readdirSync(logs)).toEqual(['backup-2026.log']);
    } finally {
      me.mockRestore();
    }
  });

  it('in the default state folder, which only comet-relay uses, such a folder is ours: the purge is not done (day-7b review G2)', async () => {
    const { setup, report } = await defaultInstall();
    const cache = path.join(report.stateDir, 'cache');
    fs.mkdirSync(cache, { recursive: true });
    const guarded = refusingToRead(cache);
    const me = vi.spyOn(process, 'getuid').mockReturnValue(4242);
    try {
      const result = await uninstall({ ...setup, purge: true, fs: guarded as never });
      expect(result.ok).toBe(false);
      expect(result.lines.join('\n')).toContain(`could not read ${cache.replace(setup.homedir, '~')} (EACCES): it belongs to root and \`sudo rm -r ${cache}\` removes it; then run the same uninstall again`);
      // The same folder named with --home is still the default one (day-7c review I2).
      const named = await uninstall({ ...setup, home: report.stateDir, purge: true, fs: guarded as never });
      expect(named.ok).toBe(false);
    } finally {
      me.mockRestore();
    }
  });

  it('the uploads folder too: one that cannot be read is said so, never as holding files not ours (day-7c review I1)', async () => {
    const { setup, report } = await defaultInstall();
    const uploads = path.join(report.stateDir, 'attachments');
    fs.mkdirSync(uploads, { recursive: true });
    const guarded = refusingToRead(uploads);
    const result = await uninstall({ ...setup, purge: true, fs: guarded as never });
    const said = result.lines.join('\n');
    expect(result.ok).toBe(false);
    expect(said).toContain(`could not read ${uploads.replace(setup.homedir, '~')} (EACCES): make it readable or remove it yourself; then run the same uninstall again`);
    expect(said).not.toContain('holds files not created by comet-relay');
  });

  it('an upload folder whose meta.json is a folder is not ours: left, said as such, the purge done (day-7e review E5)', async () => {
    const { setup, report } = await defaultInstall();
    fs.mkdirSync(path.join(report.stateDir, 'attachments', 'mine', 'meta.json'), { recursive: true });
    const result = await uninstall({ ...setup, purge: true });
    expect(result.ok).toBe(true);
    expect(result.lines.join('\n')).toContain('attachments (holds files not created by comet-relay)');
  });

  it('an upload folder whose meta.json cannot be read: said so, never as files not ours (day-7d review F2)', async () => {
    const { setup, report } = await defaultInstall();
    const upload = path.join(report.stateDir, 'attachments', '0b6c5a52-3f4e-4c1a-9d0e-2a7f1c9e8b11');
    fs.mkdirSync(upload, { recursive: true });
    fs.writeFileSync(path.join(upload, 'meta.json'), '{}');
    const meta = path.join(upload, 'meta.json');
    const guarded = {
      ...fs,
      readFileSync: ((file: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
        if (typeof file === 'string' && path.resolve(file) === meta) throw Object.assign(new Error(`EACCES: permission denied, open '${meta}'`), { code: 'EACCES' });
        return (fs.readFileSync as (...a: unknown[]) => unknown)(file, ...rest);
      }) as typeof fs.readFileSync,
    };
    const result = await uninstall({ ...setup, purge: true, fs: guarded as never });
    const said = result.lines.join('\n');
    expect(result.ok).toBe(false);
    expect(said).toContain(`could not read ${upload.replace(setup.homedir, '~')} (EACCES)`);
    expect(said).not.toContain('holds files not created by comet-relay');
  });
});

describe('the commands uninstall and doctor print quote a path one way (review 2026-12-05, day 5, F11)', () => {
  it('a backslash in a POSIX path is quoted, so the printed command names the same folder', async () => {
    const setup = linuxInstallHome('install-quote');
    const home = path.join(setup.homedir, 'sh\\ared');
    const profile = path.join(setup.homedir, 'udd');
    await install({ ...setup, browsers: ['chromium'], home, userDataDir: profile });
    const result = await uninstall({ ...setup, home, browsers: ['chrome'], purge: true });
    const said = result.lines.join('\n');
    expect(said).toContain(`--home '${home}'`);
    expect(said).not.toContain(`--home ${home}`);
  });
});

describe('uninstall --purge in a shared --home holding a file named as one of our folders (review 2026-12-05, day 6, F2)', () => {
  it('leaves that file alone without a ✘: it is not a folder of ours, and nothing failed', async () => {
    const { setup, home } = await userDataDirInstall();
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'logs'), 'the person’s own notes');
    const result = await uninstall({ ...setup, home, purge: true });
    expect(result.ok).toBe(true);
    expect(result.lines.join('\n')).not.toMatch(/✘|ENOTDIR/);
    expect(fs.readFileSync(path.join(home, 'logs'), 'utf8')).toBe('the person’s own notes');
  });
});
