import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runUnblock } from '../../lib/cli/unblock-command';
import { uninstall } from '../../lib/install/install';
import { LINUX_POLICY_FILE, plistXml, regPolicyArgs } from '../../lib/install/policy-places';
import type { ExecFn } from '../../lib/install/system';
import { entryFor, PERPLEXITY_HOSTS, prepareCometStart, undoUnblock, unblock } from '../../lib/install/unblock';
import { EXTENSION_ID } from '../../lib/protocol/identity';
import { linuxInstallHome } from '../support/install-home';
import { fakeRegistry } from './unblock-fakes';
import { memoryFs } from './install-memfs';

const BLOCK_ALL = { '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS] } };
const OUR_ENTRY = { runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS] };

/** A Linux home in a temporary folder with a managed policy folder of its own. */
function linux() {
  const setup = linuxInstallHome('unblock');
  const policyDir = path.join(setup.homedir, 'etc', 'chromium', 'policies', 'managed');
  fs.mkdirSync(policyDir, { recursive: true });
  const stateDir = path.join(setup.homedir, 'state');
  const write = (name: string, policy: unknown) => fs.writeFileSync(path.join(policyDir, name), JSON.stringify(policy));
  const read = (name: string) => JSON.parse(fs.readFileSync(path.join(policyDir, name), 'utf8'));
  const options = { platform: 'linux' as const, homedir: setup.homedir, env: {}, browser: 'chromium' as const, stateDir, policyDir };
  return { ...setup, policyDir, stateDir, write, read, options };
}

const SOMEONE_ELSES = 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk';

/** Blocked for all, unblocked by us, then somebody else adds an entry of their own to our policy file. */
async function unblockedThenEdited() {
  const h = linux();
  h.write('10.json', { ExtensionSettings: BLOCK_ALL });
  await unblock(h.options);
  const ours = h.read(LINUX_POLICY_FILE);
  ours.ExtensionSettings[SOMEONE_ELSES] = { installation_mode: 'allowed' };
  h.write(LINUX_POLICY_FILE, ours);
  return h;
}

describe('entryFor: the entry that lets one extension run on perplexity.ai', () => {
  it('carries the hosts "*" blocks for everyone (allowed wins over blocked), so ours stays out of every other blocked site', () => {
    const base = { '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'], installation_mode: 'allowed' } };
    expect(entryFor(EXTENSION_ID, base)).toEqual({ runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] });
  });

  it('extends an entry of our own that names hosts, keeping its other settings', () => {
    const base = { [EXTENSION_ID]: { installation_mode: 'allowed', runtime_allowed_hosts: ['*://x.example'] }, '*': { runtime_blocked_hosts: ['*://*.bank.example'] } };
    expect(entryFor(EXTENSION_ID, base)).toEqual({ installation_mode: 'allowed', runtime_allowed_hosts: ['*://x.example', PERPLEXITY_HOSTS] });
  });

  it('with no policy at all it is the one allowed host', () => {
    expect(entryFor(EXTENSION_ID, undefined)).toEqual({ runtime_allowed_hosts: [PERPLEXITY_HOSTS] });
  });
});

