import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../lib/cli/args';
import { runUnblock } from '../../lib/cli/unblock-command';
import { exitCodeOf } from '../../lib/cli/usage';
import { doctor } from '../../lib/install/doctor';
import { uninstall } from '../../lib/install/install';
import { toStrictJson } from '../../lib/install/policy/chromium-json';
import { privilegedUnblockCommand } from '../../lib/install/policy/privileged-command';
import { LINUX_POLICY_FILE } from '../../lib/install/policy-places';
import type { FsLike } from '../../lib/install/system';
import { blocksPerplexity, PERPLEXITY_HOSTS, prepareCometStart, undoUnblock, unblock, unblockDrift } from '../../lib/install/unblock';
import type { RelayError } from '../../lib/protocol/errors';
import { EXTENSION_ID } from '../../lib/protocol/identity';
import { linuxInstallHome } from '../support/install-home';
import { fakeRegistry } from './unblock-fakes';
import { memoryFs } from './install-memfs';

/**
 * The faults of the 2026-12-04 review (shared/reviews/unblock-doors-kits-2026-12-04.md) in unblock,
 * its record, its undo and uninstall: each test failed before its fix.
 */

const BLOCK_ALL = { '*': { installation_mode: 'blocked', runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] } };
const FORCED = { ffffffffffffffffffffffffffffffff: { installation_mode: 'force_installed', update_url: 'https://clients2.google.com/service/update2/crx' } };
const COMPANY = { ...BLOCK_ALL, ...FORCED };

function linux(policySub = '') {
  const setup = linuxInstallHome('unblock-review');
  const policyDir = path.join(setup.homedir, 'etc', 'chromium', 'policies', 'managed', policySub);
  fs.mkdirSync(policyDir, { recursive: true });
  const stateDir = path.join(setup.homedir, 'state');
  const write = (name: string, text: string) => fs.writeFileSync(path.join(policyDir, name), text);
  const read = (name: string, dir = policyDir) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  const recordFile = path.join(stateDir, 'unblock', 'chromium.json');
  const options = { platform: 'linux' as const, homedir: setup.homedir, env: {}, browser: 'chromium' as const, stateDir, policyDir };
  return { ...setup, policyDir, stateDir, write, read, recordFile, options };
}

const eacces = (file: string) => Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });

describe('#1 policy files are read as Chromium reads them (review 2026-12-04 #1)', () => {
  const company = JSON.stringify({ ExtensionSettings: COMPANY }, null, 2);
  const variants: Array<[string, string]> = [
    ['a // comment', `// managed by IT\n${company}`],
    ['a /* */ comment', company.replace('{', '{ /* ExtensionSettings below */')],
    ['a trailing comma', company.replace(/\}\n\}$/, '},\n}')],
    ['a UTF-8 byte-order mark (Notepad)', `\uFEFF${company}`],
  ];
  for (const [what, text] of variants) {
    it(`#1: a company file with ${what} is carried whole into what unblock writes`, async () => {
      const h = linux();
      h.write('10-company.json', text);
      const report = await unblock(h.options);
      expect(report.lines.join('\n')).not.toMatch(/skipped by the browser/);
      expect(h.read(LINUX_POLICY_FILE).ExtensionSettings).toEqual({
        ...COMPANY,
        [EXTENSION_ID]: { runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] },
      });
    });
  }

  it('#1: a file that cannot be read even so stops unblock, naming the file; nothing is written, no record either', async () => {
    const h = linux();
    h.write('10-company.json', `/* never closed\n${company}`);
    await expect(unblock(h.options)).rejects.toThrow(/10-company\.json cannot be read as a policy file .*Nothing was written/);
    expect(fs.readdirSync(h.policyDir)).toEqual(['10-company.json']);
    expect(fs.existsSync(h.stateDir)).toBe(false);
  });

  it('#1: a file whose top level is not an object is skipped, as Chromium skips it ("Expected JSON dictionary")', async () => {
    const h = linux();
    h.write('05-list.json', '[1, 2]');
    h.write('10-company.json', company);
    const report = await unblock(h.options);
    expect(report.lines.join('\n')).toMatch(/05-list\.json is skipped by the browser too/);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings['*']).toEqual(BLOCK_ALL['*']);
  });

  it('#1: strings keep what looks like a comment or a trailing comma; \\v, \\xHH and raw control characters become strict JSON', () => {
    expect(JSON.parse(toStrictJson('{"a": "x // y, ]", "b": "/* z */",}'))).toEqual({ a: 'x // y, ]', b: '/* z */' });
    expect(JSON.parse(toStrictJson('{"a": "tab\there\\v\\x41", "b": [1, 2, /* c */ ],}'))).toEqual({ a: 'tab\there\u000bA', b: [1, 2] });
  });
});

