import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';

/**
 * A new chat's prompt goes to the new chat's page, never to the page it is leaving (review 10, router F5). The real
 * PageHub and TabService.
 *
 * Agent B's prompt was just taken on the home page (tab 7); agent A asks with newChat. TabService.navigate forgets the
 * tab's state, starts the load of the home page and waits for page.ready/page.navigated on the tab: the OLD document,
 * still alive until the load commits, names B's conversation (the "named late" URL change: page.navigated), which sets
 * the state again and ends the wait. stillWhereAsked then looks at pendingUrl (the home page still loading) and passes,
 * and page.ask was posted to the old document, showing B's conversation. Now what a page being navigated away says is
 * not the next page's ready.
 */
const HOME = 'https://www.perplexity.ai/';
const B = 'https://www.perplexity.ai/search/agent-Bs-thread';
const state = vi.hoisted(() => ({
  tab: { id: 7, windowId: 1, title: 'Perplexity', url: 'https://www.perplexity.ai/', active: true } as { id: number; windowId: number; title: string; url: string; active: boolean; pendingUrl?: string },
  onUpdate: undefined as undefined | (() => void),
}));
vi.mock('wxt/browser', () => ({
  browser: {
    storage: { session: { get: async () => ({}), set: async () => {} }, local: { get: async () => ({}), set: async () => {} }, onChanged: { addListener: () => {} } },
    tabs: {
      get: async (id: number) => {
        if (id !== 7) throw new Error('No tab with id');
        return { ...state.tab };
      },
      query: async () => [{ ...state.tab }],
      update: async (_id: number, props: { url?: string }) => {
        if (props.url) state.tab.pendingUrl = props.url; // the load starts; it commits later
        queueMicrotask(() => state.onUpdate?.());
        return { ...state.tab };
      },
    },
    // No composer draft (the injected read fails: composerDraft says undefined, nothing refused).
    scripting: { executeScript: async () => [{ result: '' }] },
  },
}));

describe('a new chat typed only into the new page', () => {
  it("the page being left naming agent B's conversation (or a pack push) is not the new chat's ready: the prompt waits for the new page", async () => {
    const hub = new PageHub(() => {});
    const old = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(old as unknown as Runtime.Port);
    old.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask'] } });
    const tabs = new TabService(hub);
    await tabs.drive(7);
    const router = new Router({ tabs, pages: hub, status: async () => ({}) });
    state.onUpdate = () => {
      state.tab.url = B;
      old.deliver({ kind: 'event', event: 'page.navigated', data: { url: B, title: 'B', kits: ['ask'] } });
    };
    const replies: Envelope[] = [];
    const request: Request = { kind: 'request', id: 'a:1', method: 'page.ask', params: { prompt: 'A in a new chat', newChat: true }, origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' } };
    const done = router.handle(request, (m) => replies.push(m));
    await vi.waitFor(() => expect(state.tab.pendingUrl).toBe(HOME));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asks = (port: FakePort) => port.sent.filter((m) => (m as { method?: string }).method === 'page.ask') as { id: string; params: { prompt: string } }[];
    expect(asks(old)).toEqual([]);
    // The new chat commits: a new document, its own port.
    state.tab.url = HOME;
    delete state.tab.pendingUrl;
    old.drop();
    const fresh = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
    hub.accept(fresh as unknown as Runtime.Port);
    fresh.deliver({ kind: 'event', event: 'page.ready', data: { url: HOME, title: 'Perplexity', kits: ['ask'] } });
    await vi.waitFor(() => expect(asks(fresh)).toHaveLength(1));
    expect(asks(fresh)[0]?.params.prompt).toBe('A in a new chat');
    expect(asks(old)).toEqual([]);
    fresh.deliver({ kind: 'result', id: asks(fresh)[0]!.id, result: { afterTurn: 0, baselineUrl: HOME, turnIndex: 0, conversationUrl: HOME, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' } });
    await done;
    expect(replies.find((r) => r.kind !== 'progress')).toMatchObject({ kind: 'result' });
  });
});
