import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { type ApprovedTab, Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * Two more orders of events a prompt must not follow into another conversation (fixes review 7): a new chat whose
 * load another agent's navigation overtakes (the page that connects is that agent's), and a card drawn on the home
 * page, approved after another prompt named its own conversation on that same page.
 */
const T = 'https://www.perplexity.ai/search/persons-thread-T';
const HOME = 'https://www.perplexity.ai/';
const Y = 'https://www.perplexity.ai/search/other-agents-thread-Y';
const Z = 'https://www.perplexity.ai/search/agent-Bs-new-thread-Z';
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown>, tabs: {} as Record<number, FakeTab> }));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return {
    browser: {
      ...base.browser,
      scripting: { executeScript: async () => [{ result: '' }] }, // an empty composer: no draft in the way
      tabs: {
        ...base.browser.tabs,
        update: async (id: number, props: { url?: string }) => {
          if (props.url) (state.tabs[id] as FakeTab).url = props.url;
          return { ...state.tabs[id] };
        },
      },
    },
  };
});

/** Tab 7 at `url`; `onReady` runs when a wait for its page ends, `onAsk` when a prompt reaches it. */
function tabAt(url: string, hooks: { onReady?: () => void; onAsk?: (prompt: string) => void } = {}) {
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url, active: true } };
  const tab = state.tabs[7] as FakeTab;
  const world = { sent: [] as string[], document: {} as object, tab, asks: [] as string[] };
  const pages = {
    state: () => ({ tabId: 7, url: tab.url, title: 't' }),
    document: () => world.document,
    askCount: () => world.asks.length,
    asksSince: (_page: unknown, count: number) => world.asks.slice(count),
    namedBy: () => undefined,
    whenReady: async () => hooks.onReady?.(),
    forget: () => () => {},
    request: async (tabId: number, method: string, p: Record<string, unknown>, _s?: unknown, _o?: unknown, _t?: unknown, asker = '') => {
      if (method === 'page.ask') world.asks.push(asker);
      world.sent.push(`${method}${p.mode ? `(${p.mode})` : ''}${p.prompt ? `[${p.prompt}]` : ''} -> tab ${tabId} (${tab.url})`);
      if (method === 'page.mode' && p.mode === undefined) return { mode: 'search', acts: false };
      if (method === 'page.mode') return { mode: p.mode, changed: true, verified: true };
      hooks.onAsk?.(String(p.prompt));
      return { afterTurn: 0, baselineUrl: '', turnIndex: 0, conversationUrl: '', questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  return Object.assign(world, { pages });
}

async function routerFor(world: ReturnType<typeof tabAt>, authorize?: (request: Request, router: Router) => Promise<ApprovedTab | undefined>) {
  const tabs = new TabService(world.pages);
  await tabs.drive(7);
  const router: Router = new Router({ tabs, pages: world.pages, status: async () => ({}), ...(authorize ? { authorize: (request: Request) => authorize(request, router) } : {}) });
  return router;
}

async function ask(router: Router, id: string, params: Record<string, unknown>) {
  const replies: Envelope[] = [];
  const request: Request = { kind: 'request', id, method: 'page.ask', params, origin: { clientId: id, clientName: `Agent ${id}`, tool: 'comet_ask', door: 'loopback' } };
  await router.handle(request, (m) => replies.push(m));
  return replies.find((r) => r.kind !== 'progress');
}

describe('a new chat whose load another agent overtakes with its own conversation', () => {
  for (const approved of [false, true]) {
    for (const keepMode of [undefined, 'deep-research']) {
      it(`nothing is typed there (approved: ${approved}, mode chosen: ${Boolean(keepMode)})`, async () => {
        const world = tabAt(T, {
          onReady: () => {
            // Our load of the home page was replaced by the other agent's navigation: its page connects.
            world.tab.url = Y;
            world.document = {};
          },
        });
        const router = await routerFor(world, approved ? async () => ({ tabId: 7, url: T, title: 'T', page: world.document, prompts: world.asks.length }) : undefined);
        const reply = await ask(router, 'a', { prompt: 'P', newChat: true, ...(keepMode ? { keepMode } : {}) });
        expect(world.sent.filter((s) => s.startsWith('page.ask'))).toEqual([]);
        expect(reply).toMatchObject({ kind: 'error', error: { message: expect.stringContaining(`the tab shows another conversation (${Y})`) } });
      });
    }
  }
});

describe('a card on the home page approved after another prompt named its own conversation there', () => {
  it("the prompt does not go into the other prompt's conversation", async () => {
    const world = tabAt(HOME, {
      onAsk: (prompt) => {
        if (prompt === 'B') world.tab.url = Z; // B's first turn names its conversation on the same page
      },
    });
    let clickA!: () => void;
    const router = await routerFor(world, async (request) => {
      const card: ApprovedTab = { tabId: 7, url: world.tab.url, title: 'Perplexity', page: world.document, prompts: world.asks.length, client: request.origin?.clientId };
      if (request.id === 'A') await new Promise<void>((resolve) => (clickA = resolve)); // A's card waits for the person
      return card;
    });
    const a = ask(router, 'A', { prompt: 'A' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await ask(router, 'B', { prompt: 'B' })).toMatchObject({ kind: 'result' }); // approved first, sent
    clickA();
    expect(await a).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining(`that tab now shows ${Z}`) } });
    expect(world.sent).toEqual([`page.ask[B] -> tab 7 (${HOME})`]);
  });
});