describe('unblock on Linux: the file that sorts last carries the value in force plus our entry', () => {
  it('writes zz-comet-relay.json with the others\' entries kept and ours added; the "*" block stays for every other extension', async () => {
    const h = linux();
    h.write('10-company.json', { ExtensionSettings: { ...BLOCK_ALL, abcdefghijklmnopabcdefghijklmnop: { installation_mode: 'blocked' } }, HomepageLocation: 'https://intra.example' });
    const report = await unblock(h.options);
    expect(report.ok).toBe(true);
    expect(h.read(LINUX_POLICY_FILE)).toEqual({
      ExtensionSettings: { ...BLOCK_ALL, abcdefghijklmnopabcdefghijklmnop: { installation_mode: 'blocked' }, [EXTENSION_ID]: OUR_ENTRY },
    });
    // The other file is untouched, and only ExtensionSettings is carried (Chromium takes each policy separately).
    expect(h.read('10-company.json').HomepageLocation).toBe('https://intra.example');
    expect(report.lines.join('\n')).toMatch(/Restart Chromium/);
  });

  it('takes the value from the file that sorts last among the others, as Chromium does', async () => {
    const h = linux();
    h.write('a.json', { ExtensionSettings: { '*': { runtime_blocked_hosts: ['*://old.example'] } } });
    h.write('b.json', { ExtensionSettings: BLOCK_ALL });
    h.write('c.json', { SomethingElse: true });
    await unblock(h.options);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings).toEqual({ ...BLOCK_ALL, [EXTENSION_ID]: OUR_ENTRY });
  });

  it('refuses when a file that sorts after ours sets ExtensionSettings (ours would never be read), and writes nothing', async () => {
    const h = linux();
    h.write('zzz-later.json', { ExtensionSettings: BLOCK_ALL });
    await expect(unblock(h.options)).rejects.toThrow(/zzz-later\.json sets ExtensionSettings and sorts after zz-comet-relay\.json/);
    expect(fs.existsSync(path.join(h.policyDir, LINUX_POLICY_FILE))).toBe(false);
  });

  it('refuses to override an administrator who blocked comet-relay by its own ID', async () => {
    const h = linux();
    h.write('10.json', { ExtensionSettings: { [EXTENSION_ID]: { runtime_blocked_hosts: [PERPLEXITY_HOSTS] } } });
    await expect(unblock(h.options)).rejects.toThrow(/blocks comet-relay's extension \(ecmkpcbekkgjknbkippgifninkcepnfa\) by its own ID/);
  });

  it('--dry-run prints exactly the file and its content, and writes nothing (no record either)', async () => {
    const h = linux();
    h.write('10.json', { ExtensionSettings: BLOCK_ALL });
    const report = await unblock({ ...h.options, dryRun: true });
    const text = report.lines.join('\n');
    expect(text).toContain(`write ${path.join(h.policyDir, LINUX_POLICY_FILE)} (mode 644)`);
    expect(text).toContain(`"${EXTENSION_ID}": {`);
    expect(text).toContain('--dry-run: nothing was written');
    expect(fs.readdirSync(h.policyDir)).toEqual(['10.json']);
    expect(fs.existsSync(h.stateDir)).toBe(false);
  });

  it('--undo removes exactly our file and the record; a second unblock keeps the first "before"', async () => {
    const h = linux();
    h.write('10.json', { ExtensionSettings: BLOCK_ALL });
    await unblock(h.options);
    const again = await unblock(h.options);
    expect(again.changed).toBe(false);
    const undone = await undoUnblock(h.options);
    expect(undone.changed).toBe(true);
    expect(fs.readdirSync(h.policyDir)).toEqual(['10.json']);
    expect(fs.existsSync(path.join(h.stateDir, 'unblock', 'chromium.json'))).toBe(false);
    expect((await undoUnblock(h.options)).lines.join('\n')).toMatch(/no record of an unblock/);
  });

  it('--undo keeps what someone else changed in our file since, taking back only our entry', async () => {
    const h = await unblockedThenEdited();
    const undone = await undoUnblock(h.options);
    expect(undone.lines.join('\n')).toMatch(/only comet-relay's entry is taken back/);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings).toEqual({ ...BLOCK_ALL, [SOMEONE_ELSES]: { installation_mode: 'allowed' } });
  });

  it('--undo leaves our entry alone when someone changed it since', async () => {
    const h = linux();
    await unblock(h.options);
    h.write(LINUX_POLICY_FILE, { ExtensionSettings: { [EXTENSION_ID]: { runtime_allowed_hosts: ['*://*.perplexity.ai', '*://x.example'] } } });
    const undone = await undoUnblock(h.options);
    expect(undone.changed).toBe(false);
    expect(undone.lines.join('\n')).toMatch(/was changed since unblock wrote it: kept/);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings[EXTENSION_ID].runtime_allowed_hosts).toContain('*://x.example');
  });

  it('a re-run keeps an entry someone added to our file, and picks up a change in the other files', async () => {
    const h = await unblockedThenEdited();
    h.write('10.json', { ExtensionSettings: { '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] } } });
    await unblock(h.options);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings).toEqual({
      '*': { runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] },
      [SOMEONE_ELSES]: { installation_mode: 'allowed' },
      [EXTENSION_ID]: { runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS, '*://*.bank.example'] },
    });
  });

  it('--all-extensions says what it opens and writes the "*" entry; undo takes it back', async () => {
    const h = linux();
    h.write('10.json', { ExtensionSettings: BLOCK_ALL });
    const report = await unblock({ ...h.options, allExtensions: true });
    expect(report.lines.join('\n')).toMatch(/lets EVERY extension in Chromium read and change perplexity\.ai pages/);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings).toEqual({ '*': { runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS] } });
    await undoUnblock(h.options);
    expect(fs.readdirSync(h.policyDir)).toEqual(['10.json']);
  });

  it('Comet on Linux: says its policy folder is not publicly known', async () => {
    const h = linux();
    await expect(unblock({ ...h.options, browser: 'comet', policyDir: undefined })).rejects.toThrow(/Where Comet reads machine policy on Linux is not publicly known/);
  });

  it('a folder only root may write: the error names the sudo command to run', async () => {
    const h = linux();
    const denied = {
      ...fs,
      openSync: (file: string, ...rest: unknown[]) => {
        if (file.startsWith(h.policyDir)) throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
        return (fs.openSync as (...a: unknown[]) => number)(file, ...rest);
      },
    };
    await expect(unblock({ ...h.options, fs: denied as never, privilegedCommand: () => 'sudo node cli.js unblock --browser chromium --yes --home /s' })).rejects.toThrow(
      /is writable only by root .*Run it with sudo: sudo node cli\.js unblock --browser chromium --yes --home \/s/,
    );
  });
});

