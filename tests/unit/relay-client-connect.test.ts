import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROTOCOL_VERSION } from '../../lib/protocol/identity';
import { encodeFrame } from '../../lib/protocol/framing';
import { RelayClient } from '../../lib/relay/client';
import { type HostRecord, listHosts, writeHostRecord } from '../../lib/relay/discovery';
import { NativeHost } from '../../lib/relay/host';
import { cliCommand } from '../../lib/relay/invocation';
import { silentLogger } from '../../lib/relay/logger';
import { hostRecordPath, hostsDir } from '../../lib/relay/paths';
import { ensurePrivateDir } from '../../lib/relay/private-dir';
import { FakeExtension } from '../support/fake-extension';

/**
 * How RelayClient finds its host when the socket does not simply answer (review of 2026-12-05, relay #1, #2, #6):
 * a live host that refuses keeps its record, a dead record that cannot be removed ends the call at its deadline,
 * and the handshake failures say what to do.
 */
let home: string;
const clients: RelayClient[] = [];
const servers: net.Server[] = [];
const hosts: NativeHost[] = [];

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-connect-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) server.close();
  for (const host of hosts.splice(0)) await host.stop('test over');
  fs.rmSync(home, { recursive: true, force: true });
});

function client(hostWaitMs: number): RelayClient {
  const c = new RelayClient({ home, client: { name: 'probe' }, transport: 'stdio', hostWaitMs });
  clients.push(c);
  return c;
}

/** A real host with a fake extension that answers tabs.list. */
async function liveHost(): Promise<void> {
  const extension = new FakeExtension();
  hosts.push(new NativeHost({ home, input: extension.toHost, output: extension.fromHost, logger: silentLogger }));
  extension.hello();
  await extension.next('welcome');
  extension.answerRequests(() => ({ tabs: [] }));
}

/** What this platform answers a connect to a unix socket whose listen queue is full with (unix(7); macOS and the BSDs refuse). */
const FULL_QUEUE = process.platform === 'linux' ? 'EAGAIN' : 'ECONNREFUSED';

/**
 * net.connect fails with `code` (a full listen queue's, by default) while `refusing(attempt)` says so, and connects
 * for real otherwise. Counts every try.
 */
function refuseConnects(refusing: (attempt: number) => boolean, code = FULL_QUEUE): { attempts(): number } {
  const real = net.connect as (...args: unknown[]) => net.Socket;
  let attempts = 0;
  vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
    attempts++;
    if (!refusing(attempts)) return real(...args);
    const socket = new net.Socket();
    setImmediate(() => socket.destroy(Object.assign(new Error(`connect ${code}`), { code })));
    return socket;
  }) as typeof net.connect);
  return { attempts: () => attempts };
}

function countConnects(): { attempts(): number } {
  return refuseConnects(() => false);
}

