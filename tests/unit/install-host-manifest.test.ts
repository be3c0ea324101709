import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildManifest, HOST_NODE_FLAGS, launcherPath, launcherScript, parseLauncher, shUnquote, writeLauncher } from '../../lib/install/host-manifest';
import { packageCopy, rebuildHint } from '../../lib/install/package-copy';
import { EXTENSION_ORIGIN, NATIVE_HOST_NAME } from '../../lib/protocol/identity';

const temps: string[] = [];
const tempDir = (prefix = 'cr-launcher-') => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for dist/cli.js that prints what it was started with. */
function echoCli(dir: string): string {
  const file = path.join(dir, 'cli.js');
  fs.writeFileSync(file, 'console.log(JSON.stringify({ argv: process.argv.slice(2), home: process.env.COMET_RELAY_HOME ?? null }));\n');
  return file;
}

describe('host manifest', () => {
  it('names our host, stdio, and admits only our extension', () => {
    expect(buildManifest('/x/bin/comet-relay-host')).toEqual({
      name: NATIVE_HOST_NAME,
      description: expect.any(String),
      path: '/x/bin/comet-relay-host',
      type: 'stdio',
      allowed_origins: [EXTENSION_ORIGIN],
    });
  });

  it('puts the launcher in <stateDir>/bin, .bat on Windows', () => {
    expect(launcherPath('/s', 'linux')).toBe('/s/bin/comet-relay-host');
    expect(launcherPath('C:\\s', 'win32')).toBe('C:\\s\\bin\\comet-relay-host.bat');
  });
});

