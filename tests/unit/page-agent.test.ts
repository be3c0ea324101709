// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';

/**
 * The page script's side of the page port across a worker restart. The worker numbers its requests p1, p2… again in
 * each of its lives, so a call of the last life that ends late must neither remove nor speak for the new life's call
 * of the same id (review 8, long-run #1: the side panel's page.watch lost its cancel and ran for the tab's life).
 */

interface FakePort {
  sent: { kind: string; id?: string }[];
  onMessage: { addListener(l: (m: unknown) => void): void; fire(m: unknown): void };
  onDisconnect: { addListener(l: () => void): void; fire(): void };
  postMessage(m: { kind: string; id?: string }): void;
}
const ports: FakePort[] = [];
function fakePort(): FakePort {
  const onMessage: ((m: unknown) => void)[] = [];
  const onDisconnect: (() => void)[] = [];
  const port: FakePort = {
    sent: [],
    onMessage: { addListener: (l) => onMessage.push(l), fire: (m) => { for (const l of onMessage) l(m); } },
    onDisconnect: { addListener: (l) => onDisconnect.push(l), fire: () => { for (const l of onDisconnect) l(); } },
    postMessage: (m) => port.sent.push(m),
  };
  ports.push(port);
  return port;
}
vi.mock('wxt/browser', () => ({ browser: { runtime: { connect: () => fakePort() } } }));

// A call that ignores its abort and ends (and reports progress) when the test says, and one that lives until its
// abort, as page.watch does.
let finishSlow: () => void = () => {};
let slowProgress: (text: string) => void = () => {};
let liveWatches = 0;
vi.mock('../../lib/page/handlers', () => ({
  lazyDriver: () => () => ({}),
  recognisedSet: () => null,
  pageHandlers: () => ({
    'page.slow': (_params: never, { progress }: { progress: (text: string) => void }) =>
      new Promise((resolve) => {
        slowProgress = progress;
        finishSlow = () => resolve('late');
      }),
    'page.watch': (_params: never, { signal }: { signal: AbortSignal }) =>
      new Promise((resolve) => {
        liveWatches++;
        signal.addEventListener('abort', () => {
          liveWatches--;
          resolve({ ended: 'cancelled' });
        });
      }),
  }),
}));

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the page agent across a worker restart', () => {
  it("a call of the last worker's that ends late leaves this worker's call of the same id alone", async () => {
    const { startPageAgent } = await import('../../lib/page/agent');
    startPageAgent();
    const first = ports[0] as FakePort;
    first.onMessage.fire({ kind: 'request', id: 'p1', method: 'page.slow', params: {} });
    first.onDisconnect.fire(); // the worker stopped; the page reconnects 250 ms later
    await tick(300);
    const second = ports[1] as FakePort;
    second.onMessage.fire({ kind: 'request', id: 'p1', method: 'page.watch', params: {} });
    await tick();
    expect(liveWatches).toBe(1);

    slowProgress('a step of the old call');
    finishSlow();
    await tick(10);
    // Nothing of the old call reaches the new worker under the new call's id.
    expect(second.sent.filter((m) => m.id === 'p1')).toEqual([]);

    second.onMessage.fire({ kind: 'cancel', id: 'p1' });
    await tick(10);
    expect(liveWatches).toBe(0);
    expect(second.sent.filter((m) => m.id === 'p1')).toEqual([]); // a cancelled call answers nothing
  });
});