/** What a promise came to within `ms`, or 'still pending': a call that never ends fails the test instead of hanging it. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still pending'> {
  return Promise.race([promise, new Promise<'still pending'>((resolve) => setTimeout(() => resolve('still pending'), ms))]);
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: Error & { code?: string }) => error,
  );

function record(socketPath: string): HostRecord {
  const at = new Date().toISOString();
  // A live pid (ours): only the socket can tell whether a host is there.
  return { profileId: 'testprofile01', profileLabel: 'Work', browser: { name: 'Chromium', version: '156' }, extensionVersion: '0.1.0', hostVersion: '0.1.0', socketPath, pid: process.pid, startedAt: at, connectedAt: at };
}

describe('a live host that refuses a connection (a full listen queue) keeps its record', () => {
  it('the call tries again within its wait and is answered once the host accepts; the record stays', async () => {
    await liveHost();
    const connects = refuseConnects((attempt) => attempt <= 3);
    expect(await client(5000).call('tabs.list', {}, { timeoutMs: 5000 })).toEqual({ tabs: [] });
    expect(connects.attempts()).toBeGreaterThanOrEqual(4);
    expect(listHosts(home)).toHaveLength(1);
    // Another client finds it too.
    expect(await client(5000).call('tabs.list', {}, { timeoutMs: 5000 })).toEqual({ tabs: [] });
  });

  it('a host that refuses until the wait is over fails the call with what happened and what to do, its record kept', async () => {
    await liveHost();
    const connects = refuseConnects(() => true);
    const error = await within(outcome(client(600).call('tabs.list', {}, { timeoutMs: 1000 })), 10_000);
    expect(error).toMatchObject({
      code: 'EXTENSION_NOT_CONNECTED',
      message: expect.stringMatching(
        new RegExp(`^The comet-relay host of profile "Test profile" \\(pid ${process.pid}\\) refuses connections: it may be overloaded or hung\\. .*reload the extension or restart the browser\\. .*${escaped(cliCommand('doctor'))}`),
      ),
    });
    expect(connects.attempts()).toBeGreaterThan(1); // it tried again
    expect(connects.attempts()).toBeLessThan(100); // with a wait between tries
    expect(listHosts(home)).toHaveLength(1);
  });

  it('close() ends a connect that is waiting on a refusing host', async () => {
    await liveHost();
    refuseConnects(() => true);
    const patient = client(60_000);
    const pending = outcome(patient.call('tabs.list', {}));
    await new Promise((resolve) => setTimeout(resolve, 100));
    patient.close();
    expect(await within(pending, 10_000)).toMatchObject({ code: 'CANCELLED' });
  });
});

describe('a refusal where nobody listens', () => {
  it('on Linux a refused connect means no listener: the record of a crashed host whose pid another process has now goes', async () => {
    if (process.platform !== 'linux') return;
    // A live pid (ours) and a socket file whose connects are refused: what a crashed host leaves once its pid is reused.
    ensurePrivateDir(path.join(home, 'run'));
    const socketPath = path.join(home, 'run', 'testprofile01.sock');
    const server = net.createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    writeHostRecord(home, record(socketPath));
    refuseConnects(() => true, 'ECONNREFUSED');
    const error = await within(outcome(client(300).call('tabs.list', {})), 10_000);
    expect(error).toMatchObject({ code: 'EXTENSION_NOT_CONNECTED', message: expect.not.stringContaining('refuses connections') });
    expect(fs.existsSync(hostRecordPath(home, 'testprofile01'))).toBe(false);
  });

  it('where a full queue is refused too (macOS), a refusal from a live pid is a busy host: its record stays', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform');
    Object.defineProperty(process, 'platform', { value: 'darwin' });
    try {
      await liveHost();
      refuseConnects((attempt) => attempt <= 2, 'ECONNREFUSED');
      expect(await client(5000).call('tabs.list', {}, { timeoutMs: 5000 })).toEqual({ tabs: [] });
      expect(listHosts(home)).toHaveLength(1);
    } finally {
      if (platform) Object.defineProperty(process, 'platform', platform);
    }
  });
});

describe('a dead record that cannot be removed (review relay #2)', () => {
  it('ends the call at its deadline, saying the record could not be removed and where, without spinning', async () => {
    // A live pid, and a socket that is gone: dead. Its folder will not let it go (a read-only mount, say).
    writeHostRecord(home, record(path.join(home, 'run', 'gone.sock')));
    const file = hostRecordPath(home, 'testprofile01');
    const rename = fs.renameSync;
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(from) === file) throw Object.assign(new Error(`EACCES: permission denied, rename '${file}'`), { code: 'EACCES' });
      rename(from, to);
    });
    const connects = countConnects();
    const error = await within(outcome(client(500).call('tabs.list', {}, { timeoutMs: 1000 })), 10_000);
    expect(error).toMatchObject({
      code: 'EXTENSION_NOT_CONNECTED',
      message: expect.stringContaining(`could not be removed: ${file}. Make the folder ${hostsDir(home)} writable by you`),
    });
    expect(connects.attempts()).toBeGreaterThanOrEqual(1);
    expect(connects.attempts()).toBeLessThan(100);
    expect(fs.existsSync(file)).toBe(true);
  });

  it('a dead record that can be removed is removed, as before', async () => {
    writeHostRecord(home, record(path.join(home, 'run', 'gone.sock')));
    const error = await within(outcome(client(200).call('tabs.list', {})), 10_000);
    expect(error).toMatchObject({ code: 'EXTENSION_NOT_CONNECTED', message: expect.not.stringContaining('could not be removed') });
    expect(fs.existsSync(hostRecordPath(home, 'testprofile01'))).toBe(false);
  });
});

describe('the handshake failures say what to do (review relay #6)', () => {
  async function fakeHost(onSocket: (socket: net.Socket) => void): Promise<void> {
    ensurePrivateDir(path.join(home, 'run'));
    const socketPath = path.join(home, 'run', 'testprofile01.sock');
    const server = net.createServer(onSocket);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    writeHostRecord(home, record(socketPath));
  }

  const remedy = new RegExp(`\\(pid ${process.pid}\\).*reload the extension or restart the browser.*${escaped(cliCommand('doctor'))}\` shows the hosts`, 'i');

  it('a host that never welcomes', async () => {
    await fakeHost(() => {});
    const error = await within(outcome(client(0).call('tabs.list', {}, { timeoutMs: 10_000 })), 12_000);
    expect(error).toMatchObject({ code: 'EXTENSION_NOT_CONNECTED', message: expect.stringMatching(/^The comet-relay host of profile "Work" \(pid \d+\) did not answer the handshake/) });
    expect((error as Error).message).toMatch(remedy);
  });

  it('an older host that refuses in its own words is said in ours: which side is older and that a reload ends it (review 8, skew F3)', async () => {
    const older = PROTOCOL_VERSION - 1;
    await fakeHost((socket) => {
      // What a host of the protocol before answered, word for word (lib/relay/host.ts as it was).
      socket.write(encodeFrame({ kind: 'incompatible', protocolVersion: older, version: '0.1.0', message: 'Use the same comet-relay for the MCP command and for `comet-relay install`.' }));
      socket.end();
    });
    const error = await within(outcome(client(300).call('tabs.list', {}, { timeoutMs: 10_000 })), 10_000);
    expect(error).toMatchObject({ code: 'VERSION_MISMATCH' });
    expect((error as Error).message).toBe(
      `The comet-relay host the browser runs is older than this comet-relay (protocol ${PROTOCOL_VERSION} beside the host's ${older}, comet-relay 0.1.0): the browser still runs it from before an upgrade, or its registration starts another, older copy. Reload the comet-relay extension on the browser's extensions page (or restart the browser) so that it starts the host again; if it is still older, run install with this copy and reload once more.`,
    );
  });

  it('a host that drops every hello, once the wait is over', async () => {
    await fakeHost((socket) => socket.destroy());
    const error = await within(outcome(client(300).call('tabs.list', {}, { timeoutMs: 10_000 })), 10_000);
    expect(error).toMatchObject({ code: 'EXTENSION_NOT_CONNECTED', message: expect.stringMatching(/^The comet-relay host of profile "Work" \(pid \d+\) closed the connection during the handshake/) });
    expect((error as Error).message).toMatch(remedy);
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
