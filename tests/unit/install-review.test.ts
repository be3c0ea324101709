import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../lib/install/client-config';
import { doctor } from '../../lib/install/doctor';
import { hostLogPath, launcherPath, parseLauncher } from '../../lib/install/host-manifest';
import { install, uninstall } from '../../lib/install/install';
import { NATIVE_HOST_NAME } from '../../lib/protocol/identity';
import { linuxInstallHome } from '../support/install-home';
import { cmdReadsBatch, windowsMachine } from './install-memfs';

/** The install/uninstall/doctor faults of the 2026-12-05 review (#3, #4, #6, #7, #12, #13, #15): each test failed before its fix. */

const shellWords = (command: string) => execFileSync('sh', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' }).split('\0').slice(0, -1);

describe('#3 Windows: the native messaging key is read exactly under a non-ASCII profile (review 2026-12-05 #3)', () => {
  it('#3: C:\\Users\\José: install verifies, doctor follows the key, uninstall removes it', async () => {
    const { reg, options } = windowsMachine('C:\\Users\\José');
    const installed = await install({ ...options, browsers: ['chrome'] });
    expect(installed.lines.join('\n')).not.toContain('�');
    expect(installed.ok).toBe(true);
    const report = await doctor({ ...options, listHosts: () => [] });
    expect(report.checks.find((c) => c.name === 'manifest (chrome)')).toMatchObject({ ok: true });
    const removed = await uninstall(options);
    expect(removed.removed).toContain(`HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`);
    expect([...reg.values.keys()]).toEqual([]);
  });
});

describe('#4 Windows: the .bat launcher keeps a non-ASCII profile path as written (review 2026-12-05 #4)', () => {
  it('#4: C:\\Users\\José: chcp 65001 runs before any line with the path, so cmd reads each of them as UTF-8', async () => {
    const { mem, options } = windowsMachine('C:\\Users\\José');
    // npm -g puts the CLI under the profile, and the state folder (with the log) is there too.
    const cliPath = 'C:\\Users\\José\\AppData\\Roaming\\npm\\node_modules\\comet-relay\\dist\\cli.js';
    mem.mkdirSync(path.win32.dirname(cliPath), { recursive: true });
    mem.writeFileSync(cliPath, '//');
    expect((await install({ ...options, cliPath, browsers: ['chrome'] })).ok).toBe(true);
    const stateDir = 'C:\\Users\\José\\AppData\\Local\\comet-relay';
    const text = String(mem.readFileSync(launcherPath(stateDir, 'win32'), 'utf8'));
    const lines = text.split('\r\n');
    expect(lines.slice(0, 2)).toEqual(['@echo off', 'chcp 65001 >nul']);
    const withPath = lines.flatMap((line, i) => (line.includes('José') ? [i] : []));
    expect(withPath.length).toBeGreaterThanOrEqual(3);
    expect(Math.min(...withPath)).toBeGreaterThan(1);

    // What cmd.exe makes of the file's bytes (the OEM code page until chcp): the paths it checks and runs, as written.
    const read = cmdReadsBatch(Buffer.from(text, 'utf8'));
    expect(read.join('\n')).not.toMatch(/├|®/);
    expect(parseLauncher(read.join('\r\n'))).toMatchObject({ kind: 'bat', cliPath, nodePath: options.nodePath });
    expect(read).toContain(`set "CR_LOG=${hostLogPath(stateDir, 'win32')}"`);
  });
});

describe('#6 a second install with another --home says whose registration it takes over (review 2026-12-05 #6)', () => {
  it("#6: install names the first install's launcher and the command that gives it back; uninstall says it is not restored", async () => {
    const setup = linuxInstallHome('install-review');
    fs.mkdirSync(path.join(setup.homedir, '.config', 'google-chrome'), { recursive: true });
    const first = path.join(setup.homedir, 'first home');
    const second = path.join(setup.homedir, 'second');
    expect((await install({ ...setup, home: first })).ok).toBe(true);
    const firstLauncher = path.join(first, 'bin', 'comet-relay-host');

    const again = await install({ ...setup, home: second });
    expect(again.ok).toBe(true);
    const text = again.lines.join('\n');
    expect(text).toContain(`note: this replaces another install's registration, which ran ~/first home/bin/comet-relay-host`);
    expect(text).toMatch(/to give it back to that install: .*install --browser chrome --home '.*\/first home'/);
    // A reinstall of the same home replaces nothing.
    expect((await install({ ...setup, home: second })).lines.join('\n')).not.toContain('replaces another install');

    const removed = await uninstall({ ...setup, home: second });
    const manifest = path.join(setup.homedir, '.config', 'google-chrome', 'NativeMessagingHosts', `${NATIVE_HOST_NAME}.json`);
    expect(removed.removed).toContain(manifest);
    expect(removed.notes).toEqual([expect.stringContaining(`before this install took it over it ran ~/first home/bin/comet-relay-host (another install's), which uninstall does not restore`)]);
    expect(removed.lines.join('\n')).toMatch(/^note {5}.*To register that install again: .*install --browser chrome --home '.*\/first home'$/m);
    expect(fs.existsSync(firstLauncher)).toBe(true);
  });
});

describe('#7 install never tightens a folder the person chose without a word (review 2026-12-05 #7)', () => {
  it('#7: an existing --home open to its group (2775) is refused and left as it was, with a folder of its own to pass', async () => {
    const setup = linuxInstallHome('install-review');
    fs.mkdirSync(path.join(setup.homedir, '.config', 'chromium'), { recursive: true });
    const shared = path.join(setup.homedir, 'team-share');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o2775);
    const report = await install({ ...setup, home: shared });
    expect(report.ok).toBe(false);
    expect(fs.statSync(shared).mode & 0o7777).toBe(0o2775);
    expect(fs.readdirSync(shared)).toEqual([]);
    const text = report.lines.join('\n');
    expect(text).toMatch(/team-share \(--home or COMET_RELAY_HOME\) is open to others \(mode 2775\)/);
    expect(text).toContain(`--home ${path.join(shared, 'comet-relay')}`);
    expect((await install({ ...setup, home: path.join(shared, 'comet-relay') })).ok).toBe(true);
  });

  it("#7: comet-relay's own default folder is still made private, and the report says it was", async () => {
    const setup = linuxInstallHome('install-review');
    const state = path.join(setup.homedir, '.local', 'state', 'comet-relay');
    fs.mkdirSync(state, { recursive: true });
    fs.chmodSync(state, 0o755);
    const report = await install({ ...setup, browsers: ['chromium'] });
    expect(report.ok).toBe(true);
    expect(report.lines.join('\n')).toContain('note: the state folder ~/.local/state/comet-relay was open to others (mode 755); it is 700 now');
  });
});

