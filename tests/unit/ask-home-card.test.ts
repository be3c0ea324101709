import { describe, expect, it, vi } from 'vitest';
import type { FakeTab } from '../support/fake-wxt-browser';
import { answer, asks, HOME, homePage, req, start } from '../support/home-page';

/**
 * A card drawn on the home page follows only the conversation a prompt of ours names there after it, and only when that
 * prompt was taken (review 10, router rounds 2 to 4): not one the person reopens or opens in the sidebar, nor one the
 * page named while a prompt of ours came to nothing (cancelled, refused); one the page says it took keeps it, and a
 * later prompt of the same page that came to nothing does not take it away. Real PageHub, TabService, Router,
 * PanelService (tests/support/home-page.ts).
 */
const B1 = 'https://www.perplexity.ai/search/b-first-prompts-thread';
const P = 'https://www.perplexity.ai/search/persons-private-thread-P';
const X = 'https://www.perplexity.ai/search/agent-As-thread-X';
const Z = 'https://www.perplexity.ai/search/s1s-thread-Z';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

describe('a home-page card follows no conversation a prompt of ours did not name', () => {
  it('N1 after a prompt the page refused, the next conversation the page shows (a sidebar click, the person\'s own typed prompt) is not its', async () => {
    const { port, router, panels, moveTo } = await homePage(state);
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
    moveTo(P);
    panels.approvals.decide('b:2', true);
    await answerPost(port, 1);
    // Expected (as F1 / gap 1 intend): refused, nothing typed into P. 2d2f883: named === P, the prompt is typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });

  it('N2 a conversation a prompt named before the card, left for "New thread" and reopened from the sidebar, is not the card\'s', async () => {
    const { port, router, panels, moveTo } = await homePage(state);
    await panels.settings.update({ requireApproval: false });
    // Agent A's prompt on the home page; its conversation X is named late on the same page.
    const a = await start(router, req('a:1', 'a', 'A'));
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1));
    moveTo(X);
    answer(port, asks(port)[0]!.id);
    expect(await a.reply()).toMatchObject({ kind: 'result' });
    // The person clicks "New thread": same document, back on the home page. B's card is drawn there.
    moveTo(HOME);
    await panels.settings.update({ requireApproval: true });
    const b = await start(router, req('b:1', 'b', "B's prompt for a new conversation"));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    // While the card waits the person opens A's conversation X from the sidebar (exactly review 10 F1).
    moveTo(X);
    panels.approvals.decide('b:1', true);
    await answerPost(port, 1);
    // Expected: refused. 2d2f883: B's prompt is typed into A's conversation X.
    expect(await b.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

const settle = () => new Promise((r) => setTimeout(r, 20));
/** Once the router had its moment: the `index`-th prompt posted to the page, if one was, is answered as taken. */
async function answerPost(port: Parameters<typeof asks>[0], index: number): Promise<void> {
  await settle();
  const posted = asks(port)[index];
  if (posted) answer(port, posted.id);
}

describe('a cancelled prompt names no conversation on its home page', () => {
  it("b's first prompt is cancelled before the page typed it (the page sends no reply: agent.ts), b's retry card is drawn on home, the person opens P from the sidebar: not typed into P", async () => {
    const { port, router, panels, moveTo } = await homePage(state);
    const b1 = await start(router, req('b:1', 'b', 'first try'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('b:1', true);
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1)); // posted on home: named = '' (armed)
    router.cancel('b:1'); // b's client gives up while the page waits to type it (an answer still streaming)
    await b1.done;
    // The page aborts its handler and, the signal being aborted, replies nothing (lib/page/agent.ts: `if (!signal.aborted) send(...)`).
    const b2 = await start(router, req('b:2', 'b', 'Summarise my notes'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    moveTo(P); // the person's own sidebar click while the card waits: named '' -> P
    panels.approvals.decide('b:2', true);
    await answerPost(port, 1);
    // Correct: refused, the card showed the home page, not P. ef92b03: typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

describe('a prompt refused after the page named a conversation (a sidebar click) meanwhile: that conversation is not the prompt\'s', () => {
  it("b1 posted on home waits in the page; b2's card is drawn on home; the person opens P; b1 fails with nothing sent; b2 approved: not typed into P", async () => {
    const { port, router, panels, moveTo } = await homePage(state);
    await panels.settings.update({ requireApproval: false });
    const b1 = await start(router, req('b:1', 'b', 'first'));
    await vi.waitFor(() => expect(asks(port)).toHaveLength(1)); // posted on home, armed; the page holds it (busy)
    await panels.settings.update({ requireApproval: true });
    const b2 = await start(router, req('b:2', 'b', 'second'));
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1)); // card drawn on home, after b1's post
    moveTo(P); // the person's sidebar click: named '' -> P (while b1 is still in the page)
    port.deliver({ kind: 'error', id: asks(port)[0]!.id, error: { code: 'SELECTOR_MISS', message: 'composer: none matched. Nothing was sent.' } });
    expect(await b1.reply()).toMatchObject({ kind: 'error' });
    panels.approvals.decide('b:2', true);
    await answerPost(port, 1);
    // Correct: refused (P was named by the person's click, b1 named nothing). ef92b03: named stays P, b2 typed into P.
    expect(await b2.reply()).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(asks(port)).toHaveLength(1);
  });
});

describe('an error that says the prompt was taken keeps its conversation', () => {
  it("b1's page replies TIMEOUT 'took the prompt … do not send it again' (data.taken) before naming it; b's follow-up card drawn on home is refused once b1's conversation is named", async () => {
    const { port, router, panels, moveTo } = await homePage(state);
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
    moveTo(B1); // the page names b1's conversation late
    panels.approvals.decide('b:2', true);
    await vi.waitFor(() => expect(asks(port).length === 2 || panels.approvals.pending().length === 0).toBe(true));
    await answerPost(port, 1);
    // Correct: it follows b1 (its own session's prompt, taken there), as when b1's reply is a result (ask-prompt-count).
    // ef92b03: the TIMEOUT reply disarmed `named`, so B1 counts as a stranger's conversation: PERMISSION_DENIED.
    expect(await b2.reply()).toMatchObject({ kind: 'result' });
    expect(asks(port)).toHaveLength(2);
  });
});

async function scenario(how: 'cancel' | 'error') {
  const { port, router, panels, moveTo } = await homePage(state);
  // Session s: three prompts, three cards, all drawn on the home page.
  const s1 = await start(router, req('s:1', 's', 'one'));
  const s2 = await start(router, req('s:2', 's', 'two'));
  const s3 = await start(router, req('s:3', 's', 'three'));
  await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(3));
  panels.approvals.decide('s:1', true);
  await vi.waitFor(() => expect(asks(port)).toHaveLength(1)); // p1 posted on home: armed
  answer(port, asks(port)[0]!.id); // the page took it; its conversation is named late
  expect(await s1.reply()).toMatchObject({ kind: 'result' });
  panels.approvals.decide('s:2', true);
  await vi.waitFor(() => expect(asks(port)).toHaveLength(2)); // p2 posted while the URL is still home: re-armed by p2
  moveTo(Z); // p1's conversation named, on the same page
  if (how === 'cancel') router.cancel('s:2'); // s's client gives up while p2 waits behind p1's answer (no reply: agent.ts)
  else port.deliver({ kind: 'error', id: asks(port)[1]!.id, error: { code: 'TIMEOUT', message: 'the page did not take prompts within 30 s (an answer still streaming). Nothing was sent.' } });
  await s2.done;
  panels.approvals.decide('s:3', true);
  await answerPost(port, 2);
  return { reply: await s3.reply(), posts: asks(port).length };
}

describe('a later prompt of the same session that came to nothing does not take away the conversation an earlier one named', () => {
  for (const how of ['cancel', 'error'] as const) {
    it(`p2 ${how === 'cancel' ? 'cancelled' : 'refused (not taken)'} after p1's conversation Z was named: s's card drawn on home goes into Z`, async () => {
      const { reply, posts } = await scenario(how);
      // Z is s's own: p1 was taken (as ask-prompt-count's one session's two asks).
      expect(reply).toMatchObject({ kind: 'result' });
      expect(posts).toBe(3);
    });
  }
});