describe('uninstall takes back what unblock wrote', () => {
  it('removes our entry (the rest of the policy stays) and the record', async () => {
    const h = linux();
    h.write('10.json', { ExtensionSettings: BLOCK_ALL });
    await unblock(h.options);
    const report = await uninstall({ platform: 'linux', homedir: h.homedir, env: {}, home: h.stateDir, browsers: ['chromium'] });
    expect(report.ok).toBe(true);
    expect(report.removed).toContain(`comet-relay's entry in ${path.join(h.policyDir, LINUX_POLICY_FILE)} (restart chromium for it to apply)`);
    expect(fs.readdirSync(h.policyDir)).toEqual(['10.json']);
    expect(h.read('10.json')).toEqual({ ExtensionSettings: BLOCK_ALL });
  });
});

describe('the unblock command: asks before writing', () => {
  it('refuses without --yes when nobody can answer, and writes nothing', async () => {
    const h = linux();
    await expect(runUnblock({ browser: 'chromium', home: h.stateDir, 'policy-dir': h.policyDir }, { out: () => {}, interactive: false, platform: 'linux', homedir: h.homedir, env: {} })).rejects.toThrow(
      /stdin is not a terminal.*--dry-run.*--yes/,
    );
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
  });

  it('asks with the exact change and writes nothing on "n"; writes on "y"', async () => {
    const h = linux();
    const questions: string[] = [];
    const io = (answer: string) => ({ out: () => {}, interactive: true, ask: async (q: string) => { questions.push(q); return answer; }, platform: 'linux' as const, homedir: h.homedir, env: {} });
    expect(await runUnblock({ browser: 'chromium', home: h.stateDir, 'policy-dir': h.policyDir }, io('n'))).toBe(1);
    expect(questions[0]).toContain(`write ${path.join(h.policyDir, LINUX_POLICY_FILE)}`);
    expect(questions[0]).toMatch(/Write this\? \[y\/N\] $/);
    expect(fs.readdirSync(h.policyDir)).toEqual([]);
    expect(await runUnblock({ browser: 'chromium', home: h.stateDir, 'policy-dir': h.policyDir }, io('y'))).toBe(0);
    expect(h.read(LINUX_POLICY_FILE).ExtensionSettings[EXTENSION_ID]).toEqual({ runtime_allowed_hosts: [PERPLEXITY_HOSTS] });
  });
});

