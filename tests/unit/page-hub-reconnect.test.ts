import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import { fakeThreadCalls } from '../support/fake-tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * A page that replaces another in its tab is ready when it says so (its first message), nothing in between flickers; an
 * approved thread act asked twice by the policy still goes (review 10, router round 4).
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/thread-X';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

describe('accept() forgetting a replaced page\'s state', () => {
  it('a port replacing another (same tab): pageTab / whenReady / connectedDrivenTab wait only for the new page.ready, which the page sends first on connect (agent.ts:69); onChange is not fired on the replacement itself', async () => {
    state.tabs = { 7: { id: 7, windowId: 1, title: 'T', url: X, active: true } };
    const changes: number[] = [];
    const hub = new PageHub((t) => changes.push(t));
    const old = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(old as unknown as Runtime.Port);
    old.deliver({ kind: 'event', event: 'page.ready', data: { url: X, title: 'T', kits: [] } });
    const tabs = new TabService(hub);
    await tabs.drive(7);
    const before = changes.length;
    const fresh = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(fresh as unknown as Runtime.Port);
    expect(changes.length).toBe(before); // no "no page" push from the replacement alone
    expect(tabs.connectedDrivenTab()).toBeUndefined();
    const found = tabs.pageTab(2_000);
    const ready = hub.whenReady(7, 2_000);
    fresh.deliver({ kind: 'event', event: 'page.ready', data: { url: X, title: 'T', kits: [] } });
    await expect(found).resolves.toBe(7);
    await expect(ready).resolves.toBeUndefined();
    expect(tabs.connectedDrivenTab()).toEqual({ id: 7, url: X });
    // A late page.ready of the replaced port does not bring its state back.
    old.deliver({ kind: 'event', event: 'page.navigated', data: { url: HOME, title: 'old' } });
    expect(hub.state(7)?.url).toBe(X);
  });
});

describe('the second stillAllowed of a thread act', () => {
  it('a threads.send the person approved (Require approval on) is asked twice and goes', async () => {
    state.stored = { settings: { requireApproval: true } };
    state.tabs = {};
    const { calls, requests } = fakeThreadCalls(async (_tabId, method, params) => {
      if (method === 'threads.locate') return { found: true };
      if (method === 'threads.send') return { threadId: params.threadId, turn: 1 };
      throw new Error(`unexpected ${method}`);
    });
    const hub = new PageHub(() => {});
    const { router, panels } = panelRouter(hub, new TabService(hub), { threads: calls });
    const recheck = vi.spyOn(panels, 'recheck');
    const request: Request = { kind: 'request', id: 'a', method: 'threads.send', params: { threadId: 't-1', message: 'hi', attachments: [], settings: {} }, origin: { clientId: 'a', clientName: 'a', tool: 'threads_send', door: 'loopback' } };
    const replies: Envelope[] = [];
    const done = router.handle(request, (m) => replies.push(m));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('a', true);
    await done;
    expect(replies.find((m) => m.kind !== 'progress')).toMatchObject({ kind: 'result' });
    expect(recheck).toHaveBeenCalledTimes(2);
    expect(requests.filter((r) => r.method === 'threads.send')).toHaveLength(1);
  });
});