describe('#13 a catch-all block of our own ID is an administrator\'s block (review 2026-12-04 #13)', () => {
  for (const pattern of ['*://*', 'https://*', '*://*.ai', 'https://www.perplexity.ai', '<all_urls>']) {
    it(`#13: "${pattern}" on comet-relay's ID is refused, and nothing is written`, async () => {
      const h = linux();
      h.write('10.json', JSON.stringify({ ExtensionSettings: { [EXTENSION_ID]: { runtime_blocked_hosts: [pattern] } } }));
      await expect(unblock(h.options)).rejects.toThrow(/blocks comet-relay's extension .* by its own ID/);
      expect(fs.existsSync(path.join(h.policyDir, LINUX_POLICY_FILE))).toBe(false);
    });
  }

  it('#13: a block of other hosts is not one of perplexity.ai', () => {
    expect(blocksPerplexity(['*://*.bank.example', 'https://*.example.ai', 'ftp://*'])).toBe(false);
    expect(blocksPerplexity(['http://*.perplexity.ai/path'])).toBe(true);
  });
});

/** node:fs with a umask of 077 on every mode it is given (sudo keeps the person's umask). */
function strictUmask(): FsLike {
  const mask = (mode?: number) => (mode ?? 0o666) & ~0o077;
  return {
    ...(fs as unknown as FsLike),
    writeFileSync: (f, d, o) => fs.writeFileSync(f, d, { ...o, mode: mask(o?.mode) }),
    mkdirSync: (d, o) => fs.mkdirSync(d, { ...o, mode: (o.mode ?? 0o777) & ~0o077 }),
    openSync: (f: string, flags: number, mode?: number) => fs.openSync(f, flags, mask(mode)),
  };
}

describe('#14 files land with the modes they claim whatever the umask (review 2026-12-04 #14)', () => {
  it('#14: under umask 077 the managed folder is 755, the policy file and the record 644', async () => {
    const h = linux();
    const folder = path.join(h.policyDir, 'new');
    await unblock({ ...h.options, policyDir: folder, fs: strictUmask() });
    const mode = (file: string) => fs.statSync(file).mode & 0o777;
    expect(mode(folder).toString(8)).toBe('755');
    expect(mode(path.join(folder, LINUX_POLICY_FILE)).toString(8)).toBe('644');
    expect(mode(h.recordFile).toString(8)).toBe('644');
    expect(mode(path.dirname(h.recordFile)).toString(8)).toBe('755');
  });
});

describe('#6 root never writes through a link in the person\'s folder (review 2026-12-04 #6)', () => {
  it('#6: a link planted where the record goes is refused, and what it points at is not created', async () => {
    const h = linux();
    const target = path.join(h.homedir, 'elsewhere', 'sudoers-like');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.mkdirSync(path.dirname(h.recordFile), { recursive: true });
    fs.symlinkSync(target, h.recordFile);
    await expect(unblock({ ...h.options, uid: 0 })).rejects.toThrow(/chromium\.json is a link; comet-relay writes nothing through it/);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(path.join(h.policyDir, LINUX_POLICY_FILE))).toBe(false);
  });

  it('#6: a record folder that is a link is refused when root writes', async () => {
    const h = linux();
    fs.mkdirSync(h.stateDir, { recursive: true });
    fs.mkdirSync(path.join(h.homedir, 'other'));
    fs.symlinkSync(path.join(h.homedir, 'other'), path.join(h.stateDir, 'unblock'));
    await expect(unblock({ ...h.options, uid: 0 })).rejects.toThrow(/is a link or not a folder/);
    expect(fs.readdirSync(path.join(h.homedir, 'other'))).toEqual([]);
  });

  it('#6: as root, every folder created for the record and the record itself are given to the owner of the home', async () => {
    const h = linux();
    const given: string[] = [];
    // The home belongs to user 4242 (the person); this test's process stands for root.
    const person = (uid: number, gid: number) => (uid === 4242 && gid === 4343 ? 'person' : `${uid}:${gid}`);
    const spy: FsLike = {
      ...(fs as unknown as FsLike),
      lstatSync: (f) => {
        const stat = fs.lstatSync(f);
        return f === h.homedir ? Object.assign(stat, { uid: 4242, gid: 4343 }) : stat;
      },
      chownSync: (f, uid, gid) => {
        given.push(`${path.relative(h.homedir, f)} ${person(uid, gid)}`);
      },
      fchownSync: (_fd, uid, gid) => {
        given.push(`record ${person(uid, gid)}`);
      },
    };
    await unblock({ ...h.options, fs: spy, uid: 0 });
    expect(given).toContain('state person');
    expect(given).toContain('state/unblock person');
    expect(given.at(-1)).toBe('record person');
  });
});

