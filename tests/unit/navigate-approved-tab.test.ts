import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import type { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import { panelRouter } from '../support/panel-router';

/**
 * An approved address that asks a prompt (`/search?q=…`) is opened in the tab its card named, or not at all (review
 * 13b, R13b-4): when that tab left Perplexity while the card waited, the prompt went to another Perplexity tab of the
 * person's, which then left the conversation it showed.
 */
const X = 'https://www.perplexity.ai/search/tides-abc';
const PRIVATE = 'https://www.perplexity.ai/search/persons-private-thread-P';
const MAIL = 'https://mail.example.com/inbox';
const PROMPT_URL = 'https://www.perplexity.ai/search?q=Summarise%20my%20week';

const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {} as Record<number, { id: number; windowId: number; title: string; url: string; active: boolean; pendingUrl?: string }>,
  updates: [] as string[],
}));
vi.mock('wxt/browser', async () => {
  const fake = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  const update = fake.browser.tabs.update;
  (fake.browser.tabs as Record<string, unknown>).update = async (id: number, change: { url?: string; active?: boolean }) => {
    if (change.url) {
      state.updates.push(`tab ${id} -> ${change.url}`);
      const tab = state.tabs[id];
      if (tab) tab.url = change.url;
    }
    return update(id);
  };
  return fake;
});

const isPerplexity = (url: string) => url.startsWith('https://www.perplexity.ai/');

function world() {
  const doc = {};
  return {
    state: (tabId: number) => (state.tabs[tabId] && isPerplexity(state.tabs[tabId]!.url) ? { tabId, url: state.tabs[tabId]!.url, title: 't' } : undefined),
    document: (tabId: number) => (state.tabs[tabId] ? doc : undefined),
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    whenReady: async (tabId: number) => {
      if (!state.tabs[tabId] || !isPerplexity(state.tabs[tabId]!.url)) throw new Error('no page script');
    },
    forget: () => () => {},
    request: async () => ({}),
  } as unknown as PageHub;
}

const navigateReq = (): Request => ({
  kind: 'request',
  id: 'k1:1',
  method: 'tabs.navigate',
  params: { url: PROMPT_URL },
  origin: { clientId: 'k1', clientName: 'Agent', tool: 'comet_open_conversation', door: 'loopback' },
});

async function run(router: Router, request: Request) {
  const replies: Envelope[] = [];
  const done = router.handle(request, (m) => replies.push(m));
  return async () => {
    await done;
    return replies.find((r) => r.kind !== 'progress');
  };
}

describe('an approved address with a prompt goes only to the tab its card named', () => {
  it('the card named tab 7; tab 7 went to another site before the click: nothing is sent, no other tab moves', async () => {
    state.updates = [];
    state.tabs = {
      7: { id: 7, windowId: 1, title: 'Tides', url: X, active: true },
      9: { id: 9, windowId: 2, title: 'Private', url: PRIVATE, active: true },
    };
    const pages = world();
    const tabs = new TabService(pages);
    await tabs.drive(7);
    const { router, panels } = panelRouter(pages, tabs);
    const reply = await run(router, navigateReq());
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    expect(panels.approvals.pending()[0]?.target).toContain('tab 7');
    // The person used tab 7 to read their mail while the card waited, then clicked Approve.
    state.tabs[7]!.url = MAIL;
    panels.approvals.decide(panels.approvals.pending()[0]!.id, true);
    const answer = await reply();
    // Correct: refused (the approved tab no longer shows Perplexity), and the person's other tab is left where it was.
    expect(state.updates).toEqual([]);
    expect(answer).toMatchObject({ kind: 'error' });
  });
});
