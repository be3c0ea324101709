import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import { panelRouter } from '../support/panel-router';

/**
 * Read-only refuses a new chat as it refuses any prompt, before anything reads the person's page (review 13b,
 * R13b-5): the draft check ran first, injected a script into their tab and told the agent, at any door, that the
 * person was typing and how much.
 */
const X = 'https://www.perplexity.ai/search/tides-abc';
const state = vi.hoisted(() => ({
  stored: { settings: { readOnly: true } } as Record<string, unknown>,
  tabs: {} as Record<number, { id: number; windowId: number; title: string; url: string; active: boolean }>,
  scripted: [] as number[],
}));
vi.mock('wxt/browser', async () => {
  const fake = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  (fake.browser as Record<string, unknown>).scripting = {
    executeScript: async ({ target }: { target: { tabId: number } }) => {
      state.scripted.push(target.tabId);
      return [{ result: 'Dear landlord, I am writing to' }];
    },
  };
  return fake;
});

describe('Read-only refuses a new chat before anything touches the page', () => {
  it('PERMISSION_DENIED, and the composer is never read', async () => {
    state.tabs = { 7: { id: 7, windowId: 1, title: 'Tides', url: X, active: true } };
    const pages = {
      state: (tabId: number) => (state.tabs[tabId] ? { tabId, url: state.tabs[tabId]!.url, title: 't' } : undefined),
      document: () => ({}),
      whenReady: async () => {},
      request: async () => ({}),
    } as unknown as PageHub;
    const tabs = new TabService(pages);
    await tabs.drive(7);
    const { router } = panelRouter(pages, tabs);
    const request: Request = { kind: 'request', id: 'k1:1', method: 'page.ask', params: { prompt: 'hi', newChat: true }, origin: { clientId: 'k1', clientName: 'Agent', tool: 'comet_ask', door: 'loopback' } };
    const replies: Envelope[] = [];
    await router.handle(request, (m) => replies.push(m));
    const answer = replies.find((r) => r.kind !== 'progress') as { kind: string; error?: { code: string; message: string } };
    expect(answer.error?.message).not.toMatch(/draft/);
    expect(answer.error?.code).toBe('PERMISSION_DENIED');
    expect(state.scripted).toEqual([]);
  });
});
