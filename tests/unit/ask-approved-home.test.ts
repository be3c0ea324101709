import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * A card drawn on the home page of tab 7 holds for the conversation that very page names for itself (the approved
 * prompt's own), not for one another agent's navigation loaded in the tab while the card waited, finished or not
 * (fixes review 6 #1, #2). The fake PageHub gives each loaded document its own token, as the real one does.
 */
const HOME = 'https://www.perplexity.ai/';
const Y = 'https://www.perplexity.ai/search/other-agents-thread-Y';
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

function world() {
  const sent: string[] = [];
  let doc = { n: 1 };
  const pages = {
    state: (tabId: number) => (state.tabs[tabId] ? { tabId, url: state.tabs[tabId]!.url, title: 't' } : undefined),
    document: () => doc,
    whenReady: async () => {},
    forget: () => () => {},
    request: async (tabId: number, method: string, p: Record<string, unknown>) => {
      sent.push(`${method}${p.mode ? `(${p.mode})` : ''} -> tab ${tabId} (${state.tabs[tabId]?.url})`);
      if (method === 'page.mode' && p.mode === undefined) return { mode: 'search', acts: false };
      if (method === 'page.mode') return { mode: p.mode, changed: true, verified: true };
      return { afterTurn: 0, baselineUrl: state.tabs[tabId]?.url, turnIndex: 0, conversationUrl: state.tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  // Another agent's tabs.navigate(Y), complete: a new document whose script is connected and ready.
  const otherAgentLoadsY = () => {
    state.tabs[7]!.url = Y;
    doc = { n: 2 };
  };
  return { pages, sent, otherAgentLoadsY };
}

async function run(params: Record<string, unknown>, meanwhile: 'loads Y' | 'names its own' | 'Y loading' = 'loads Y') {
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Perplexity', url: HOME, active: true } };
  const { pages, sent, otherAgentLoadsY } = world();
  const tabService = new TabService(pages);
  await tabService.drive(7);
  const router = new Router({
    tabs: tabService,
    pages,
    status: async () => ({}),
    authorize: async () => {
      // the card was drawn on tab 7, home page; while the person reads it, Y loads there; then Approve
      const card = { tabId: 7, url: HOME, title: 'Perplexity', page: pages.document(7) };
      if (meanwhile === 'loads Y') otherAgentLoadsY();
      else if (meanwhile === 'Y loading') (state.tabs[7] as FakeTab & { pendingUrl?: string }).pendingUrl = Y;
      else (state.tabs[7] as FakeTab).url = 'https://www.perplexity.ai/search/approved-prompts-own-Z';
      return card;
    },
  } as never);
  const replies: Envelope[] = [];
  const req: Request = { kind: 'request', id: 'a:1', method: 'page.ask', params: { prompt: 'Approved prompt', ...params }, origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' } };
  await router.handle(req, (m) => replies.push(m));
  return { sent, reply: replies.find((r) => r.kind !== 'progress') };
}

describe('approved on the home page', () => {
  it('another agent loaded Y before the click: nothing is typed there, with a mode chosen or not', async () => {
    for (const params of [{}, { keepMode: 'deep-research' }]) {
      const { sent, reply } = await run(params);
      expect(sent).toEqual([]);
      expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining(`that tab now shows ${Y}`) } });
    }
  });

  it('a navigation to Y still loading at the click: nothing is typed either', async () => {
    const { sent, reply } = await run({}, 'Y loading');
    expect(sent).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
  });

  it('the same page naming its own conversation meanwhile: the prompt goes', async () => {
    const { sent, reply } = await run({}, 'names its own');
    expect(sent).toEqual(['page.ask -> tab 7 (https://www.perplexity.ai/search/approved-prompts-own-Z)']);
    expect(reply?.kind).toBe('result');
  });
});
