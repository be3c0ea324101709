import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { volatileCopyNote, packageCopy } from '../../lib/install/package-copy';
import { cliHintCommand, withCliForm } from '../../lib/protocol/identity';
import { COMMAND_ENV, cliCommand, cliForm, commandPrefix, hostForm, type InvocationContext, quoteArg, UNSAID_HOME, useGivenHome } from '../../lib/relay/invocation';

/**
 * Every hint names a command the way this copy was started (lib/relay/invocation.ts): the global
 * bin, npx with the very spec it was started with, or node and the CLI file from a clone. Each way
 * is laid out on disk as npm lays it out (npm 11, 2026-12-02) and asked for its words.
 */
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  useGivenHome(undefined);
});

function scratch(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cr-invocation-')));
  made.push(dir);
  return dir;
}

/** A package folder with dist/cli.js, as npm unpacks it. */
function packageIn(...parts: string[]): string {
  const root = path.join(...parts);
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist', 'cli.js'), '// built\n', { mode: 0o755 });
  return path.join(root, 'dist', 'cli.js');
}

const context = (over: Partial<InvocationContext>): Partial<InvocationContext> => ({ env: { PATH: '/usr/bin:/bin' }, cwd: '/', platform: 'linux', fs, ...over });

describe('how this copy is run, said in every hint', () => {
  it('the global bin: `comet-relay …` when the comet-relay on PATH is this copy', () => {
    const prefix = scratch();
    const cli = packageIn(prefix, 'lib', 'node_modules', 'comet-relay');
    fs.mkdirSync(path.join(prefix, 'bin'));
    fs.symlinkSync(path.relative(path.join(prefix, 'bin'), cli), path.join(prefix, 'bin', 'comet-relay'));
    const bin = path.join(prefix, 'bin', 'comet-relay');
    const env = { PATH: `${path.join(prefix, 'bin')}:/usr/bin` };
    expect(cliCommand('doctor', context({ argv: ['/usr/bin/node', bin, 'install'], env, cliPath: cli }))).toBe('comet-relay doctor');
    // An MCP client that starts it as node + the absolute file gets the same words: it is the one on PATH.
    expect(cliCommand('doctor', context({ argv: ['/usr/bin/node', cli, 'mcp'], env, cliPath: cli }))).toBe('comet-relay doctor');
    // Another comet-relay earlier on PATH is not this copy: this one is named by its bin.
    const other = scratch();
    packageIn(other, 'x');
    fs.symlinkSync(path.join(other, 'x', 'dist', 'cli.js'), path.join(other, 'comet-relay'));
    expect(cliCommand('doctor', context({ argv: ['/usr/bin/node', bin], env: { PATH: `${other}:${path.join(prefix, 'bin')}` }, cliPath: cli }))).toBe(`${bin} doctor`);
  });

  it('a bin not on PATH (npm install --prefix DIR): its absolute path', () => {
    const prefix = scratch();
    const cli = packageIn(prefix, 'node_modules', 'comet-relay');
    const bin = path.join(prefix, 'node_modules', '.bin', 'comet-relay');
    expect(commandPrefix(context({ argv: ['/usr/bin/node', bin], cliPath: cli }))).toBe(bin);
  });

  it('npx with a release file: the same spec, as typed in that run, and as the absolute file for what outlives it', () => {
    const cache = scratch();
    const hashDir = path.join(cache, '_npx', 'c2066b432aa7f6c1');
    const cli = packageIn(hashDir, 'node_modules', 'comet-relay');
    // What npm exec writes beside the copy on every run (libnpmexec: pkgJson.update({ _npx: { packages } })).
    fs.writeFileSync(
      path.join(hashDir, 'package.json'),
      JSON.stringify({ dependencies: { 'comet-relay': 'file:../../work/comet-relay-0.1.0.tgz' }, _npx: { packages: ['./comet-relay-0.1.0.tgz'] } }),
    );
    const bin = path.join(hashDir, 'node_modules', '.bin', 'comet-relay');
    const npxRun = context({ argv: ['/usr/bin/node', bin, 'install'], env: { npm_command: 'exec', PATH: '/usr/bin' }, cwd: path.join(cache, 'work'), cliPath: cli });
    expect(cliCommand('extension', npxRun)).toBe('npx ./comet-relay-0.1.0.tgz extension');
    // The launcher, a client config, the host: the relative spec holds only in that folder.
    expect(cliCommand('install', { ...npxRun, lasting: true })).toBe(`npx ${path.join(cache, 'work', 'comet-relay-0.1.0.tgz')} install`);
    expect(cliCommand('doctor', context({ argv: ['/usr/bin/node', cli, 'mcp'], cliPath: cli }))).toBe(`npx ${path.join(cache, 'work', 'comet-relay-0.1.0.tgz')} doctor`);
    // The note on npx's cache offers the same spec for a copy that stays put.
    expect(volatileCopyNote(packageCopy({ cliPath: cli }))).toContain('npm install -g ');
  });

  it('npx with a registry spec: that spec, version and all', () => {
    const cache = scratch();
    const hashDir = path.join(cache, '_npx', '9f1e');
    const cli = packageIn(hashDir, 'node_modules', 'comet-relay');
    fs.writeFileSync(path.join(hashDir, 'package.json'), JSON.stringify({ dependencies: { 'comet-relay': '^0.1.0' }, _npx: { packages: ['comet-relay@0.1.0'] } }));
    const ctx = context({ argv: ['/usr/bin/node', path.join(hashDir, 'node_modules', '.bin', 'comet-relay')], env: { npm_command: 'exec' }, cliPath: cli });
    expect(cliCommand('doctor --page', ctx)).toBe('npx comet-relay@0.1.0 doctor --page');
  });

  it('npx that found an installed bin (a project dependency): `npx comet-relay …`', () => {
    const project = scratch();
    const cli = packageIn(project, 'node_modules', 'comet-relay');
    const ctx = context({ argv: ['/usr/bin/node', path.join(project, 'node_modules', '.bin', 'comet-relay')], env: { npm_command: 'exec' }, cwd: project, cliPath: cli });
    expect(cliCommand('doctor', ctx)).toBe('npx comet-relay doctor');
  });

  it('a clone: `node dist/cli.js …` from its folder, the absolute file from anywhere else, quoted when it must be', () => {
    const clone = path.join(scratch(), "my clone's copy");
    const cli = packageIn(clone);
    fs.mkdirSync(path.join(clone, 'lib', 'cli'), { recursive: true });
    expect(cliCommand('install', context({ argv: ['/usr/bin/node', cli, 'install'], cwd: clone, cliPath: cli }))).toBe('node dist/cli.js install');
    expect(cliCommand('install', context({ argv: ['/usr/bin/node', cli, 'install'], cwd: '/usr', cliPath: cli }))).toBe(`node '${cli.replace(/'/g, `'\\''`)}' install`);
  });

  it('words kept after the process (the launcher, the host\'s welcome) name a clone\'s file absolutely, even from its folder', () => {
    const clone = scratch();
    const cli = packageIn(clone);
    expect(cliCommand('unblock', context({ argv: ['/usr/bin/node', cli, 'install'], cwd: clone, cliPath: cli, lasting: true }))).toBe(`node ${cli} unblock`);
  });
});

describe('hostForm: the form the host tells the extension', () => {
  const cli = '/home/ann/comet-relay/dist/cli.js';
  const own = context({ argv: ['/usr/bin/node', cli, 'host'], cwd: '/home/ann/.local/state/comet-relay/bin', cliPath: cli });

  it('what install wrote into the launcher, said in the person\'s shell', () => {
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay' }, own)).toEqual({ command: 'comet-relay' });
    expect(hostForm({ [COMMAND_ENV]: ' npx /home/ann/comet-relay-0.1.0.tgz ' }, own)).toEqual({ command: 'npx /home/ann/comet-relay-0.1.0.tgz' });
  });

  it('the state folder the launcher gave the host (install --home), absolute and quoted for the shell (day-5 review F7)', () => {
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay', COMET_RELAY_HOME: '/srv/cr-home' }, own)).toEqual({ command: 'comet-relay', home: '/srv/cr-home' });
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay', COMET_RELAY_HOME: '/srv/my relay' }, own)).toEqual({ command: 'comet-relay', home: "'/srv/my relay'" });
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay', COMET_RELAY_HOME: ' ' }, own)).toEqual({ command: 'comet-relay' });
  });

  it("a launcher written before it (none in the environment): the host's own lasting form", () => {
    expect(hostForm({}, own)).toEqual({ command: `node ${cli}` });
  });

  it("the host's own words (run through the launcher) say every command in the launcher's form", () => {
    const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
    const run = spawnSync(process.execPath, [cli, 'selectors', 'remove'], { env: { PATH: process.env.PATH, [COMMAND_ENV]: 'npx /home/ann/comet-relay-0.1.0.tgz' }, encoding: 'utf8' });
    expect(run.stderr).toContain('name the set: npx /home/ann/comet-relay-0.1.0.tgz selectors remove NAME (`npx /home/ann/comet-relay-0.1.0.tgz selectors list` shows them)');
  });

  it('a form that cannot travel (a control character, too long) is not sent as it is', () => {
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay\nrm -rf ~' }, own)).toEqual({ command: `node ${cli}` });
    expect(hostForm({ [COMMAND_ENV]: `node /${'x'.repeat(1000)}` }, own)).toEqual({ command: `node ${cli}` });
    // A state folder that cannot travel is said as what to put there: never a command for the default folder, nor an
    // earlier install's form kept for want of one (day-7 reviews F5, G5).
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay', COMET_RELAY_HOME: `/${'x'.repeat(1000)}` }, own)).toEqual({ command: 'comet-relay', home: UNSAID_HOME });
    expect(hostForm({ [COMMAND_ENV]: 'comet-relay', COMET_RELAY_HOME: '/srv/a\u0007b' }, own)).toEqual({ command: 'comet-relay', home: UNSAID_HOME });
    expect(cliHintCommand('doctor', { command: 'comet-relay', home: UNSAID_HOME })).toBe('comet-relay doctor --home <the folder you installed with>');
    expect(hostForm({}, { ...own, cliPath: `/${'x'.repeat(1000)}/cli.js` })).toBeUndefined();
  });
});

describe('the state folder a run was given, in every command it names (new-user review #2)', () => {
  const cli = '/opt/comet-relay/dist/cli.js';
  const clone = context({ argv: ['/usr/bin/node', cli], cwd: '/tmp', cliPath: cli });

  it('--home given: every command that takes one names it, quoted for the shell; the others do not', () => {
    useGivenHome("/tmp/ann's home");
    expect(cliCommand('doctor', clone)).toBe(`node ${cli} doctor --home '/tmp/ann'\\''s home'`);
    expect(cliCommand('token --public', clone)).toBe(`node ${cli} token --public --home '/tmp/ann'\\''s home'`);
    expect(cliCommand('selectors add FILE', clone)).toBe(`node ${cli} selectors add FILE --home '/tmp/ann'\\''s home'`);
    for (const sub of ['mcp', 'serve', 'status', 'export --all', 'capture', 'install', 'uninstall', 'unblock --undo', 'config http']) {
      expect(cliCommand(sub, clone), sub).toMatch(/ --home '\/tmp\/ann'\\''s home'$/);
    }
    // Commands without a state folder, and a command that names its own --home, are left as they are.
    expect(cliCommand('extension', clone)).toBe(`node ${cli} extension`);
    expect(cliCommand('uninstall --home /other', clone)).toBe(`node ${cli} uninstall --home /other`);
    // The prefix alone (the launcher's form, help's usage lines) never carries it.
    expect(commandPrefix(clone)).toBe(`node ${cli}`);
  });

  it('a relative --home is said as the absolute folder: the hint may be run from elsewhere', () => {
    useGivenHome('rel/home');
    expect(cliCommand('doctor', clone)).toBe(`node ${cli} doctor --home ${path.resolve('rel/home')}`);
  });

  it('COMET_RELAY_HOME (a client config, the launcher) counts as given; --home wins over it; none: nothing added', () => {
    const withEnv = { ...clone, env: { ...clone.env, COMET_RELAY_HOME: '/srv/cr' } };
    expect(cliCommand('doctor', withEnv)).toBe(`node ${cli} doctor --home /srv/cr`);
    useGivenHome('/tmp/h');
    expect(cliCommand('doctor', withEnv)).toBe(`node ${cli} doctor --home /tmp/h`);
    useGivenHome(undefined);
    expect(cliCommand('doctor', clone)).toBe(`node ${cli} doctor`);
  });

  it("text said without a form (a pack's problems) is said in this run's form, its --home included", () => {
    useGivenHome('/srv/cr');
    const said = withCliForm('its reader is not valid: `comet-relay selectors list` shows the sets', cliForm(clone));
    expect(said).toBe(`its reader is not valid: \`node ${cli} selectors list --home /srv/cr\` shows the sets`);
    useGivenHome(undefined);
    expect(cliForm(clone)).toEqual({ command: `node ${cli}` });
  });
});

describe('a word for the Windows shells (day-5 review F6, day-7e E2)', () => {
  it('double quotes, the one form cmd and PowerShell both take for a path with spaces', () => {
    expect(quoteArg('C:\\Users\\ann\\relay', 'win32')).toBe('C:\\Users\\ann\\relay');
    expect(quoteArg('C:\\Users\\ann\\my relay', 'win32')).toBe('"C:\\Users\\ann\\my relay"');
    expect(quoteArg('\\\\srv\\C$\\relay state', 'win32')).toBe('"\\\\srv\\C$\\relay state"');
  });
});
