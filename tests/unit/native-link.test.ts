import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BACKOFF, nextAttempt } from '../../lib/worker/link/backoff';
import { describeDisconnect, type LinkStatus, NativeLink, RECONNECT_ALARM } from '../../lib/worker/link/native-link';
import { PROTOCOL_VERSION } from '../../lib/protocol/identity';
import { FakePort } from '../support/fake-port';

/** The worker's link to the host with a fake port: handshake, honest status, backoff, alarms. */
let ports: FakePort[];
let alarms: string[];
let statuses: LinkStatus[];
let lastError: string | undefined;

const HELLO = { kind: 'hello', role: 'extension', protocolVersion: 1, version: '0.1.0' } as const;

function makeLink(options: { hello?: () => Promise<typeof HELLO>; onMessage?: (m: unknown) => void; newPort?: () => FakePort } = {}) {
  return new NativeLink(
    {
      connectNative: () => {
        const port = options.newPort?.() ?? new FakePort();
        ports.push(port);
        return port;
      },
      lastError: () => lastError,
      scheduleAlarm: (name) => alarms.push(name),
      clearAlarm: (name) => alarms.push(`clear:${name}`),
    },
    options.hello ?? (async () => HELLO),
    { onMessage: options.onMessage ?? (() => {}), onStatus: (s) => statuses.push({ ...s }) },
  );
}

beforeEach(() => {
  vi.useFakeTimers();
  ports = [];
  alarms = [];
  statuses = [];
  lastError = undefined;
});
afterEach(() => vi.useRealTimers());

describe('backoff', () => {
  it('bursts with exponential delays capped at 5 s, then falls back to a 30 s alarm forever', () => {
    const delays = [1, 2, 3, 4, 5].map((n) => nextAttempt(n));
    expect(delays).toEqual([250, 500, 1000, 2000, 4000].map((delayMs) => ({ kind: 'timer', delayMs })));
    expect(nextAttempt(3, { ...DEFAULT_BACKOFF, maxDelayMs: 600 })).toEqual({ kind: 'timer', delayMs: 600 });
    expect(nextAttempt(6)).toEqual({ kind: 'alarm', minutes: 0.5 });
    expect(nextAttempt(600)).toEqual({ kind: 'alarm', minutes: 0.5 });
  });
});