describe('unblock on Windows: reg.exe commands, built as data', () => {
  const win = (browser: 'comet' | 'chrome', reg: ReturnType<typeof fakeRegistry>) => ({
    platform: 'win32' as const,
    homedir: 'C:\\Users\\me',
    env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' },
    fs: (() => {
      const m = memoryFs();
      m.mkdirSync('C:\\Users\\me', { recursive: true });
      return m;
    })(),
    browser,
    stateDir: 'C:\\Users\\me\\AppData\\Local\\comet-relay',
    exec: reg.exec,
  });

  it('Chrome: HKCU (honoured; HKLM sets nothing), one reg add of the JSON value, undo one reg delete', async () => {
    const reg = fakeRegistry();
    const options = win('chrome', reg);
    const report = await unblock(options);
    const key = 'HKCU\\Software\\Policies\\Google\\Chrome';
    const json = JSON.stringify({ [EXTENSION_ID]: { runtime_allowed_hosts: [PERPLEXITY_HOSTS] } });
    expect(reg.calls.filter((c) => c[1] === 'add')).toEqual([['reg', ...regPolicyArgs.add(key, json)]]);
    expect(regPolicyArgs.add(key, json)).toEqual(['add', key, '/v', 'ExtensionSettings', '/t', 'REG_SZ', '/d', json, '/f']);
    expect(report.where).toBe(`${key} value ExtensionSettings`);
    await undoUnblock(options);
    expect(reg.calls.at(-1)).toEqual(['reg', 'delete', key, '/v', 'ExtensionSettings', '/f']);
    expect(reg.values.size).toBe(0);
  });

  it('Comet: HKLM, merged with the value already there; undo restores that value exactly', async () => {
    const reg = fakeRegistry();
    const key = 'HKLM\\Software\\Policies\\Perplexity\\Comet';
    const theirs = JSON.stringify(BLOCK_ALL);
    reg.values.set(`${key.toLowerCase()}|extensionsettings`, theirs);
    const options = win('comet', reg);
    const dry = await unblock({ ...options, dryRun: true });
    expect(dry.lines.join('\n')).toContain(`reg add ${key} /v ExtensionSettings /t REG_SZ /d "{\\"*\\"`);
    expect(reg.calls.some((c) => c[1] === 'add')).toBe(false);
    await unblock(options);
    expect(JSON.parse(reg.values.get(`${key.toLowerCase()}|extensionsettings`) as string)).toEqual({ ...BLOCK_ALL, [EXTENSION_ID]: OUR_ENTRY });
    await undoUnblock(options);
    expect(reg.values.get(`${key.toLowerCase()}|extensionsettings`)).toBe(JSON.stringify(JSON.parse(theirs)));
  });

  it('Chrome with an HKLM value: writes HKLM (HKCU would lose to it)', async () => {
    const reg = fakeRegistry();
    reg.values.set('hklm\\software\\policies\\google\\chrome|extensionsettings', JSON.stringify(BLOCK_ALL));
    const report = await unblock(win('chrome', reg));
    expect(report.where).toBe('HKLM\\Software\\Policies\\Google\\Chrome value ExtensionSettings');
  });

  it('HKLM without elevation: the error says to run it from an elevated prompt, with the command', async () => {
    const reg = fakeRegistry({ denyHklm: true });
    await expect(unblock({ ...win('comet', reg), privilegedCommand: (needs) => `${needs}: node cli.js unblock --browser comet --yes` })).rejects.toThrow(
      /needs an administrator \(reg said: ERROR: Access is denied\.\)\. Run it from PowerShell run as administrator .*: admin: node cli\.js unblock --browser comet --yes/,
    );
  });

  it('refuses an ExtensionSettings kept as a key tree rather than one JSON value', async () => {
    const reg = fakeRegistry();
    reg.subkeys.add('hklm\\software\\policies\\perplexity\\comet\\extensionsettings');
    await expect(unblock(win('comet', reg))).rejects.toThrow(/set as a registry key tree/);
  });
});