describe("#12 doctor's fix for a readable token pastes whole, and the public token is checked (review 2026-12-05 #12)", () => {
  it('#12: a state folder with a space: the chmod line is quoted; public-token at 644 fails its own check', async () => {
    const setup = linuxInstallHome('install-review');
    const home = path.join(setup.homedir, 'Library', 'Application Support', 'comet-relay');
    await install({ ...setup, home, browsers: ['chromium'] });
    fs.chmodSync(path.join(home, 'token'), 0o644);
    fs.writeFileSync(path.join(home, 'public-token'), 'x'.repeat(43), { mode: 0o644 });
    fs.chmodSync(path.join(home, 'public-token'), 0o644);
    const report = await doctor({ ...setup, home, listHosts: () => [] });
    const token = report.checks.find((c) => c.name === 'HTTP token');
    expect(token?.ok).toBe(false);
    expect(shellWords(String(token?.fix).replace(/^run: /, ''))).toEqual(['chmod', '600', path.join(home, 'token')]);
    const publicToken = report.checks.find((c) => c.name === 'public token');
    expect(publicToken).toMatchObject({ ok: false, detail: expect.stringContaining('public-token is readable by others (mode 0644)') });
    expect(shellWords(String(publicToken?.fix).replace(/^run: /, ''))).toEqual(['chmod', '600', path.join(home, 'public-token')]);

    fs.chmodSync(path.join(home, 'public-token'), 0o600);
    const fixed = await doctor({ ...setup, home, listHosts: () => [] });
    expect(fixed.checks.find((c) => c.name === 'public token')).toMatchObject({ ok: true });
  });
});

describe('#13 install --user-data-dir says when no browser profile is there (review 2026-12-05 #13)', () => {
  it('#13: a typo is created and said to hold no profile; a folder a browser ran with is not', async () => {
    const setup = linuxInstallHome('install-review');
    const typo = path.join(setup.homedir, 'chrome-profle');
    const report = await install({ ...setup, userDataDir: typo });
    expect(report.ok).toBe(true);
    expect(report.lines.join('\n')).toContain('note: ~/chrome-profle did not exist (install created it) and holds no browser profile yet (no Local State file)');

    const real = path.join(setup.homedir, 'chrome-profile');
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'Local State'), '{}');
    const good = await install({ ...setup, userDataDir: real });
    expect(good.lines.join('\n')).not.toContain('no browser profile');
  });
});

