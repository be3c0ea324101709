import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * An approved prompt whose tab gets another page while the card waits: another agent's comet_open_conversation
 * loading thread Y there (still loading at the click, so pageTab waits for it; loaded before it; or only started),
 * or the tab's own page naming its conversation itself. The prompt goes where the card was drawn, or nowhere, before
 * anything is done on Y (fixes review 4 #1, #2; 5 #2; 6 #1, #2). The fake PageHub gives each loaded document its own
 * token, as the real one does (a new port per document).
 */
const HOME = 'https://www.perplexity.ai/';
const X = 'https://www.perplexity.ai/search/approved-thread-X';
const Y = 'https://www.perplexity.ai/search/other-agents-thread-Y';
const OWN = 'https://www.perplexity.ai/search/approved-prompts-own-Z';
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab & { pendingUrl?: string }>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

type Meanwhile = 'Y loads at the click' | 'Y loaded' | 'Y loading' | 'names its own';

async function askApprovedOn(cardUrl: string, meanwhile: Meanwhile, params: Record<string, unknown> = {}) {
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: cardUrl, active: true } };
  const tab = state.tabs[7] as FakeTab & { pendingUrl?: string };
  const sent: string[] = [];
  let connected = true;
  let document = {};
  const pages = {
    state: (tabId: number) => (tabId === 7 && connected ? { tabId, url: tab.url, title: 't' } : undefined),
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => OWN, // the page's own last prompt names OWN
    document: () => document,
    whenReady: async () => {
      // The other agent's navigation commits and its page's script connects.
      tab.url = Y;
      connected = true;
      document = {};
    },
    forget: () => () => {},
    request: async (tabId: number, method: string, p: Record<string, unknown>) => {
      sent.push(`${method}${p.mode ? `(${p.mode})` : ''} -> tab ${tabId} (${tab.url})`);
      if (method === 'page.mode' && p.mode === undefined) return { mode: 'search', acts: false };
      if (method === 'page.mode') return { mode: p.mode, changed: true, verified: true };
      return { afterTurn: 0, baselineUrl: tab.url, turnIndex: 0, conversationUrl: tab.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  const tabs = new TabService(pages);
  await tabs.drive(7);
  const router = new Router({
    tabs,
    pages,
    status: async () => ({}),
    authorize: async () => {
      const card = { tabId: 7, url: cardUrl, title: 'Perplexity', page: pages.document(7) };
      if (meanwhile === 'Y loads at the click') connected = false; // the navigation dropped the old page; Y connects in pageTab's wait
      if (meanwhile === 'Y loaded') {
        tab.url = Y;
        document = {};
      }
      if (meanwhile === 'Y loading') tab.pendingUrl = Y;
      if (meanwhile === 'names its own') tab.url = OWN;
      return card;
    },
  });
  const replies: Envelope[] = [];
  const request: Request = { kind: 'request', id: 'a:1', method: 'page.ask', params: { prompt: 'Approved prompt', ...params }, origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' } };
  await router.handle(request, (m) => replies.push(m));
  return { sent, reply: replies.find((r) => r.kind !== 'progress') };
}

const refused = { kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/^The person approved this for tab 7.*so nothing was sent/) } };

describe('an approved prompt whose tab gets another page while the card waits', () => {
  it('a card on conversation X: Y loading at the click is never typed into, nor its mode touched', async () => {
    expect(await askApprovedOn(X, 'Y loads at the click')).toEqual({ sent: [], reply: expect.objectContaining(refused) });
    expect(await askApprovedOn(X, 'Y loads at the click', { keepMode: 'deep-research' })).toEqual({ sent: [], reply: expect.objectContaining(refused) });
  });

  it('a card on the home page holds for that page: not Y, whether loading at the click, loaded before it, or only started', async () => {
    for (const meanwhile of ['Y loads at the click', 'Y loaded', 'Y loading'] as const) {
      for (const params of [{}, { keepMode: 'deep-research' }]) {
        const { sent, reply } = await askApprovedOn(HOME, meanwhile, params);
        expect(sent, `${meanwhile} ${JSON.stringify(params)}`).toEqual([]);
        expect(reply).toMatchObject(refused);
      }
    }
    expect((await askApprovedOn(HOME, 'Y loaded')).reply).toMatchObject({ error: { message: expect.stringContaining(`that tab now shows ${Y}`) } });
  });

  it('a card on the home page whose own page names its conversation meanwhile: the prompt goes there', async () => {
    const { sent, reply } = await askApprovedOn(HOME, 'names its own');
    expect(sent).toEqual([`page.ask -> tab 7 (${OWN})`]);
    expect(reply?.kind).toBe('result');
  });
});
