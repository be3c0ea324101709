import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * With no approval, a follow-up whose tab's last turn (the person's own typed prompt, or one posted before a worker
 * restart) is named during the mode round trip still goes: the tab's own last turn named late (review 3 #3), kept when
 * approved cards got their stricter rule (review 10, router round 2).
 */
const HOME = 'https://www.perplexity.ai/';
const P = 'https://www.perplexity.ai/search/the-persons-own-first-turn';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: false } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

describe("the tab's own last turn, named late, without approval", () => {
  it("a keepMode follow-up after the person's own prompt on the home page goes to the conversation that prompt names", async () => {
    state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
    const hub = new PageHub(() => {});
    const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(port as unknown as Runtime.Port);
    // The person typed a prompt on the home page themselves (nothing posted by comet-relay); its URL is not named yet.
    port.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask', 'mode'] } });
    const post = port.postMessage.bind(port);
    port.postMessage = (m: unknown) => {
      post(m);
      const r = m as { kind: string; id: string; method: string; params: { mode?: string } };
      if (r.kind !== 'request') return;
      queueMicrotask(() => {
        if (r.method === 'page.mode' && !r.params.mode) {
          // The SPA names the person's turn while the mode is read (same document).
          state.tabs[7]!.url = P;
          port.deliver({ kind: 'event', event: 'page.navigated', data: { url: P, title: 'P' } });
          port.deliver({ kind: 'result', id: r.id, result: { mode: 'standard', acts: false } });
        } else if (r.method === 'page.mode') {
          port.deliver({ kind: 'result', id: r.id, result: { mode: r.params.mode, changed: true, verified: true } });
        } else {
          port.deliver({ kind: 'result', id: r.id, result: { afterTurn: 1, baselineUrl: P, turnIndex: 1, conversationUrl: P, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' } });
        }
      });
    };
    const tabs = new TabService(hub);
    await tabs.drive(7);
    const router = new Router({ tabs, pages: hub, status: async () => ({}) });
    const replies: Envelope[] = [];
    const request: Request = { kind: 'request', id: 'a:1', method: 'page.ask', params: { prompt: 'And a follow-up?', keepMode: 'deep-research' }, origin: { clientId: 'a', clientName: 'A', tool: 'comet_ask', door: 'loopback' } };
    await router.handle(request, (m) => replies.push(m));
    // 2d2f883: AGENT_ERROR "The prompt was not sent ... the tab shows another conversation (P): another agent's
    // comet_open_conversation there, or the person's (this session's mode, deep-research, had been set on the tab)".
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'result' });
  });
});
