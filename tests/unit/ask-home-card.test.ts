import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * A card drawn on the home page follows only the conversation a prompt of ours names there after it (review 10, router
 * round 2): not one the person reopens, nor one a refused prompt left the page waiting to name. Real PageHub, Router,
 * PanelService.
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/agent-As-thread-X';
const P = 'https://www.perplexity.ai/search/persons-private-thread-P';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

async function setup() {
  state.stored = { settings: { requireApproval: true } };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
  const hub = new PageHub(() => {});
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask'] } });
  const tabs = new TabService(hub);
  await tabs.drive(7);
  const { router, panels } = panelRouter(hub, tabs);
  return { hub, port, router, panels };
}
const asks = (port: FakePort) => port.sent.filter((m) => (m as { method?: string }).method === 'page.ask') as { id: string; params: { prompt: string } }[];
const answer = (port: FakePort, id: string) => port.deliver({ kind: 'result', id, result: { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: '', questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' } });
const req = (id: string, client: string, prompt: string): Request => ({ kind: 'request', id, method: 'page.ask', params: { prompt }, origin: { clientId: client, clientName: client, tool: 'comet_ask', door: 'loopback' } });
async function start(router: { handle: (r: Request, reply: (m: Envelope) => void) => Promise<void> }, r: Request) {
  const replies: Envelope[] = [];
  const done = router.handle(r, (m) => replies.push(m));
  return {
    done,
    reply: async () => {
      await done;
      return replies.find((m) => m.kind !== 'progress');
    },
  };
}
/** A same-document move (sidebar click, the person's own typed prompt named, "New thread"): page.navigated on the same port. */
const moveTo = (port: FakePort, url: string) => {
  state.tabs[7]!.url = url;
  port.deliver({ kind: 'event', event: 'page.navigated', data: { url, title: 't' } });
};

describe('a home-page card follows no conversation a prompt of ours did not name', () => {
  it('N1 after a prompt the page refused, the next conversation the page shows (a sidebar click, the person\'s own typed prompt) is not its', async () => {
    const { port, router, panels } = await setup();
    // Session b's first ask is approved and posted on the home page; the page answers with an error before submitting.
    const b1 = await start(router, req('b:1', 'b', 'first try'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('b:1', true);
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    port.deliver({ kind: 'error', id: asks(port)[0]!.id, error: { code: 'SELECTOR_MISS', message: 'composer: no submit button' } });
    expect(await b1.reply()).toMatchObject({ kind: 'error' });
    // b retries; its card is drawn on the home page.
    const b2 = await start(router, req('b:2', 'b', 'Summarise my notes'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    // While the card waits, the person opens their own conversation P from the sidebar (or types a prompt by hand and P is named).
    moveTo(port, P);
    panels.approvals.decide('b:2', true);
    await new Promise((r) => setTimeout(r, 20));
    const posted = asks(port)[1];
    if (posted) answer(port, posted.id);
    // Expected (as F1 / gap 1 intend): refused, nothing typed into P. 2d2f883: named === P, the prompt is typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });

  it('N2 a conversation a prompt named before the card, left for "New thread" and reopened from the sidebar, is not the card\'s', async () => {
    const { port, router, panels } = await setup();
    await panels.settings.update({ requireApproval: false });
    // Agent A's prompt on the home page; its conversation X is named late on the same page.
    const a = await start(router, req('a:1', 'a', 'A'));
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    moveTo(port, X);
    answer(port, asks(port)[0]!.id);
    expect(await a.reply()).toMatchObject({ kind: 'result' });
    // The person clicks "New thread": same document, back on the home page. B's card is drawn there.
    moveTo(port, HOME);
    await panels.settings.update({ requireApproval: true });
    const b = await start(router, req('b:1', 'b', "B's prompt for a new conversation"));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    // While the card waits the person opens A's conversation X from the sidebar (exactly review 10 F1).
    moveTo(port, X);
    panels.approvals.decide('b:1', true);
    await new Promise((r) => setTimeout(r, 20));
    const posted = asks(port)[1];
    if (posted) answer(port, posted.id);
    // Expected: refused. 2d2f883: B's prompt is typed into A's conversation X.
    expect(await b.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});