describe('sh launcher', () => {
  it('a rewrite that fails part way (a full disk) leaves the working launcher as it was, never a cut one (review 11f, F5)', () => {
    const dir = tempDir();
    const stateDir = path.join(dir, 'state');
    const good = writeLauncher({ stateDir, nodePath: process.execPath, cliPath: echoCli(dir), platform: 'linux', env: {} });
    const before = fs.readFileSync(good, 'utf8');
    // The disk fills after 200 bytes of the new text, as the kernel answers a write it can take only part of.
    const full = {
      ...fs,
      writeSync(fd: number, buffer: Uint8Array, offset = 0, length = buffer.length) {
        if (length > 200) {
          fs.writeSync(fd, buffer, offset, 200);
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        return fs.writeSync(fd, buffer, offset, length);
      },
    };
    expect(() => writeLauncher({ stateDir, home: path.join(stateDir, 'a', 'longer', 'home'), nodePath: process.execPath, cliPath: echoCli(dir), platform: 'linux', env: {}, fs: full as never })).toThrow(/ENOSPC/);
    expect(fs.readFileSync(good, 'utf8')).toBe(before);
    expect(fs.statSync(good).mode & 0o777).toBe(0o755);
  });

  it('execs the absolute node with the CLI and "host", passing the browser arguments through', () => {
    const dir = tempDir();
    const cli = echoCli(dir);
    const file = writeLauncher({ stateDir: path.join(dir, 'state'), nodePath: process.execPath, cliPath: cli, platform: 'linux', env: {} });
    expect(file).toBe(path.join(dir, 'state', 'bin', 'comet-relay-host'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    expect(text).not.toContain('COMET_RELAY_HOME');
    // A minimal PATH, like a GUI-launched browser's.
    const out = execFileSync(file, [EXTENSION_ORIGIN, '--parent-window=0'], { env: { PATH: '/nonexistent' } }).toString();
    expect(JSON.parse(out)).toEqual({ argv: ['host', EXTENSION_ORIGIN, '--parent-window=0'], home: null });
  });

  it('bakes --home into the launcher and survives spaces, quotes and $ in every path', () => {
    const dir = tempDir("cr launcher 'quoted' $HOME `x` ");
    const cli = echoCli(dir);
    const home = path.join(dir, "state home's $PATH");
    const file = writeLauncher({ stateDir: home, home, nodePath: process.execPath, cliPath: cli, platform: 'linux', env: {} });
    const out = execFileSync(file, [EXTENSION_ORIGIN], { env: {} }).toString();
    expect(JSON.parse(out)).toEqual({ argv: ['host', EXTENSION_ORIGIN], home });
    expect(parseLauncher(fs.readFileSync(file, 'utf8'))).toEqual({ kind: 'sh', nodePath: process.execPath, cliPath: cli, home });
  });

  it('hands the host the command form install computed (COMET_RELAY_COMMAND), whatever its quotes and $', () => {
    const dir = tempDir();
    const cli = path.join(dir, 'cli.js');
    fs.writeFileSync(cli, 'console.log(JSON.stringify({ command: process.env.COMET_RELAY_COMMAND ?? null }));\n');
    const command = "node '/home/ann/it'\\''s $HOME/dist/cli.js'";
    const file = writeLauncher({ stateDir: path.join(dir, 'state'), nodePath: process.execPath, cliPath: cli, platform: 'linux', env: {}, command });
    expect(JSON.parse(execFileSync(file, [EXTENSION_ORIGIN], { env: {} }).toString())).toEqual({ command });
    // A launcher written without one leaves the host to compute its own.
    const plain = writeLauncher({ stateDir: path.join(dir, 'plain'), nodePath: process.execPath, cliPath: cli, platform: 'linux', env: {} });
    expect(JSON.parse(execFileSync(plain, [EXTENSION_ORIGIN], { env: {} }).toString())).toEqual({ command: null });
  });

  it('logs to <stateDir>/logs/host.log and exits 127 when node is gone', () => {
    const dir = tempDir();
    const cli = echoCli(dir);
    const state = path.join(dir, 'state');
    const file = writeLauncher({ stateDir: state, nodePath: path.join(dir, 'no-node'), cliPath: cli, platform: 'linux', env: {} });
    const result = spawnSync(file, [EXTENSION_ORIGIN], { env: { PATH: '/usr/bin:/bin' } });
    expect(result.status).toBe(127);
    const log = fs.readFileSync(path.join(state, 'logs', 'host.log'), 'utf8');
    expect(log).toContain(`node (${path.join(dir, 'no-node')})`);
    // The CLI may be what is gone: the fix brings this kind of copy back (here an installed package), not a command that runs it.
    expect(log).toContain(`To fix: ${rebuildHint(packageCopy({ cliPath: cli }))}`);
  });

  it('refuses relative paths and line breaks', () => {
    expect(() => launcherScript({ stateDir: '/s', nodePath: 'node', cliPath: '/c.js', platform: 'linux' })).toThrow('node path must be absolute');
    expect(() => launcherScript({ stateDir: '/s', nodePath: '/n', cliPath: '/a\nb.js', platform: 'linux' })).toThrow('line break');
  });

  it('shUnquote undoes the quoting sh uses', () => {
    expect(shUnquote(`'a b'\\''c'`)).toBe("a b'c");
    expect(shUnquote(`"x \\"y\\" \\$z"`)).toBe('x "y" $z');
    expect(shUnquote('plain\\ word')).toBe('plain word');
  });

  it('reads a hand-written exec launcher too', () => {
    expect(parseLauncher('#!/bin/sh\nexec "/opt/node 20/bin/node" /srv/cli.js host "$@"\n')).toMatchObject({ nodePath: '/opt/node 20/bin/node', cliPath: '/srv/cli.js' });
  });
});

describe('bat launcher', () => {
  it('quotes paths, doubles % and sets COMET_RELAY_HOME', () => {
    const text = launcherScript({
      platform: 'win32',
      stateDir: 'C:\\Users\\Ann Lee\\AppData\\Local\\comet-relay',
      home: 'D:\\tmp\\100% home',
      nodePath: 'C:\\Program Files\\nodejs\\node.exe',
      cliPath: 'C:\\src\\comet relay (x86)\\dist\\cli.js',
    });
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('@echo off');
    expect(lines).toContain('set "COMET_RELAY_HOME=D:\\tmp\\100%% home"');
    expect(lines).toContain('set "CR_NODE=C:\\Program Files\\nodejs\\node.exe"');
    expect(lines).toContain(`"%CR_NODE%" ${HOST_NODE_FLAGS} "%CR_CLI%" host %*`);
    expect(parseLauncher(text)).toEqual({
      kind: 'bat',
      nodePath: 'C:\\Program Files\\nodejs\\node.exe',
      cliPath: 'C:\\src\\comet relay (x86)\\dist\\cli.js',
      home: 'D:\\tmp\\100% home',
    });
  });

  it('sets COMET_RELAY_COMMAND with % doubled, and leaves out a form with a double quote (the host then says its own)', () => {
    const base = { platform: 'win32', stateDir: 'C:\\s', nodePath: 'C:\\n\\node.exe', cliPath: 'C:\\c\\dist\\cli.js' } as const;
    expect(launcherScript({ ...base, command: 'node C:\\100%\\dist\\cli.js' }).split('\r\n')).toContain('set "COMET_RELAY_COMMAND=node C:\\100%%\\dist\\cli.js"');
    expect(launcherScript({ ...base, command: 'node "C:\\a b\\dist\\cli.js"' })).not.toContain('COMET_RELAY_COMMAND');
  });

  it('rejects a double quote, which a .bat cannot carry', () => {
    expect(() => launcherScript({ platform: 'win32', stateDir: 'C:\\s', nodePath: 'C:\\a"b\\node.exe', cliPath: 'C:\\c.js' })).toThrow('double quote');
  });
});
