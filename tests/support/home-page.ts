import type { Runtime } from 'webextension-polyfill';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from './fake-port';
import type { FakeTab } from './fake-wxt-browser';
import { panelRouter } from './panel-router';

/**
 * One Perplexity tab (7) on the home page with a real PageHub, TabService, Router and PanelService, its page a FakePort:
 * for the tests of where an agent's prompt may go (tests/unit/ask-home-card*.test.ts, ask-prompt-count.test.ts). The
 * test file mocks wxt/browser with `state` (fake-wxt-browser), as vi.mock must be hoisted there.
 */
export const HOME = 'https://www.perplexity.ai/';

export async function homePage(state: { stored: Record<string, unknown>; tabs: Record<number, FakeTab> }, settings: Record<string, unknown> = { requireApproval: true }) {
  state.stored = { settings };
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
  const hub = new PageHub(() => {});
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask'] } });
  const tabs = new TabService(hub);
  await tabs.drive(7);
  const { router, panels } = panelRouter(hub, tabs);
  /** A same-document move (a sidebar click, "New thread", a conversation named): page.navigated on the same port. */
  const moveTo = (url: string) => {
    state.tabs[7]!.url = url;
    port.deliver({ kind: 'event', event: 'page.navigated', data: { url, title: 't' } });
  };
  return { hub, port, tabs, router, panels, moveTo };
}

/** The prompts posted to the page, in order. */
export const asks = (port: FakePort) => port.sent.filter((m) => (m as { method?: string }).method === 'page.ask') as { id: string; params: { prompt: string } }[];

/** The page took prompt `id`. */
export const answer = (port: FakePort, id: string) =>
  port.deliver({ kind: 'result', id, result: { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: '', questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' } });

/** A comet_ask of session `client`. */
export const req = (id: string, client: string, prompt: string): Request => ({ kind: 'request', id, method: 'page.ask', params: { prompt }, origin: { clientId: client, clientName: client, tool: 'comet_ask', door: 'loopback' } });

/** Starts a call; `reply()` is its answer once it ended. */
export async function start(router: { handle: (r: Request, reply: (m: Envelope) => void) => Promise<void> }, r: Request) {
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
