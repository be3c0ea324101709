import { describe, expect, it, vi } from 'vitest';
import type { Envelope } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

/**
 * A home page whose last prompt (this session's own, just taken) gets its thread URL a moment later, while this
 * session's next ask sets its mode again: the same tab, its own conversation named late; the follow-up goes there
 * (fixes review 3 #3, 4 #3).
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false } } as Record<string, unknown>,
  tabs: { 7: { id: 7, windowId: 1, title: 'Perplexity', url: 'https://www.perplexity.ai/', active: true } } as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

describe('a conversation that gets its thread URL after its first turn', () => {
  it('the follow-up with a mode chosen goes to that conversation', async () => {
    const sent: string[] = [];
    const tabs = state.tabs;
    const pages = {
      state: (tabId: number) => (tabs[tabId] ? { tabId, url: tabs[tabId]?.url, title: tabs[tabId]?.title } : undefined),
      whenReady: async () => {},
      request: async (tabId: number, method: string, params: Record<string, unknown>) => {
        sent.push(`${method}${params.mode ? `(${params.mode})` : ''} -> tab ${tabId}`);
        if (method === 'page.mode' && params.mode === undefined) {
          // The SPA names the thread of the prompt it just took while the mode is read.
          (tabs[7] as FakeTab).url = 'https://www.perplexity.ai/search/first-question-abc';
          return { mode: 'standard', acts: false };
        }
        if (method === 'page.mode') return { mode: params.mode, changed: true, verified: true };
        return { afterTurn: 0, baselineUrl: tabs[tabId]?.url, turnIndex: 1, conversationUrl: tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
      },
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => 'https://www.perplexity.ai/search/first-question-abc', // the prompt it just took
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    } as unknown as PageHub;
    const tabService = new TabService(pages);
    await tabService.drive(7);
    const router = new Router({ tabs: tabService, pages, status: async () => ({}) } as never);
    const replies: Envelope[] = [];
    await router.handle(
      { kind: 'request', id: 'a:2', method: 'page.ask', params: { prompt: 'And the follow-up?', keepMode: 'deep-research' }, origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' } },
      (m) => replies.push(m),
    );
    const reply = replies.find((r) => r.kind !== 'progress');
    expect(sent).toEqual(['page.mode -> tab 7', 'page.mode(deep-research) -> tab 7', 'page.ask -> tab 7']);
    expect(reply).toMatchObject({ kind: 'result', result: { modeNote: expect.stringContaining("this session's mode, deep-research, was set again") } });
  });
});
