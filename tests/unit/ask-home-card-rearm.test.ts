import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * One session's two prompts posted on the home page before the first one's conversation is named: when the second
 * comes to nothing (cancelled while it waited behind the first's answer, or refused), the conversation the page names
 * for the first, which it took, stays the session's, and its card drawn on home goes there (review 10, router round 4).
 */
const HOME = 'https://www.perplexity.ai/';
const Z = 'https://www.perplexity.ai/search/s1s-thread-Z';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

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

async function scenario(Hub: typeof PageHub, how: 'cancel' | 'error') {
  state.stored = { settings: { requireApproval: true } };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
  const hub = new Hub(() => {});
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask'] } });
  const tabs = new TabService(hub as PageHub);
  await tabs.drive(7);
  const { router, panels } = panelRouter(hub as PageHub, tabs);
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
  state.tabs[7]!.url = Z; // p1's conversation named, on the same page
  port.deliver({ kind: 'event', event: 'page.navigated', data: { url: Z, title: 'Z' } });
  if (how === 'cancel') router.cancel('s:2'); // s's client gives up while p2 waits behind p1's answer (no reply: agent.ts)
  else port.deliver({ kind: 'error', id: asks(port)[1]!.id, error: { code: 'TIMEOUT', message: 'the page did not take prompts within 30 s (an answer still streaming). Nothing was sent.' } });
  await s2.done;
  panels.approvals.decide('s:3', true);
  await new Promise((r) => setTimeout(r, 20));
  const posted = asks(port)[2];
  if (posted) answer(port, posted.id);
  return { reply: await s3.reply(), posts: asks(port).length };
}

describe('a later prompt of the same session that came to nothing does not take away the conversation an earlier one named', () => {
  for (const how of ['cancel', 'error'] as const) {
    it(`p2 ${how === 'cancel' ? 'cancelled' : 'refused (not taken)'} after p1's conversation Z was named: s's card drawn on home goes into Z`, async () => {
      const { reply, posts } = await scenario(PageHub, how);
      // Z is s's own: p1 was taken (as ask-prompt-count's one session's two asks).
      expect(reply).toMatchObject({ kind: 'result' });
      expect(posts).toBe(3);
    });
  }
});