/**
 * What `code` is given when the line is pasted into PowerShell: the single-quoted word read back ('' is '),
 * passed to code.cmd (a batch file, so PowerShell 5.1 and 7.3+ alike build its command line the legacy way:
 * the word as it is, in double quotes when it holds a space outside unescaped quotes), then split as
 * Code.exe splits it (the C runtime's rules: 2n backslashes before a quote are n and the quote delimits,
 * 2n+1 are n and a literal quote).
 */
function throughPowerShellToCode(line: string): string[] {
  const word = /^code --add-mcp '((?:[^']|'')*)'$/.exec(line)?.[1];
  if (word === undefined) throw new Error(`not one single-quoted word after code --add-mcp: ${line}`);
  const value = word.replace(/''/g, "'");
  let quotes = 0;
  let spaced = false;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '"' && value[i - 1] !== '\\') quotes++;
    else if (/\s/.test(value[i] as string) && quotes % 2 === 0) spaced = true;
  }
  return crtArgv(spaced ? `"${value}"` : value);
}

function crtArgv(commandLine: string): string[] {
  const args: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < commandLine.length; ) {
    const c = commandLine[i] as string;
    if (c === '\\') {
      let n = 0;
      while (commandLine[i] === '\\') {
        n++;
        i++;
      }
      if (commandLine[i] === '"') {
        current += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) {
          current += '"';
          i++;
        }
      } else current += '\\'.repeat(n);
      started = true;
    } else if (c === '"') {
      quoted = !quoted;
      started = true;
      i++;
    } else if (/\s/.test(c) && !quoted) {
      if (started) args.push(current);
      current = '';
      started = false;
      i++;
    } else {
      current += c;
      started = true;
      i++;
    }
  }
  if (started) args.push(current);
  return args;
}

describe('#15 config vscode prints a line PowerShell passes whole on Windows (review 2026-12-05 #15)', () => {
  const entry = (json: object) => ({ name: 'comet-relay', type: 'stdio', ...json });

  it("#15: win32: `code --add-mcp '…'` reaches code as the JSON, quotes, a space, a ' and a path ending in \\ included", () => {
    const options = { platform: 'win32' as const, nodePath: 'C:\\Program Files\\nodejs\\node.exe', cliPath: "C:\\Users\\O'Neil\\comet relay\\dist\\cli.js" };
    for (const home of [undefined, 'C:\\', 'D:\\relay state']) {
      const config = clientConfig('vscode', { ...options, home });
      const line = config.snippets[1];
      expect(line?.label).toBe('Or the command line (PowerShell)');
      const argv = throughPowerShellToCode(line?.content as string);
      expect(argv).toHaveLength(1);
      expect(JSON.parse(argv[0] as string)).toEqual(
        entry({ command: options.nodePath, args: [options.cliPath, 'mcp'], ...(home ? { env: { COMET_RELAY_HOME: home } } : {}) }),
      );
    }
  });

  it('#15: win32: a path holding a character cmd.exe acts on (code is a batch file) gets the file form only, saying why', () => {
    const config = clientConfig('vscode', { platform: 'win32', nodePath: 'C:\\nodejs\\node.exe', cliPath: 'C:\\R&D\\dist\\cli.js' });
    expect(config.snippets.map((s) => s.format)).toEqual(['json']);
    expect(config.hint).toContain('C:\\R&D\\dist\\cli.js holds &');
  });

  it('#15: elsewhere the POSIX line is kept, and sh passes it whole', () => {
    const options = { platform: 'linux' as const, nodePath: '/usr/bin/node', cliPath: "/home/o'neil/comet relay/dist/cli.js", home: '/tmp/h' };
    const line = clientConfig('vscode', options).snippets[1];
    expect(line?.label).toBe('Or the command line');
    const words = shellWords(String(line?.content).replace(/^code /, ''));
    expect(words[0]).toBe('--add-mcp');
    expect(JSON.parse(words[1] as string)).toEqual(entry({ command: '/usr/bin/node', args: [options.cliPath, 'mcp'], env: { COMET_RELAY_HOME: '/tmp/h' } }));
  });
});
