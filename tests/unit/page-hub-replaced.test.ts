import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { PageHub } from '../../lib/worker/calls/pages';
import { FakePort } from '../support/fake-port';

/**
 * PageHub.whenReplaced (a new chat waits for its new page, never the one it leaves), nextReady and asksSince: their ends
 * (the old port gone first, a cancel, a timeout, Stay on page, no page script at all) and true words on each (review 10,
 * router round 3).
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/thread-X';
const waiters = (hub: PageHub) => (hub as unknown as { waiters: Set<unknown> }).waiters.size;

function setup(url = X) {
  const hub = new PageHub(() => {});
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url, title: 'T', kits: ['ask'] } });
  return { hub, port };
}
const connect = (hub: PageHub, url = HOME) => {
  const fresh = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(fresh as unknown as Runtime.Port);
  fresh.deliver({ kind: 'event', event: 'page.ready', data: { url, title: 'T', kits: [] } });
  return fresh;
};

describe('sound: whenReplaced', () => {
  it('the old port disconnects before the new one connects (ports map empty): waits, then resolves on the new page', async () => {
    const { hub, port } = setup();
    const wait = hub.whenReplaced(7, port, 2_000);
    port.deliver({ kind: 'event', event: 'page.navigated', data: { url: X, title: 'T' } }); // the old page speaks late
    port.drop(); // ports.get(7) undefined, state gone
    await new Promise((r) => setTimeout(r, 20));
    let settled = false;
    void wait.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    const fresh = connect(hub);
    await expect(wait).resolves.toBeUndefined();
    expect(hub.document(7)).toBe(fresh);
    expect(waiters(hub)).toBe(0);
  });

  it('a new port that connects but has not said ready is not waited past: its page.ready ends the wait', async () => {
    const { hub, port } = setup();
    const wait = hub.whenReplaced(7, port, 2_000);
    port.drop();
    const fresh = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(fresh as unknown as Runtime.Port);
    let settled = false;
    void wait.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    fresh.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'T', kits: [] } });
    await expect(wait).resolves.toBeUndefined();
  });

  it('a cancel ends the wait at once (CANCELLED), and no waiter is left', async () => {
    const { hub, port } = setup();
    const controller = new AbortController();
    const wait = hub.whenReplaced(7, port, 20_000, controller.signal);
    await new Promise((r) => setTimeout(r, 10));
    expect(waiters(hub)).toBe(1);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(waiters(hub)).toBe(0);
  });

  it('the page stays (Stay on page): TIMEOUT after the time given, and no waiter is left (the old page speaking again does not end it)', async () => {
    const { hub, port } = setup();
    const wait = hub.whenReplaced(7, port, 150);
    port.deliver({ kind: 'event', event: 'page.navigated', data: { url: X, title: 'T' } });
    await expect(wait).rejects.toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('Nothing was sent') });
    expect(waiters(hub)).toBe(0);
  });
});

describe('sound: asksSince at the ASKS_KEPT (200) boundary', () => {
  it('a card drawn exactly at the oldest kept post sees all posts since; one drawn before it is "not remembered"', async () => {
    const { hub, port } = setup(HOME);
    const signal = new AbortController().signal;
    for (let i = 0; i < 201; i++) void hub.request(7, 'page.ask', { prompt: `p${i}` }, signal, () => {}, undefined, i === 0 ? 'a' : 'b').catch(() => {});
    await new Promise((r) => setTimeout(r, 10));
    expect(hub.askCount(port)).toBe(201);
    expect(hub.asksSince(port, 0)).toBeUndefined(); // post #0 (a's) is forgotten: judged as another's
    expect(hub.asksSince(port, 1)).toHaveLength(200);
    expect(hub.asksSince(port, 200)).toEqual(['b']);
    expect(hub.asksSince(port, 201)).toEqual([]);
  });
});

describe("whenReplaced's words when the page it left is gone", () => {
  it('the old page went away and no page script came (an error page, a blocked site, the tab closed): the words do not say the old page still answers', async () => {
    const { hub, port } = setup();
    const wait = hub.whenReplaced(7, port, 150);
    port.drop(); // the old document is gone; nothing connects
    const error = await wait.catch((e: Error) => e);
    expect(error).toMatchObject({ code: expect.any(String) });
    // ef92b03: "…the page it was leaving still answers there…", which is false here (and no diagnosis is asked, unlike whenReady).
    expect((error as Error).message).not.toMatch(/still answers there/);
  });
});
