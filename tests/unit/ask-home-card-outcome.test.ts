import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * A home-page card follows the conversation a prompt of ours named only if that prompt was taken: one cancelled, or
 * refused, names none, even when the page named one meanwhile; one the page says it took still does (review 10, router
 * round 3). Real PageHub, TabService, Router, PanelService (as ask-home-card.test.ts).
 */
const HOME = 'https://www.perplexity.ai/';
const P = 'https://www.perplexity.ai/search/persons-private-thread-P';
const B1 = 'https://www.perplexity.ai/search/b-first-prompts-thread';
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
/** A same-document move (a sidebar click, "New thread", a conversation named): page.navigated on the same port. */
const moveTo = (port: FakePort, url: string) => {
  state.tabs[7]!.url = url;
  port.deliver({ kind: 'event', event: 'page.navigated', data: { url, title: 't' } });
};
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('a cancelled prompt names no conversation on its home page', () => {
  it("b's first prompt is cancelled before the page typed it (the page sends no reply: agent.ts), b's retry card is drawn on home, the person opens P from the sidebar: not typed into P", async () => {
    const { port, router, panels } = await setup();
    const b1 = await start(router, req('b:1', 'b', 'first try'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('b:1', true);
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1)); // posted on home: named = '' (armed)
    router.cancel('b:1'); // b's client gives up while the page waits to type it (an answer still streaming)
    await b1.done;
    // The page aborts its handler and, the signal being aborted, replies nothing (lib/page/agent.ts: `if (!signal.aborted) send(...)`).
    const b2 = await start(router, req('b:2', 'b', 'Summarise my notes'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    moveTo(port, P); // the person's own sidebar click while the card waits: named '' -> P
    panels.approvals.decide('b:2', true);
    await settle();
    const posted = asks(port)[1];
    if (posted) answer(port, posted.id);
    // Correct: refused, the card showed the home page, not P. ef92b03: typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

describe('a prompt refused after the page named a conversation (a sidebar click) meanwhile: that conversation is not the prompt\'s', () => {
  it("b1 posted on home waits in the page; b2's card is drawn on home; the person opens P; b1 fails with nothing sent; b2 approved: not typed into P", async () => {
    const { port, router, panels } = await setup();
    await panels.settings.update({ requireApproval: false });
    const b1 = await start(router, req('b:1', 'b', 'first'));
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1)); // posted on home, armed; the page holds it (busy)
    await panels.settings.update({ requireApproval: true });
    const b2 = await start(router, req('b:2', 'b', 'second'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1)); // card drawn on home, after b1's post
    moveTo(port, P); // the person's sidebar click: named '' -> P (while b1 is still in the page)
    port.deliver({ kind: 'error', id: asks(port)[0]!.id, error: { code: 'SELECTOR_MISS', message: 'composer: none matched. Nothing was sent.' } });
    expect(await b1.reply()).toMatchObject({ kind: 'error' });
    panels.approvals.decide('b:2', true);
    await settle();
    const posted = asks(port)[1];
    if (posted) answer(port, posted.id);
    // Correct: refused (P was named by the person's click, b1 named nothing). ef92b03: named stays P, b2 typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

describe('an error that says the prompt was taken keeps its conversation', () => {
  it("b1's page replies TIMEOUT 'took the prompt … do not send it again' (data.taken) before naming it; b's follow-up card drawn on home is refused once b1's conversation is named", async () => {
    const { port, router, panels } = await setup();
    const b1 = await start(router, req('b:1', 'b', 'first'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('b:1', true);
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    const taken = { turnIndex: 0, conversationUrl: HOME, questionKey: 'first', askedAt: 1 };
    port.deliver({ kind: 'error', id: asks(port)[0]!.id, error: { code: 'TIMEOUT', message: 'the page took the prompt (its composer emptied) but shows no turn for it yet; do not send it again: call comet_wait', data: { taken } } });
    expect(await b1.reply()).toMatchObject({ kind: 'error', error: { code: 'TIMEOUT' } });
    // b's follow-up, its card drawn on the home page b1 was taken on.
    const b2 = await start(router, req('b:2', 'b', 'follow-up'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    moveTo(port, B1); // the page names b1's conversation late
    panels.approvals.decide('b:2', true);
    await vi.waitFor(() => expect(asks(port).length === 2 || panels.approvals.pending().length === 0).toBe(true));
    await settle();
    const posted = asks(port)[1];
    if (posted) answer(port, posted.id);
    // Correct: it follows b1 (its own session's prompt, taken there), as when b1's reply is a result (ask-prompt-count).
    // ef92b03: the TIMEOUT reply disarmed `named`, so B1 counts as a stranger's conversation: PERMISSION_DENIED.
    expect(await b2.reply()).toMatchObject({ kind: 'result' });
    expect(asks(port)).toHaveLength(2);
  });
});