describe('#7 a write and its record are one step (review 2026-12-04 #7)', () => {
  it('#7: when the record cannot be saved, no policy is written, and the error says so', async () => {
    const h = linux();
    const refusing: FsLike = {
      ...(fs as unknown as FsLike),
      mkdirSync: (d, o) => {
        if (d.startsWith(h.stateDir)) throw eacces(d);
        return fs.mkdirSync(d, o);
      },
    };
    await expect(unblock({ ...h.options, fs: refusing })).rejects.toThrow(/^Nothing was written: the record of what unblock writes .* must be saved first/);
    expect(fs.existsSync(path.join(h.policyDir, LINUX_POLICY_FILE))).toBe(false);
  });

  it('#7: a record saved but the write never done (a crash between) is forgotten by undo, which changes nothing', async () => {
    const h = linux();
    let crash = true;
    const crashing: FsLike = {
      ...(fs as unknown as FsLike),
      openSync: (f: string, flags: number, mode?: number) => {
        if (crash && f.startsWith(h.policyDir)) throw new Error('power cut');
        return fs.openSync(f, flags, mode);
      },
    };
    await expect(unblock({ ...h.options, fs: crashing })).rejects.toThrow(/power cut/);
    // The failed write put the record back as it was (none); a crash would have left the pending entry:
    fs.mkdirSync(path.dirname(h.recordFile), { recursive: true });
    fs.writeFileSync(h.recordFile, JSON.stringify({ version: 2, browser: 'chromium', places: [{ where: path.join(h.policyDir, LINUX_POLICY_FILE), key: EXTENSION_ID, after: { x: {} }, pending: true, writtenAt: 'now' }] }));
    crash = false;
    const undone = await undoUnblock(h.options);
    expect(undone.lines.join('\n')).toMatch(/never happened: nothing to take back/);
    expect(fs.existsSync(h.recordFile)).toBe(false);
  });
});

