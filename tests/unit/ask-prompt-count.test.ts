import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import type { FakeTab } from '../support/fake-wxt-browser';
import { answer, asks, req, start } from '../support/home-page';
import { panelRouter } from '../support/panel-router';

/**
 * The real PageHub counts the prompts posted to each document, by who asked them, once they are on their way (review 10,
 * router: a prompt that never reached the page moved a card; one session's own second prompt was taken for another's).
 */
const HOME = 'https://www.perplexity.ai/';
const Z = 'https://www.perplexity.ai/search/A1s-thread-Z';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

function setup(inject?: () => Promise<unknown>) {
  state.stored = { settings: { requireApproval: true } };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
  const hub = new PageHub(() => {}, inject ? async () => inject() : undefined);
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: inject ? [] : ['ask'] } });
  return { hub, port };
}

describe('gap 2 fixed: a prompt refused before it reached the page does not move a card', () => {
  it("C's prompt taken on home; A's card drawn; B's ask never reaches the page; C's thread named late: A goes there", async () => {
    const { hub, port } = setup();
    const post = port.postMessage.bind(port);
    // B's post fails (the port died a moment ago): PageHub says "Nothing was sent to the page".
    port.postMessage = (m: unknown) => {
      if ((m as { params?: { prompt?: string } }).params?.prompt === 'B') throw new Error('Attempting to use a disconnected port object');
      post(m);
    };
    const tabs = new TabService(hub);
    await tabs.drive(7);
    const { router, panels } = panelRouter(hub, tabs);
    await panels.settings.update({ requireApproval: false });
    const c = await start(router, req('C', 'c', 'C'));
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    answer(port, asks(port)[0]!.id);
    expect(await c.reply()).toMatchObject({ kind: 'result' }); // the URL is still home: C's thread is named late
    await panels.settings.update({ requireApproval: true });
    const a = await start(router, req('A', 'a', 'A'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    await panels.settings.update({ requireApproval: false });
    expect(await (await start(router, req('B', 'b', 'B'))).reply()).toMatchObject({ kind: 'error', error: { code: 'NO_PERPLEXITY_TAB' } });
    state.tabs[7]!.url = Z; // C's conversation named late, on the same page
    port.deliver({ kind: 'event', event: 'page.navigated', data: { url: Z, title: 'Z' } });
    panels.approvals.decide('A', true);
    // Before the change: PERMISSION_DENIED "that tab now shows …Z", for B's prompt that never reached the page.
    await vi.waitFor(() => expect(asks(port)).toHaveLength(2));
    answer(port, asks(port)[1]!.id);
    expect(await a.reply()).toMatchObject({ kind: 'result' });
    expect(hub.asksSince(hub.document(7), 0)).toEqual(['c', 'a']);
  });
});

describe("gap 3 fixed: one session's two parallel asks on home", () => {
  for (const whileRunning of [false, true]) {
    it(`A2 approved ${whileRunning ? 'while A1 still holds the turn' : 'after A1 returned'}: goes into A1's conversation`, async () => {
      const { hub, port } = setup();
      const tabs = new TabService(hub);
      await tabs.drive(7);
      const { router, panels } = panelRouter(hub, tabs);
      const a1 = await start(router, req('s:1', 's', 'A1'));
      const a2 = await start(router, req('s:2', 's', 'A2'));
      await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(2));
      panels.approvals.decide('s:1', true);
      await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
      state.tabs[7]!.url = Z; // A1's turn names its conversation on the same page
      port.deliver({ kind: 'event', event: 'page.navigated', data: { url: Z, title: 'Z' } });
      if (whileRunning) {
        panels.approvals.decide('s:2', true);
        await new Promise((r) => setTimeout(r, 10));
        answer(port, asks(port)[0]!.id);
      } else {
        answer(port, asks(port)[0]!.id);
        await a1.done;
        panels.approvals.decide('s:2', true);
      }
      await vi.waitFor(() => expect(asks(port)).toHaveLength(2));
      answer(port, asks(port)[1]!.id);
      expect(await a1.reply()).toMatchObject({ kind: 'result' });
      expect(await a2.reply()).toMatchObject({ kind: 'result' });
      expect(hub.asksSince(hub.document(7), 0)).toEqual(['s', 's']);
    });
  }

  it("another session's prompt since the card still refuses it", async () => {
    const { hub, port } = setup();
    const tabs = new TabService(hub);
    await tabs.drive(7);
    const { router, panels } = panelRouter(hub, tabs);
    const a = await start(router, req('A', 'a', 'A'));
    const b = await start(router, req('B', 'b', 'B'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(2));
    panels.approvals.decide('B', true);
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    state.tabs[7]!.url = Z;
    answer(port, asks(port)[0]!.id);
    await b.done;
    panels.approvals.decide('A', true);
    expect(await a.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

describe('a document keeps who asked its newest prompts only', () => {
  it('a tab open for days: the count goes on, the askers kept are the newest, and a card older than those is judged as overtaken', async () => {
    const { hub, port } = setup();
    const signal = new AbortController().signal;
    for (let i = 0; i < 300; i++) {
      const asked = hub.request(7, 'page.ask', { prompt: String(i) }, signal, () => {}, undefined, `client-${i % 3}`);
      await new Promise((resolve) => setTimeout(resolve, 0));
      answer(port, (port.sent.at(-1) as { id: string }).id);
      await asked;
    }
    const page = hub.document(7);
    expect(hub.askCount(page)).toBe(300);
    expect(hub.asksSince(page, 297)).toEqual(['client-0', 'client-1', 'client-2']);
    expect(hub.asksSince(page, 0)).toBeUndefined();
  });
});
