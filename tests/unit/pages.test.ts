import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PageHub } from '../../lib/worker/pages';

vi.mock('wxt/browser', () => ({ browser: {} }));

/** The worker's side of the page ports, with fake ports: no request outlives the port it went out on. */
class FakePagePort {
  readonly sent: unknown[] = [];
  disconnected = false;
  private readonly messageListeners: ((m: unknown) => void)[] = [];
  private readonly disconnectListeners: (() => void)[] = [];
  readonly name = 'comet-relay/page';
  constructor(readonly sender: { tab: { id: number } }) {}
  postMessage(message: unknown) {
    this.sent.push(message);
  }
  /** Like Chromium: disconnecting our own end does not fire our own onDisconnect. */
  disconnect() {
    this.disconnected = true;
  }
  onMessage = { addListener: (l: (m: unknown) => void) => this.messageListeners.push(l) };
  onDisconnect = { addListener: (l: () => void) => this.disconnectListeners.push(l) };
  deliver(message: unknown) {
    for (const l of this.messageListeners) l(message);
  }
  drop() {
    for (const l of this.disconnectListeners) l();
  }
}

const asPort = (p: FakePagePort) => p as unknown as Runtime.Port;

describe('PageHub (fault 6)', () => {
  it('a page port replaced by a new one fails the requests still open on the old one at once', async () => {
    const hub = new PageHub(() => {});
    const first = new FakePagePort({ tab: { id: 3 } });
    hub.accept(asPort(first));
    const call = hub.request(3, 'page.wait', {}, new AbortController().signal, () => {});
    expect(first.sent[0]).toMatchObject({ kind: 'request', method: 'page.wait' });
    const second = new FakePagePort({ tab: { id: 3 } }); // the content script reconnected (reload, worker restart)
    hub.accept(asPort(second));
    expect(first.disconnected).toBe(true);
    await expect(call).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringMatching(/reloaded|reconnected/) });
  });

  it('requests on another tab are left alone', async () => {
    const hub = new PageHub(() => {});
    const other = new FakePagePort({ tab: { id: 4 } });
    hub.accept(asPort(other));
    const call = hub.request(4, 'page.poll', {}, new AbortController().signal, () => {});
    hub.accept(asPort(new FakePagePort({ tab: { id: 3 } })));
    const id = (other.sent[0] as { id: string }).id;
    other.deliver({ kind: 'result', id, result: { fine: true } });
    await expect(call).resolves.toEqual({ fine: true });
  });

  it('a call cancelled before it was sent never reaches the page', async () => {
    const hub = new PageHub(() => {});
    const port = new FakePagePort({ tab: { id: 5 } });
    hub.accept(asPort(port));
    const controller = new AbortController();
    controller.abort();
    await expect(hub.request(5, 'page.ask', { prompt: 'x' }, controller.signal, () => {})).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(port.sent).toEqual([]);
  });
});
