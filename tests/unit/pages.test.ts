import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PageHub } from '../../lib/worker/pages';
import { FakePort } from '../support/fake-port';

vi.mock('wxt/browser', () => ({ browser: {} }));

/** The worker's side of the page ports, with fake ports: no request outlives the port it went out on. */
const page = (tab: number) => new FakePort({ name: 'comet-relay/page', sender: { tab: { id: tab } } });
const asPort = (p: FakePort) => p as unknown as Runtime.Port;

describe('PageHub (fault 6)', () => {
  it('a page port replaced by a new one fails the requests still open on the old one at once', async () => {
    const hub = new PageHub(() => {});
    const first = page(3);
    hub.accept(asPort(first));
    const call = hub.request(3, 'page.wait', {}, new AbortController().signal, () => {});
    expect(first.sent[0]).toMatchObject({ kind: 'request', method: 'page.wait' });
    const second = page(3); // the content script reconnected (reload, worker restart)
    hub.accept(asPort(second));
    expect(first.disconnected).toBe(true);
    await expect(call).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringMatching(/reloaded|reconnected/) });
  });

  it('requests on another tab are left alone', async () => {
    const hub = new PageHub(() => {});
    const other = page(4);
    hub.accept(asPort(other));
    const call = hub.request(4, 'page.poll', {}, new AbortController().signal, () => {});
    hub.accept(asPort(page(3)));
    const id = (other.sent[0] as { id: string }).id;
    other.deliver({ kind: 'result', id, result: { fine: true } });
    await expect(call).resolves.toEqual({ fine: true });
  });

  it('a call cancelled before it was sent never reaches the page', async () => {
    const hub = new PageHub(() => {});
    const port = page(5);
    hub.accept(asPort(port));
    const controller = new AbortController();
    controller.abort();
    await expect(hub.request(5, 'page.ask', { prompt: 'x' }, controller.signal, () => {})).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(port.sent).toEqual([]);
  });
});