/** A fake plutil over an in-memory fs: turns the XML plists plistXml writes (and tests seed) back into JSON. */
function fakePlutil(files: ReturnType<typeof memoryFs>): ExecFn {
  const parse = (xml: string): unknown => {
    const tokens = xml.replace(/<\?xml[^>]*>|<!DOCTYPE[^>]*>|<\/?plist[^>]*>/g, '').match(/<[^>]+>[^<]*/g) ?? [];
    let i = 0;
    const unesc = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    const value = (): unknown => {
      const token = (tokens[i++] as string).trim();
      const [, tag = '', text = ''] = /^<([^>]+)>([\s\S]*)$/.exec(token) ?? [];
      // A leaf's closing tag is the next token: step over it.
      if (tag === 'string' || tag === 'integer' || tag === 'real') {
        i++;
        return tag === 'string' ? unesc(text) : Number(text);
      }
      if (tag === 'true/' || tag === 'false/') return tag === 'true/';
      if (tag === 'array/') return [];
      if (tag === 'dict/') return {};
      if (tag === 'array') {
        const out: unknown[] = [];
        while (!(tokens[i] as string).startsWith('</array>')) out.push(value());
        i++;
        return out;
      }
      if (tag === 'dict') {
        const out: Record<string, unknown> = {};
        while (!(tokens[i] as string).startsWith('</dict>')) {
          const key = unesc((/^<key>([\s\S]*)$/.exec((tokens[i++] as string).trim()) as RegExpExecArray)[1] as string);
          i++;
          out[key] = value();
        }
        i++;
        return out;
      }
      throw new Error(`unexpected ${token}`);
    };
    return value();
  };
  return async (file, args) => {
    if (file !== 'plutil') return { code: 1, stdout: '', stderr: `unexpected ${file}` };
    const target = args.at(-1) as string;
    return { code: 0, stdout: JSON.stringify(parse(files.readFileSync(target, 'utf8'))), stderr: '' };
  };
}

describe('unblock on macOS: the managed preferences plist', () => {
  const mac = () => {
    const files = memoryFs(path.posix);
    files.mkdirSync('/Users/me', { recursive: true });
    return { files, options: { platform: 'darwin' as const, homedir: '/Users/me', env: {}, fs: files, exec: fakePlutil(files), browser: 'comet' as const, stateDir: '/Users/me/state' } };
  };
  const plist = '/Library/Managed Preferences/ai.perplexity.comet.plist';

  it('merges into the plist already there, keeping its other keys; undo restores it', async () => {
    const { files, options } = mac();
    files.mkdirSync('/Library/Managed Preferences', { recursive: true });
    const before = plistXml({ ExtensionSettings: BLOCK_ALL, RestoreOnStartup: 1, HomepageLocation: 'https://a.example/?a=1&b=<2>' });
    files.writeFileSync(plist, before);
    const report = await unblock(options);
    expect(report.where).toBe(plist);
    const written = JSON.parse((await fakePlutil(files)('plutil', ['-convert', 'json', '-o', '-', plist])).stdout);
    expect(written).toEqual({ ExtensionSettings: { ...BLOCK_ALL, [EXTENSION_ID]: OUR_ENTRY }, RestoreOnStartup: 1, HomepageLocation: 'https://a.example/?a=1&b=<2>' });
    expect(files.readFileSync(plist, 'utf8')).toContain('<key>ecmkpcbekkgjknbkippgifninkcepnfa</key>');
    await undoUnblock(options);
    expect(files.readFileSync(plist, 'utf8')).toBe(before);
  });

  it('with no plist: --dry-run shows the XML to write as root; writing creates it, undo removes it', async () => {
    const { files, options } = mac();
    const dry = await unblock({ ...options, dryRun: true });
    expect(dry.lines.join('\n')).toContain(`write ${plist} (owner root:wheel, mode 644), as root:`);
    expect(dry.lines.join('\n')).toContain('<string>*://*.perplexity.ai</string>');
    expect(files.existsSync(plist)).toBe(false);
    await unblock(options);
    expect(files.existsSync(plist)).toBe(true);
    await undoUnblock(options);
    expect(files.existsSync(plist)).toBe(false);
  });

  it('not root: the error spells out the sudo step', async () => {
    const { files, options } = mac();
    const denied = {
      ...files,
      mkdirSync: (dir: string, o: { recursive: true; mode?: number }) => {
        if (dir.startsWith('/Library')) throw Object.assign(new Error("EACCES: permission denied, mkdir '/Library/Managed Preferences'"), { code: 'EACCES' });
        return files.mkdirSync(dir, o);
      },
    };
    await expect(unblock({ ...options, fs: denied, privilegedCommand: () => 'sudo /usr/local/bin/node cli.js unblock --browser comet --yes --home /Users/me/state' })).rejects.toThrow(
      /\/Library\/Managed Preferences is writable only by root .*Run it with sudo: sudo \/usr\/local\/bin\/node cli\.js unblock --browser comet --yes/,
    );
  });
});

