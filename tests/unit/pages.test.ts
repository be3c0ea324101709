import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PageHub } from '../../lib/worker/calls/pages';
import { FakePort } from '../support/fake-port';

vi.mock('wxt/browser', () => ({ browser: {} }));

/** The worker's side of the page ports, with fake ports: no request outlives the port it went out on. */
const page = (tab: number) => new FakePort({ name: 'comet-relay/page', sender: { tab: { id: tab } } });
const asPort = (p: FakePort) => p as unknown as Runtime.Port;

describe('PageHub: a replaced or closed page port', () => {
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

  it('a port that died a moment ago: the request says the page went away, and a cancel after it throws nowhere (worker review F6)', async () => {
    const hub = new PageHub(() => {});
    const port = page(6);
    hub.accept(asPort(port));
    const controller = new AbortController();
    const call = hub.request(6, 'page.poll', {}, controller.signal, () => {});
    const dead = () => {
      throw new Error('Attempting to use a disconnected port object');
    };
    (port as unknown as { postMessage: () => void }).postMessage = dead;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(hub.request(6, 'page.poll', {}, new AbortController().signal, () => {})).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringMatching(/went away before page\.poll reached it/) });
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

describe('PageHub.whenReady: a tab whose page script has not said ready', () => {
  it('a cancel ends the wait at once, and a later ready wakes nobody', async () => {
    const hub = new PageHub(() => {});
    const controller = new AbortController();
    const started = Date.now();
    const waiting = hub.whenReady(9, 20_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(Date.now() - started).toBeLessThan(1000);
    const port = page(9);
    hub.accept(asPort(port));
    port.deliver({ kind: 'event', event: 'page.ready', data: { url: 'https://www.perplexity.ai/', title: '' } });
    expect(hub.state(9)?.url).toBe('https://www.perplexity.ai/');
  });

  it('resolves when the page says ready, and at once for a page that already did', async () => {
    const hub = new PageHub(() => {});
    const waiting = hub.whenReady(9, 20_000, new AbortController().signal);
    const port = page(9);
    hub.accept(asPort(port));
    port.deliver({ kind: 'event', event: 'page.ready', data: { url: 'https://www.perplexity.ai/', title: '' } });
    await expect(waiting).resolves.toBeUndefined();
    await expect(hub.whenReady(9, 20_000)).resolves.toBeUndefined();
  });
});

describe('PageHub loads the on-demand parts of the page script (lib/protocol/page/page-kits.ts)', () => {
  const docPage = (tab: number, documentId: string) => new FakePort({ name: 'comet-relay/page', sender: { tab: { id: tab }, documentId } });
  const answer = (port: FakePort, index: number, result: unknown = { ok: true }) => {
    const { id } = port.sent[index] as { id: string };
    port.deliver({ kind: 'result', id, result });
  };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  /** A call whose outcome this test does not follow (a later reload may fail it). */
  const fire = (call: Promise<unknown>) => void call.catch(() => {});

  it('a thread method loads the threads kit into the very document behind the port, once for any number of calls', async () => {
    const inject = vi.fn(async (_target: { tabId: number; documentId?: string }, file: string) => ({ kit: 'threads', status: 'registered', file }));
    const hub = new PageHub(() => {}, inject);
    const port = docPage(7, 'DOC-1');
    hub.accept(asPort(port));
    const signal = new AbortController().signal;
    const a = hub.request(7, 'threads.read', { threadId: 't' }, signal, () => {});
    const b = hub.request(7, 'threads.state', { threadId: 't' }, signal, () => {});
    expect(port.sent).toEqual([]); // nothing reaches the page before its kit is there
    await flush();
    expect(inject).toHaveBeenCalledTimes(1);
    expect(inject).toHaveBeenCalledWith({ tabId: 7, documentId: 'DOC-1' }, '/page-threads.js');
    expect(port.sent).toMatchObject([{ method: 'threads.read' }, { method: 'threads.state' }]);
    answer(port, 0);
    answer(port, 1);
    await Promise.all([a, b]);
    fire(hub.request(7, 'page.respond', {}, signal, () => {}));
    await flush();
    expect(inject).toHaveBeenCalledTimes(1); // same kit, same document
    fire(hub.request(7, 'page.poll', {}, signal, () => {}));
    expect(inject).toHaveBeenCalledTimes(1); // the always-loaded script answers this one
  });

  it('a reloaded page (a new document, a new port) gets the kit again; a page that says it holds one does not', async () => {
    const inject = vi.fn(async () => ({ kit: 'diagnostics', status: 'registered' }));
    const hub = new PageHub(() => {}, inject);
    hub.accept(asPort(docPage(8, 'DOC-1')));
    fire(hub.request(8, 'page.capture', {}, new AbortController().signal, () => {}));
    await flush();
    const reloaded = docPage(8, 'DOC-2');
    hub.accept(asPort(reloaded));
    fire(hub.request(8, 'page.capture', {}, new AbortController().signal, () => {}));
    await flush();
    expect(inject.mock.calls.map((c) => (c as unknown[])[0])).toEqual([
      { tabId: 8, documentId: 'DOC-1' },
      { tabId: 8, documentId: 'DOC-2' },
    ]);
    // A worker that restarted meets a page that already holds the kit: it is not injected again.
    const restarted = new PageHub(() => {}, inject);
    const port = docPage(9, 'DOC-3');
    restarted.accept(asPort(port));
    port.deliver({ kind: 'event', event: 'page.ready', data: { url: 'https://www.perplexity.ai/', title: 'P', selectorSet: null, kits: ['diagnostics'] } });
    fire(restarted.request(9, 'page.capture', {}, new AbortController().signal, () => {}));
    await flush();
    expect(inject).toHaveBeenCalledTimes(2);
    expect(port.sent).toMatchObject([{ method: 'page.capture' }]);
  });

  it('a failed injection fails the call naming the script and why, sends nothing, and the next call tries again', async () => {
    const inject = vi.fn().mockRejectedValueOnce(new Error('No document with id DOC-1 in tab 5')).mockResolvedValue({ kit: 'threads', status: 'registered' });
    const hub = new PageHub(() => {}, inject);
    const port = docPage(5, 'DOC-1');
    hub.accept(asPort(port));
    const signal = new AbortController().signal;
    await expect(hub.request(5, 'threads.wait', {}, signal, () => {})).rejects.toMatchObject({
      code: 'NO_PERPLEXITY_TAB',
      message: expect.stringMatching(/could not load its Computer-thread code \(\/page-threads\.js\) into the Perplexity page in tab 5: No document with id DOC-1.*call again/),
    });
    expect(port.sent).toEqual([]);
    fire(hub.request(5, 'threads.wait', {}, signal, () => {}));
    await flush();
    expect(inject).toHaveBeenCalledTimes(2);
    expect(port.sent).toMatchObject([{ method: 'threads.wait' }]);
  });

  it('an ask loads the ask kit before its prompt reaches the page; a failed load says nothing was sent', async () => {
    const inject = vi.fn().mockRejectedValueOnce(new Error('Frame with ID 0 is showing error page')).mockResolvedValue({ kit: 'ask', status: 'registered' });
    const hub = new PageHub(() => {}, inject);
    const port = docPage(6, 'DOC-1');
    hub.accept(asPort(port));
    const signal = new AbortController().signal;
    await expect(hub.request(6, 'page.ask', { prompt: 'x' }, signal, () => {})).rejects.toMatchObject({
      code: 'NO_PERPLEXITY_TAB',
      message: expect.stringMatching(/could not load its ask code \(\/page-ask\.js\) into the Perplexity page in tab 6: Frame with ID 0 .*nothing was sent to it: call again/),
    });
    expect(port.sent).toEqual([]);
    fire(hub.request(6, 'page.ask', { prompt: 'x' }, signal, () => {}));
    await flush();
    expect(inject).toHaveBeenLastCalledWith({ tabId: 6, documentId: 'DOC-1' }, '/page-ask.js');
    expect(port.sent).toMatchObject([{ method: 'page.ask', params: { prompt: 'x' } }]);
    // A stop needs no kit: it reaches the page at once, even while nothing else was loaded.
    fire(hub.request(6, 'page.stop', {}, signal, () => {}));
    expect(port.sent).toMatchObject([{ method: 'page.ask' }, { method: 'page.stop' }]);
    expect(inject).toHaveBeenCalledTimes(2);
  });

  it('a page script of another build, or none, is named as such', async () => {
    const signal = new AbortController().signal;
    const stale = new PageHub(() => {}, async () => ({ kit: 'threads', status: 'version-mismatch' }));
    stale.accept(asPort(docPage(1, 'D')));
    await expect(stale.request(1, 'threads.read', {}, signal, () => {})).rejects.toThrow(/earlier version of the extension; reload the tab/);
    const gone = new PageHub(() => {}, async () => ({ kit: 'threads', status: 'no-page-script' }));
    gone.accept(asPort(docPage(1, 'D')));
    await expect(gone.request(1, 'threads.read', {}, signal, () => {})).rejects.toThrow(/no comet-relay page script any more/);
    const odd = new PageHub(() => {}, async () => undefined);
    odd.accept(asPort(docPage(1, 'D')));
    await expect(odd.request(1, 'threads.read', {}, signal, () => {})).rejects.toThrow(/the script reported null/);
  });

  it('a page reloaded while its kit was loading fails the call instead of sending it to the new page', async () => {
    let finish: (v: unknown) => void = () => {};
    const hub = new PageHub(() => {}, () => new Promise((resolve) => (finish = resolve)));
    const first = docPage(2, 'DOC-1');
    hub.accept(asPort(first));
    const call = hub.request(2, 'threads.read', {}, new AbortController().signal, () => {});
    const second = docPage(2, 'DOC-2');
    hub.accept(asPort(second));
    finish({ kit: 'threads', status: 'registered' });
    await expect(call).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringMatching(/reloaded while comet-relay loaded/) });
    expect(second.sent).toEqual([]);
  });
});