describe('#8 a dry run or a declined undo keeps the record (review 2026-12-04 #8)', () => {
  const cases: Array<[string, (h: ReturnType<typeof linux>) => void]> = [
    ['our entry gone', (h) => h.write(LINUX_POLICY_FILE, JSON.stringify({ ExtensionSettings: BLOCK_ALL }))],
    ['our entry changed since', (h) => h.write(LINUX_POLICY_FILE, JSON.stringify({ ExtensionSettings: { [EXTENSION_ID]: { runtime_allowed_hosts: ['*://x.example'] } } }))],
    ['nothing changed since', () => {}],
  ];
  for (const [what, edit] of cases) {
    it(`#8: ${what}: --undo --dry-run and a declined undo leave the record where it was`, async () => {
      const h = linux();
      h.write('10.json', JSON.stringify({ ExtensionSettings: BLOCK_ALL }));
      await unblock(h.options);
      edit(h);
      const record = fs.readFileSync(h.recordFile, 'utf8');
      const dry = await undoUnblock({ ...h.options, dryRun: true });
      expect(dry.lines.join('\n')).toMatch(/--dry-run: nothing was changed; the record stays/);
      expect(fs.readFileSync(h.recordFile, 'utf8')).toBe(record);
      const declined = await undoUnblock({ ...h.options, confirm: async () => false });
      expect(declined.ok).toBe(false);
      expect(fs.readFileSync(h.recordFile, 'utf8')).toBe(record);
    });
  }
});

