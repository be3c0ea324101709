import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

/**
 * A new-chat prompt's tab while the worker reads its draft (a page round trip) before opening the new chat there:
 * its own URL changing by itself (the last turn's thread named late) is still that tab, whose page the new chat
 * leaves anyway; a page the person opened in it is theirs, never navigated away (fixes review 3 #1, #2).
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false } } as Record<string, unknown>,
  tabs: { 7: { id: 7, windowId: 1, title: 'Perplexity', url: 'https://www.perplexity.ai/', active: true } } as Record<number, FakeTab>,
  onDraftRead: [] as Array<() => void>,
  updates: [] as string[],
}));
vi.mock('wxt/browser', async () => {
  const base = (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state);
  return {
    browser: {
      ...base.browser,
      scripting: {
        executeScript: async () => {
          const hook = state.onDraftRead.shift();
          hook?.();
          return [{ result: '' }];
        },
      },
      tabs: {
        ...base.browser.tabs,
        update: async (id: number, props: { url?: string }) => {
          state.updates.push(`tab ${id} -> ${props.url}`);
          if (props.url) (state.tabs[id] as FakeTab).url = props.url;
          return { ...state.tabs[id] };
        },
      },
    },
  };
});

function world() {
  const sent: string[] = [];
  const tabs = state.tabs;
  const pages = {
    state: (tabId: number) => (tabs[tabId] && tabs[tabId]!.url.startsWith('https://www.perplexity.ai') ? { tabId, url: tabs[tabId]?.url, title: tabs[tabId]?.title } : undefined),
    whenReady: async () => {},
    forget: () => () => {},
    request: async (tabId: number, method: string) => {
      sent.push(`${method} -> tab ${tabId} (${tabs[tabId]?.url})`);
      return { afterTurn: 0, baselineUrl: tabs[tabId]?.url, turnIndex: 0, conversationUrl: tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
    whenReplaced: async () => {},
  } as unknown as PageHub;
  return { pages, sent };
}

const ask = (id: string): Request => ({
  kind: 'request',
  id,
  method: 'page.ask',
  params: { prompt: 'Something new', newChat: true },
  origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' },
});

/** A new-chat prompt on tab 7 (home), with `meanwhile` done to the tab during toPage's draft read (the second read). */
async function askWhile(meanwhile: (tab: FakeTab & { pendingUrl?: string }) => void) {
  state.tabs[7] = { id: 7, windowId: 1, title: 'Perplexity', url: 'https://www.perplexity.ai/', active: true };
  state.updates.length = 0;
  state.onDraftRead.splice(0, state.onDraftRead.length, () => {}, () => meanwhile(state.tabs[7] as FakeTab));
  const { pages, sent } = world();
  const tabService = new TabService(pages);
  await tabService.drive(7);
  const router = new Router({ tabs: tabService, pages, status: async () => ({}) } as never);
  const replies: Envelope[] = [];
  await router.handle(ask('a:1'), (m) => replies.push(m));
  return { asks: sent.filter((s) => s.startsWith('page.ask')), reply: replies.find((r) => r.kind !== 'progress') };
}

describe("a new-chat prompt's tab during its draft read", () => {
  it('the same tab naming its last thread late: the new chat opens there and the prompt goes', async () => {
    const { asks, reply } = await askWhile((tab) => {
      tab.url = 'https://www.perplexity.ai/search/first-question-abc';
    });
    expect(state.updates).toEqual(['tab 7 -> https://www.perplexity.ai/']);
    expect(asks).toEqual(['page.ask -> tab 7 (https://www.perplexity.ai/)']);
    expect(reply?.kind).toBe('result');
  });

  it('the person opening another site in it: not navigated, nothing sent, and it says why', async () => {
    const { asks, reply } = await askWhile((tab) => {
      tab.url = 'https://mail.example.com/compose';
    });
    expect(state.updates).toEqual([]);
    expect(asks).toEqual([]);
    expect(reply).toMatchObject({
      kind: 'error',
      error: { code: 'AGENT_ERROR', message: expect.stringMatching(/^The prompt was not sent: it was to go to tab 7, but while a new chat was opened the tab left Perplexity for https:\/\/mail\.example\.com\/compose\./) },
    });
  });

  it('a navigation the person started there, not yet finished, counts where it goes (fixes review 4 #5)', async () => {
    const { asks, reply } = await askWhile((tab) => {
      tab.pendingUrl = 'https://mail.example.com/compose';
    });
    expect(state.updates).toEqual([]);
    expect(asks).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { message: expect.stringContaining('the tab left Perplexity for https://mail.example.com/compose') } });
  });
});