describe('NativeLink', () => {
  it('is "connected" only after the host answers the handshake', async () => {
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(ports[0]?.sent[0]).toMatchObject({ kind: 'hello' });
    expect(link.current.state).toBe('connecting');
    ports[0]?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 42 });
    expect(link.current).toMatchObject({ state: 'connected', hostPid: 42, failures: 0 });
    expect(alarms).toContain(`clear:${RECONNECT_ALARM}`);
  });

  it('keeps the command form the host names, through a disconnect and a host too old to name one; a stored one only until then', async () => {
    lastError = 'Native host has exited.';
    const link = makeLink();
    link.rememberForm({ command: 'comet-relay' }); // from storage, an earlier run
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    ports[0]?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 42, command: 'node /home/ann/comet-relay/dist/cli.js' });
    expect(link.current).toMatchObject({ state: 'connected', form: { command: 'node /home/ann/comet-relay/dist/cli.js' } });
    link.rememberForm({ command: 'comet-relay' }); // a late storage read does not undo what the host said
    expect(link.current.form).toEqual({ command: 'node /home/ann/comet-relay/dist/cli.js' });
    ports[0]?.drop();
    expect(link.current.detail).toBe('Native host has exited. The host stopped; see its log (`node /home/ann/comet-relay/dist/cli.js doctor` prints where).');
    await vi.advanceTimersByTimeAsync(5000);
    ports.at(-1)?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.0.9', pid: 43 });
    expect(link.current).toMatchObject({ state: 'connected', hostPid: 43, form: { command: 'node /home/ann/comet-relay/dist/cli.js' } });
    // A welcome whose form carries a line break is not a welcome this link takes.
    link.restart();
    await vi.advanceTimersByTimeAsync(0);
    ports.at(-1)?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 44, command: 'comet-relay\nrm -rf ~' });
    expect(link.current.state).toBe('connecting');
  });

  it("a host installed with its own state folder: every command says it, until a host without one connects", async () => {
    lastError = 'Native host has exited.';
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    ports[0]?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 42, command: 'comet-relay', home: "'/srv/my relay'" });
    expect(link.current.form).toEqual({ command: 'comet-relay', home: "'/srv/my relay'" });
    ports[0]?.drop();
    expect(link.current.detail).toBe("Native host has exited. The host stopped; see its log (`comet-relay doctor --home '/srv/my relay'` prints where).");
    await vi.advanceTimersByTimeAsync(5000);
    // Installed again without --home: the folder is no longer said.
    ports.at(-1)?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 43, command: 'comet-relay' });
    expect(link.current.form).toEqual({ command: 'comet-relay' });
  });

  it('a form read from storage after the first fault was shown says that fault again in it', async () => {
    lastError = 'Specified native messaging host not found.';
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    ports[0]?.drop();
    expect(link.current.detail).toContain('run `comet-relay install` (or however');
    link.rememberForm({ command: 'npx /home/ann/comet-relay-0.1.0.tgz' });
    expect(link.current.detail).toBe(
      'Specified native messaging host not found. The native host is not registered for this browser: run `npx /home/ann/comet-relay-0.1.0.tgz install`, then `npx /home/ann/comet-relay-0.1.0.tgz doctor`.',
    );
  });

  it('stamps each port\'s hello with a later portOpenedAt, even within one millisecond', async () => {
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    link.restart(); // the panel's Reconnect while connecting: the first port is abandoned mid-handshake
    await vi.advanceTimersByTimeAsync(0);
    const [first, second] = ports.map((port) => (port.sent[0] as { portOpenedAt: number }).portOpenedAt);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first as number);
  });

  it('reconnects after a disconnect with backoff, then on an alarm once the burst is spent', async () => {
    lastError = 'Specified native messaging host not found.';
    const link = makeLink();
    link.start();
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(0);
      ports.at(-1)?.drop();
      await vi.advanceTimersByTimeAsync(5000);
    }
    await vi.advanceTimersByTimeAsync(0);
    ports.at(-1)?.drop();
    expect(ports.length).toBe(6);
    expect(alarms).toContain(RECONNECT_ALARM);
    expect(link.current.state).toBe('disconnected');
    expect(link.current.detail).toMatch(/`comet-relay install` \(or however you run comet-relay, followed by `install`\)/);
    link.start(); // what the alarm handler does
    await vi.advanceTimersByTimeAsync(0);
    expect(ports.length).toBe(7);
  });

  it('a link that was up a while and dropped is tried again at once, then with backoff; one that dies at once gets the backoff', async () => {
    const link = makeLink();
    const welcome = (port: FakePort | undefined) => port?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 7 });
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    welcome(ports[0]);
    await vi.advanceTimersByTimeAsync(5000);
    ports[0]?.drop(); // the host crashed after five seconds of work
    await vi.advanceTimersByTimeAsync(0);
    expect(ports.length).toBe(2); // no 250 ms wait
    expect(link.current).toMatchObject({ state: 'connecting', failures: 0 });
    ports[1]?.drop(); // the new host did not start either: the backoff as before
    await vi.advanceTimersByTimeAsync(249);
    expect(ports.length).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(ports.length).toBe(3);
    await vi.advanceTimersByTimeAsync(0);
    welcome(ports[2]);
    ports[2]?.drop(); // a host that dies right after its handshake: no spawn loop
    await vi.advanceTimersByTimeAsync(0);
    expect(ports.length).toBe(3);
    await vi.advanceTimersByTimeAsync(250);
    expect(ports.length).toBe(4);
    await vi.advanceTimersByTimeAsync(0);
    welcome(ports[3]);
    await vi.advanceTimersByTimeAsync(1000);
    ports[3]?.drop(); // up a second again: at once
    await vi.advanceTimersByTimeAsync(0);
    expect(ports.length).toBe(5);
  });

  it('gives up a handshake nobody answers, and a host that stops answering heartbeats', async () => {
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(5001);
    expect(ports[0]?.disconnected).toBe(true);
    expect(statuses.map((s) => s.detail)).toContain('the host did not answer the handshake within 5 s');
    await vi.advanceTimersByTimeAsync(250);
    ports[1]?.deliver({ kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 1 });
    expect(link.current.state).toBe('connected');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(ports[1]?.sent.at(-1)).toMatchObject({ kind: 'ping' });
    await vi.advanceTimersByTimeAsync(40_000);
    expect(ports[1]?.disconnected).toBe(true);
    expect(statuses.map((s) => s.detail)).toContain('the host stopped answering heartbeats');
    expect(ports.length).toBeGreaterThanOrEqual(3); // and it keeps trying
  });

  it('says so in plain words when the host is another version, and retries slowly', async () => {
    const link = makeLink();
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    // An older host's refusal is said in the extension's words: which side is older, and the step (review 8, skew F4).
    ports[0]?.deliver({ kind: 'incompatible', protocolVersion: PROTOCOL_VERSION - 1, version: '9.0.0', message: 'Install the same version of both.' });
    expect(link.current).toMatchObject({ state: 'incompatible', detail: expect.stringMatching(/^The comet-relay host this browser starts is older than its extension \(protocol \d+ beside the host's \d+, comet-relay 9\.0\.0\)/) });
    // A refusal on the same protocol is the host's own.
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    ports.at(-1)?.deliver({ kind: 'incompatible', protocolVersion: PROTOCOL_VERSION, version: '9.0.0', message: 'A hello must name its profile.' });
    expect(link.current).toMatchObject({ state: 'incompatible', detail: 'A hello must name its profile.' });
    expect(alarms).toContain(RECONNECT_ALARM);
  });

  it('reassembles chunked messages from the host', async () => {
    const received: unknown[] = [];
    const link = makeLink({ onMessage: (m) => received.push(m) });
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    const whole = JSON.stringify({ kind: 'request', id: 'h1', method: 'page.ask', params: { prompt: 'x'.repeat(10) } });
    ports[0]?.deliver({ kind: 'chunk', chunkId: 'c', index: 1, count: 2, data: whole.slice(20) });
    ports[0]?.deliver({ kind: 'chunk', chunkId: 'c', index: 0, count: 2, data: whole.slice(0, 20) });
    expect(received).toEqual([JSON.parse(whole)]);
  });
});

describe('NativeLink after a teardown', () => {
  it('a hello that resolves after the port was torn down is not posted, and nothing rejects unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let releaseHello!: () => void;
      const helloGate = new Promise<void>((r) => (releaseHello = r));
      const link = makeLink({
        // Chromium throws when a disconnected port is used.
        newPort: () => {
          const port = new FakePort();
          const post = port.postMessage.bind(port);
          port.postMessage = (m: unknown) => {
            if (port.disconnected) throw new Error('Attempting to use a disconnected port object');
            post(m);
          };
          return port;
        },
        hello: async () => {
          await helloGate; // identity still loading
          return HELLO;
        },
      });
      link.start();
      link.restart(); // the person renamed the profile: the first port is torn down mid-connect
      releaseHello();
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(0);
      expect(ports[0]?.sent).toEqual([]);
      expect(ports[1]?.sent[0]).toMatchObject({ kind: 'hello' });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a hello that cannot be built fails the attempt instead of rejecting into the void', async () => {
    const link = makeLink({
      hello: async () => {
        throw new Error('storage is unavailable');
      },
    });
    link.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(link.current).toMatchObject({ state: 'disconnected', detail: expect.stringContaining('storage is unavailable') });
    expect(ports[0]?.disconnected).toBe(true);
  });
});

describe('disconnect reasons', () => {
  it('turn Chromium\'s terse errors into what to do', () => {
    // No host has ever said how comet-relay was installed: the global command, and how to adapt it.
    expect(describeDisconnect('Specified native messaging host not found.')).toBe(
      'Specified native messaging host not found. The native host is not registered for this browser: run `comet-relay install` ' +
        '(or however you run comet-relay, followed by `install`), then `doctor` the same way.',
    );
    // A host said its form once (kept in storage): the commands in it.
    expect(describeDisconnect('Native host has exited.', { command: 'npx /home/ann/comet-relay-0.1.0.tgz' })).toBe(
      'Native host has exited. The host stopped; see its log (`npx /home/ann/comet-relay-0.1.0.tgz doctor` prints where).',
    );
    expect(describeDisconnect('Access to the specified native messaging host is forbidden.')).toMatch(/does not admit this extension/);
    expect(describeDisconnect('Native host has exited.')).toMatch(/see its log/);
  });
});
