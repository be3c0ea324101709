import { describe, expect, it } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';

/** Cancellation on the worker's hops: a cancel that arrives early is never lost. */

function fakePort(tabId = 7) {
  const posted: Envelope[] = [];
  const listeners = { message: [] as ((m: unknown) => void)[], disconnect: [] as (() => void)[] };
  const port = {
    name: 'comet-relay/page',
    sender: { tab: { id: tabId } },
    postMessage: (m: Envelope) => posted.push(m),
    disconnect: () => {},
    onMessage: { addListener: (f: (m: unknown) => void) => listeners.message.push(f) },
    onDisconnect: { addListener: (f: () => void) => listeners.disconnect.push(f) },
  };
  const emit = (m: unknown) => {
    for (const f of listeners.message) f(m);
  };
  return { port, posted, emit };
}

describe('page hop', () => {
  it('a request whose call was already cancelled is never posted to the page', async () => {
    const hub = new PageHub(() => {});
    const { port, posted } = fakePort();
    hub.accept(port as never);
    const controller = new AbortController();
    controller.abort();
    await expect(hub.request(7, 'page.ask', { prompt: 'x' }, controller.signal, () => {})).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(posted).toEqual([]);
  });

  it('a cancel during the call follows the request to the page', async () => {
    // The ask kit is loaded first (lib/protocol/page/page-kits.ts); the cancel comes once the ask is on the page.
    const hub = new PageHub(() => {}, async () => ({ kit: 'ask', status: 'registered' }));
    const { port, posted } = fakePort();
    hub.accept(port as never);
    const controller = new AbortController();
    const call = hub.request(7, 'page.ask', { prompt: 'x' }, controller.signal, () => {});
    await new Promise((r) => setTimeout(r, 0));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(posted.map((m) => m.kind)).toEqual(['request', 'cancel']);
  });
});

describe('host hop', () => {
  it('a cancel that arrives while the worker is still starting up stops the request before it runs', async () => {
    let pageCalls = 0;
    const pages = {
      request: async () => {
        pageCalls++;
        return {};
      },
    };
    const tabs = { pageTab: async () => 7 } as unknown as TabService;
    const router = new Router({ tabs, pages: pages as never, status: async () => ({}) });
    let ready!: () => void;
    const startup = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const replies: Envelope[] = [];
    const request: Request = { kind: 'request', id: 'r1', method: 'page.ask', params: { prompt: 'late' } };
    const handled = router.handle(request, (m) => replies.push(m), startup);
    router.cancel('r1');
    ready();
    await handled;
    expect(pageCalls).toBe(0);
    expect(replies).toEqual([]);
  });
});