describe('#11 a second place never replaces the record of the first (review 2026-12-04 #11)', () => {
  it('#11: Linux, two --policy-dir: the record keeps both; undo takes back both', async () => {
    const h = linux('a');
    const other = path.join(path.dirname(h.policyDir), 'b');
    await unblock(h.options);
    await unblock({ ...h.options, policyDir: other });
    expect(JSON.parse(fs.readFileSync(h.recordFile, 'utf8')).places.map((p: { where: string }) => p.where)).toEqual([
      path.join(h.policyDir, LINUX_POLICY_FILE),
      path.join(other, LINUX_POLICY_FILE),
    ]);
    const undone = await undoUnblock({ ...h.options, policyDir: undefined });
    expect(undone.changed).toBe(true);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    expect(fs.readdirSync(other)).toEqual([]);
    expect(fs.existsSync(h.recordFile)).toBe(false);
  });

  it('#11: an undo refused at the second place keeps that place alone in the record, and names the sudo command', async () => {
    const h = linux('a');
    const other = path.join(path.dirname(h.policyDir), 'b');
    await unblock(h.options);
    await unblock({ ...h.options, policyDir: other });
    const denied: FsLike = {
      ...(fs as unknown as FsLike),
      rmSync: (f, o) => {
        if (f.startsWith(other)) throw eacces(f);
        return fs.rmSync(f, o);
      },
    };
    await expect(undoUnblock({ ...h.options, fs: denied, privilegedCommand: () => 'sudo node cli.js unblock --undo' })).rejects.toThrow(/b is writable only by root .*Run it with sudo: sudo node cli\.js unblock --undo/);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    expect(JSON.parse(fs.readFileSync(h.recordFile, 'utf8')).places.map((p: { where: string }) => p.where)).toEqual([path.join(other, LINUX_POLICY_FILE)]);
    await undoUnblock(h.options);
    expect(fs.readdirSync(other)).toEqual([]);
    expect(fs.existsSync(h.recordFile)).toBe(false);
  });

  it('#11: Windows, HKCU first, then HKLM gains a value: undo restores HKLM and empties HKCU', async () => {
    const reg = fakeRegistry();
    const m = memoryFs();
    m.mkdirSync('C:\\Users\\me', { recursive: true });
    const options = { platform: 'win32' as const, homedir: 'C:\\Users\\me', env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, fs: m, browser: 'chrome' as const, stateDir: 'C:\\Users\\me\\AppData\\Local\\comet-relay', exec: reg.exec };
    await unblock(options);
    const hklm = 'hklm\\software\\policies\\google\\chrome|extensionsettings';
    const theirs = JSON.stringify({ '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS] } });
    reg.values.set(hklm, theirs);
    await unblock(options);
    await undoUnblock(options);
    expect([...reg.values]).toEqual([[hklm, theirs]]);
  });
});

describe('#12 uninstall takes back what the record names, wherever it was written (review 2026-12-04 #12)', () => {
  it('#12: Comet on Linux written with --policy-dir: uninstall (which has no --policy-dir) takes it back', async () => {
    const h = linux();
    await unblock({ ...h.options, browser: 'comet' });
    const report = await uninstall({ platform: 'linux', homedir: h.homedir, env: {}, home: h.stateDir, browsers: ['comet'] });
    expect(report.problems).toEqual([]);
    expect(report.removed).toContain(`comet-relay's entry in ${path.join(h.policyDir, LINUX_POLICY_FILE)} (restart comet for it to apply)`);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
  });
});

/** The words a POSIX shell passes for `command` (what sudo then runs). */
const shellWords = (command: string) => execFileSync('sh', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' }).split('\0').slice(0, -1);

describe('#2 the printed sudo command works as pasted (review 2026-12-04 #2)', () => {
  const mac = '/Users/me/Library/Application Support/comet-relay';

  it('#2: one helper quotes every word for sh: a state folder with a space reaches --home whole', () => {
    const command = privilegedUnblockCommand({ platform: 'darwin', needs: 'root', browser: 'comet', undo: true, stateDir: mac, nodePath: '/usr/local/bin/node', cliPath: "/Users/o'neil/cr/dist/cli.js" });
    expect(command.startsWith('sudo ')).toBe(true);
    expect(shellWords(command.slice('sudo '.length))).toEqual(['/usr/local/bin/node', "/Users/o'neil/cr/dist/cli.js", 'unblock', '--browser', 'comet', '--undo', '--yes', '--home', mac]);
  });

  it('#2: on Windows the words are for PowerShell: a quoted node is called with &', () => {
    const command = privilegedUnblockCommand({ platform: 'win32', needs: 'admin', browser: 'chrome', stateDir: 'C:\\Users\\me\\AppData\\Local\\comet-relay', nodePath: 'C:\\Program Files\\nodejs\\node.exe', cliPath: "C:\\Users\\me\\it's\\cli.js" });
    expect(command).toBe("& 'C:\\Program Files\\nodejs\\node.exe' 'C:\\Users\\me\\it''s\\cli.js' unblock --browser chrome --yes --home C:\\Users\\me\\AppData\\Local\\comet-relay");
    // PowerShell ends a single-quoted string at a typographic quote mark too: doubled like ' (day-7e review E3).
    const typographic = privilegedUnblockCommand({ platform: 'win32', needs: 'admin', browser: 'chrome', stateDir: 'C:\\x', nodePath: 'C:\\node.exe', cliPath: 'C:\\Users\\O\u2019Brien\\cli.js' });
    expect(typographic).toContain("'C:\\Users\\O\u2019\u2019Brien\\cli.js'");
  });

  it('#2: uninstall names that command, quoted, when it cannot take an unblock back itself', async () => {
    const setup = linuxInstallHome('unblock-review');
    const stateDir = path.join(setup.homedir, 'Application Support', 'comet-relay');
    const policyDir = path.join(setup.homedir, 'managed');
    await unblock({ platform: 'linux', homedir: setup.homedir, env: {}, browser: 'chromium', stateDir, policyDir });
    const denied: FsLike = {
      ...(fs as unknown as FsLike),
      rmSync: (f, o) => {
        if (f.startsWith(policyDir)) throw eacces(f);
        return fs.rmSync(f, o);
      },
    };
    const report = await uninstall({ platform: 'linux', homedir: setup.homedir, env: {}, fs: denied, home: stateDir, browsers: ['chromium'], nodePath: '/usr/bin/node', cliPath: '/opt/cr/dist/cli.js' });
    const line = report.problems.join('\n');
    const command = /Run it with sudo: sudo (.*?) \(then:/.exec(line)?.[1] as string;
    expect(shellWords(command)).toEqual(['/usr/bin/node', '/opt/cr/dist/cli.js', 'unblock', '--browser', 'chromium', '--undo', '--yes', '--home', stateDir]);
  });

  it('#2: a stray word is refused (exit 2) by unblock and every command that takes none', () => {
    const flags = { undo: { type: 'boolean' }, home: { type: 'string' } } as const;
    let error: unknown;
    try {
      parseFlags('unblock', ['--undo', '--home', '/Users/me/Library/Application', 'Support/comet-relay'], flags);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/takes no words of its own, but was given "Support\/comet-relay"\. A value with a space must be quoted/) });
    expect(() => parseFlags('doctor', ['extra'], {})).toThrow(/doctor` takes no words of its own, but was given "extra"/);
    expect(parseFlags('config', ['claude'], {}, true).positionals).toEqual(['claude']);
  });
});

describe('#10 the frozen copy of the administrator\'s ExtensionSettings is said and watched (review 2026-12-04 #10)', () => {
  it('#10: unblock says its file carries a copy; doctor notices when the administrator\'s file changes, and a rerun carries it', async () => {
    const h = linux();
    h.write('10-company.json', JSON.stringify({ ExtensionSettings: BLOCK_ALL }));
    const report = await unblock(h.options);
    expect(report.lines.join('\n')).toMatch(/carries a copy of the ExtensionSettings in force from the other files .* not in force until unblock runs again/);
    expect(await unblockDrift({ ...h.options, browsers: ['chromium'] })).toEqual([]);

    h.write('10-company.json', JSON.stringify({ ExtensionSettings: { ...BLOCK_ALL, mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm: { installation_mode: 'removed' } } }));
    const checks = (await doctor({ platform: 'linux', homedir: h.homedir, env: {}, home: h.stateDir, browsers: ['chromium'], listHosts: () => [] })).checks;
    const check = checks.find((c) => c.name === 'unblock chromium');
    expect(check).toMatchObject({ ok: false, detail: expect.stringMatching(/changed since unblock copied it .* their change is not in force/) });
    expect(check?.fix).toMatch(/^run: sudo \S+ \S+ unblock --browser chromium --policy-dir \S+ --home \S+ \(it carries their change/);
    const command = /^run: sudo (.*?) \(/.exec(check?.fix ?? '')?.[1] as string;
    expect(shellWords(command).slice(2)).toEqual(['unblock', '--browser', 'chromium', '--policy-dir', h.policyDir, '--home', h.stateDir]);

    const again = await unblock(h.options);
    expect(again.lines.join('\n')).toMatch(/changed since unblock copied it; this write carries their change/);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings.mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm).toEqual({ installation_mode: 'removed' });
    expect(await unblockDrift({ ...h.options, browsers: ['chromium'] })).toEqual([]);
  });
});

describe('#20 Windows: the registry value is read exactly, whatever the console code page (review 2026-12-04 #20)', () => {
  it('#20: a localised blocked_install_message survives unblock and undo (read through reg export, UTF-16LE)', async () => {
    const reg = fakeRegistry();
    const m = memoryFs();
    m.mkdirSync('C:\\Users\\me', { recursive: true });
    const key = 'hklm\\software\\policies\\perplexity\\comet|extensionsettings';
    const theirs = JSON.stringify({ '*': { blocked_install_message: 'Accès refusé — voir l’intranet «IT» \\ "C:\\x"', runtime_blocked_hosts: [PERPLEXITY_HOSTS] } });
    reg.values.set(key, theirs);
    const options = { platform: 'win32' as const, homedir: 'C:\\Users\\me', env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, fs: m, browser: 'comet' as const, stateDir: 'C:\\Users\\me\\AppData\\Local\\comet-relay', exec: reg.exec };
    await unblock(options);
    expect(JSON.parse(reg.values.get(key) as string)['*']).toEqual(JSON.parse(theirs)['*']);
    await undoUnblock(options);
    expect(reg.values.get(key)).toBe(theirs);
  });
});

describe('#22 undo removes the Local State backup that is ours (review 2026-12-04 #22)', () => {
  it('#22: after the switch was set and the unblock undone, Comet\'s folder holds only its Local State', async () => {
    const h = linux();
    const env = { XDG_CONFIG_HOME: path.join(h.homedir, '.config') };
    const comet = path.join(h.homedir, '.config', 'comet');
    fs.mkdirSync(comet, { recursive: true });
    fs.writeFileSync(path.join(comet, 'Local State'), JSON.stringify({ perplexity: { 'Allow-external-extensions-scripting-on-NTP': false } }));
    const options = { ...h.options, env, browser: 'comet' as const };
    await unblock(options);
    expect(prepareCometStart(options).outcome).toBe('set');
    const undone = await undoUnblock(options);
    expect(undone.lines.join('\n')).toMatch(/removed .*Local State\.comet-relay-backup/);
    expect(fs.readdirSync(comet)).toEqual(['Local State']);
  });

  it('#22: uninstall removes a backup an earlier undo left behind, once no unblock of Comet is recorded', async () => {
    const h = linux();
    const env = { XDG_CONFIG_HOME: path.join(h.homedir, '.config') };
    const comet = path.join(h.homedir, '.config', 'comet');
    fs.mkdirSync(comet, { recursive: true });
    fs.writeFileSync(path.join(comet, 'Local State'), '{}');
    fs.writeFileSync(path.join(comet, 'Local State.comet-relay-backup'), '{}');
    const report = await uninstall({ platform: 'linux', homedir: h.homedir, env, home: h.stateDir, browsers: ['comet'] });
    expect(report.removed).toContain(path.join(comet, 'Local State.comet-relay-backup'));
    expect(fs.readdirSync(comet)).toEqual(['Local State']);
  });
});

describe('a record written before these fixes (one place, version 1)', () => {
  it('is read as a record of that place: undo takes the write back', async () => {
    const h = linux();
    h.write('10.json', JSON.stringify({ ExtensionSettings: BLOCK_ALL }));
    await unblock(h.options);
    const v2 = JSON.parse(fs.readFileSync(h.recordFile, 'utf8'));
    const { base: _base, ...place } = v2.places[0];
    fs.writeFileSync(h.recordFile, JSON.stringify({ version: 1, browser: 'chromium', ...place }));
    expect((await undoUnblock(h.options)).changed).toBe(true);
    expect(fs.readdirSync(h.policyDir)).toEqual(['10.json']);
    expect(fs.existsSync(h.recordFile)).toBe(false);
  });
});

describe('#6 unblock --browser: what it cannot take is a usage error naming what it takes (new-user review #6)', () => {
  const refusal = async (flags: Parameters<typeof runUnblock>[0]) => {
    try {
      await runUnblock(flags, { out: () => undefined, interactive: false, platform: 'linux', env: {} });
    } catch (error) {
      return error as RelayError;
    }
    throw new Error('not refused');
  };

  it('#6: firefox, all, a list and --undo with --all-extensions exit 2, and the message never offers "all"', async () => {
    const firefox = await refusal({ browser: 'firefox', 'dry-run': true });
    expect(firefox.code).toBe('CONFIG_ERROR');
    expect(firefox.message).toBe('Unknown browser "firefox" for unblock: pass --browser comet, chrome, chromium, brave or edge.');
    expect((await refusal({ browser: 'chrom', 'dry-run': true })).message).toContain('Did you mean chrome?');
    const all = await refusal({ browser: 'all', 'dry-run': true });
    expect(all.message).toBe('unblock writes one browser\'s policy at a time, not "all": pass --browser comet, chrome, chromium, brave or edge, and run it again for another.');
    const list = await refusal({ browser: 'chrome,edge', 'dry-run': true });
    const both = await refusal({ browser: 'chromium', undo: true, 'all-extensions': true });
    for (const error of [firefox, all, list, both]) {
      expect(exitCodeOf(error)).toBe(2);
      expect(error.message).not.toMatch(/\ball\.|or all\b/);
    }
  });
});
