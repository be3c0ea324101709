import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listHosts, writeHostRecord } from '../../lib/relay/discovery';
import { RelayClient } from '../../lib/relay/client';
import { NativeHost } from '../../lib/relay/host';
import { silentLogger } from '../../lib/relay/logger';
import { socketPath } from '../../lib/relay/paths';
import { checkSocketOwner, ensurePrivateDir } from '../../lib/relay/private-dir';
import { FakeExtension } from '../support/fake-extension';

/** The folders and the socket that carry agents' calls admit this user only, from the first instant. */
const isRoot = process.getuid?.() === 0;
const someoneElse = (process.getuid?.() ?? 0) + 4242;
const TMP = os.tmpdir(); // before any test points TMPDIR elsewhere
let scratch: string;
beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(TMP, 'cr-private-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

describe('ensurePrivateDir', () => {
  it('creates a missing folder 0700 and tightens one of ours that is wider', () => {
    const fresh = path.join(scratch, 'a', 'b');
    ensurePrivateDir(fresh);
    expect(modeOf(fresh)).toBe(0o700);
    const loose = path.join(scratch, 'loose');
    fs.mkdirSync(loose, { mode: 0o777 });
    fs.chmodSync(loose, 0o777);
    ensurePrivateDir(loose);
    expect(modeOf(loose)).toBe(0o700);
  });

  it('refuses a symbolic link and a folder of another user, saying what to do', () => {
    const target = path.join(scratch, 'elsewhere');
    fs.mkdirSync(target);
    const link = path.join(scratch, 'link');
    fs.symlinkSync(target, link);
    expect(() => ensurePrivateDir(link)).toThrow(/symbolic link.*COMET_RELAY_HOME/);
    expect(() => ensurePrivateDir(target, { uid: someoneElse })).toThrow(/belongs to user \d+, not to you.*COMET_RELAY_HOME/);
  });
});

describe('the host socket', () => {
  it('a run folder left wider than 0700 is tightened before the host listens in it', async () => {
    const home = path.join(scratch, 'home');
    fs.mkdirSync(path.join(home, 'run'), { recursive: true });
    fs.chmodSync(path.join(home, 'run'), 0o755);
    fs.chmodSync(home, 0o755);
    const extension = new FakeExtension();
    const host = new NativeHost({ home, input: extension.toHost, output: extension.fromHost, logger: silentLogger });
    const previous = process.umask(0); // the most permissive umask a browser could hand us
    try {
      extension.hello();
      await extension.next('welcome');
    } finally {
      process.umask(previous);
    }
    const [record] = listHosts(home);
    expect(modeOf(path.join(home, 'run'))).toBe(0o700);
    expect(modeOf(home)).toBe(0o700);
    expect(modeOf(path.join(home, 'hosts'))).toBe(0o700);
    expect(modeOf(record!.socketPath)).toBe(0o600);
    await host.stop('test over');
  });

  it.skipIf(!isRoot)('a /tmp fallback folder owned by another user is refused, and the extension is told why', async () => {
    const tmp = path.join(scratch, 'tmp');
    fs.mkdirSync(tmp);
    const home = path.join(scratch, 'h'.repeat(100)); // too long for a socket path: the tmp fallback is used
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const fallback = path.dirname(socketPath(home, 'testprofile01'));
      expect(fallback.startsWith(tmp)).toBe(true);
      fs.mkdirSync(fallback, { mode: 0o777 });
      fs.chownSync(fallback, 65534, 65534);
      const extension = new FakeExtension();
      const host = new NativeHost({ home, input: extension.toHost, output: extension.fromHost, logger: silentLogger });
      extension.hello();
      const event = await extension.next('event', (m) => m.kind === 'event' && m.event === 'host.error');
      expect(JSON.stringify(event)).toMatch(/belongs to user 65534, not to you/);
      expect(listHosts(home)).toEqual([]);
      await host.stop('test over');
    } finally {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
    }
  });
});

describe('a client facing a socket it does not own', () => {
  it('checkSocketOwner refuses it and says what to do', async () => {
    const file = path.join(scratch, 's.sock');
    const server = net.createServer().listen(file);
    await new Promise((r) => server.once('listening', r));
    expect(() => checkSocketOwner(file)).not.toThrow();
    expect(() => checkSocketOwner(file, { uid: someoneElse })).toThrow(/belongs to user \d+, not to you .*Remove it .*restart your browser/);
    server.close();
  });

  it.skipIf(!isRoot)('RelayClient will not speak to a host socket owned by another user', async () => {
    const home = path.join(scratch, 'home');
    fs.mkdirSync(path.join(home, 'run'), { recursive: true, mode: 0o700 });
    const file = path.join(home, 'run', 'stranger.sock');
    let spokenTo = false;
    const server = net.createServer(() => (spokenTo = true)).listen(file);
    await new Promise((r) => server.once('listening', r));
    fs.chownSync(file, 65534, 65534);
    const now = new Date().toISOString();
    writeHostRecord(home, {
      profileId: 'strangerprofile',
      profileLabel: 'Stranger',
      browser: { name: 'Chromium', version: '1' },
      extensionVersion: '0.1.0',
      hostVersion: '0.1.0',
      socketPath: file,
      pid: process.pid,
      startedAt: now,
      connectedAt: now,
    });
    const client = new RelayClient({ home, client: { name: 'careful' }, transport: 'stdio', hostWaitMs: 0 });
    await expect(client.call('tabs.list', {})).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/belongs to user 65534/) });
    expect(spokenTo).toBe(false);
    client.close();
    server.close();
  });
});