describe("Comet's Local State switch, before comet-relay starts Comet itself", () => {
  const SWITCH = 'Allow-external-extensions-scripting-on-NTP';
  /** A macOS home with Comet's profile folder and a Local State holding the switch where Comet put it. */
  const cometHome = (value: boolean) => {
    const setup = linuxInstallHome('comet-switch');
    const profile = path.join(setup.homedir, 'Library', 'Application Support', 'Comet');
    fs.mkdirSync(profile, { recursive: true });
    const localState = path.join(profile, 'Local State');
    fs.writeFileSync(localState, JSON.stringify({ browser: { x: 1 }, perplexity: { feature: { [SWITCH]: value, other: false } } }));
    const stateDir = path.join(setup.homedir, 'state');
    const options = { platform: 'darwin' as const, homedir: setup.homedir, env: {}, stateDir };
    const optIn = () => {
      fs.mkdirSync(path.join(stateDir, 'unblock'), { recursive: true });
      fs.writeFileSync(path.join(stateDir, 'unblock', 'comet.json'), '{}');
    };
    return { profile, localState, options, optIn };
  };

  it('is left alone unless the person ran unblock --browser comet', () => {
    const h = cometHome(false);
    const before = fs.readFileSync(h.localState, 'utf8');
    expect(prepareCometStart(h.options).outcome).toBe('off');
    expect(fs.readFileSync(h.localState, 'utf8')).toBe(before);
  });

  it('after unblock: flips only that switch to true, keeping a backup of the file as it was', () => {
    const h = cometHome(false);
    h.optIn();
    const before = fs.readFileSync(h.localState, 'utf8');
    const result = prepareCometStart(h.options);
    expect(result).toMatchObject({ outcome: 'set', message: expect.stringContaining('Comet resets it at each start') });
    expect(JSON.parse(fs.readFileSync(h.localState, 'utf8'))).toEqual({ browser: { x: 1 }, perplexity: { feature: { [SWITCH]: true, other: false } } });
    expect(fs.readFileSync(`${h.localState}.comet-relay-backup`, 'utf8')).toBe(before);
    expect(prepareCometStart(h.options).outcome).toBe('already');
  });

  it('never while Comet runs on the profile (its SingletonLock, a dangling symlink, is there)', () => {
    const h = cometHome(false);
    h.optIn();
    fs.symlinkSync('somehost-4242', path.join(h.profile, 'SingletonLock'));
    const before = fs.readFileSync(h.localState, 'utf8');
    expect(prepareCometStart(h.options)).toMatchObject({ outcome: 'running', message: expect.stringMatching(/seems to be running/) });
    expect(fs.readFileSync(h.localState, 'utf8')).toBe(before);
    expect(fs.existsSync(`${h.localState}.comet-relay-backup`)).toBe(false);
  });

  it('never adds the switch where Comet has not written it', () => {
    const h = cometHome(false);
    h.optIn();
    fs.writeFileSync(h.localState, JSON.stringify({ browser: {} }));
    expect(prepareCometStart(h.options).outcome).toBe('absent');
    expect(JSON.parse(fs.readFileSync(h.localState, 'utf8'))).toEqual({ browser: {} });
  });
});
