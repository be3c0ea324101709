import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';

/**
 * An approved prompt (its card on tab 7, thread X) while another agent's comet_open_conversation is loading thread Y
 * in that tab: the browser still says X when the person approves, and Y once the worker has the page (pageTab waits
 * for it). The prompt goes to X or nowhere, before anything is done on Y (fixes review 4 #1, #2).
 */
const X = 'https://www.perplexity.ai/search/approved-thread-X';
const Y = 'https://www.perplexity.ai/search/other-agents-thread-Y';
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: true } } as Record<string, unknown>,
  tabs: {} as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

function world() {
  const sent: string[] = [];
  let connected = true; // tab 7's page state
  let document = {}; // the page script's document: another once a page loads
  const pages = {
    document: () => document,
    state: (tabId: number) => (tabId === 7 && connected ? { tabId, url: state.tabs[7]!.url, title: 't' } : undefined),
    whenReady: async () => {
      // the other agent's navigation commits and the new page's script connects
      state.tabs[7]!.url = Y;
      connected = true;
      document = {};
    },
    forget: () => () => {},
    request: async (tabId: number, method: string, params: Record<string, unknown>) => {
      sent.push(`${method}${params.mode ? `(${params.mode})` : ''} -> tab ${tabId} (${state.tabs[tabId]?.url})`);
      if (method === 'page.mode' && params.mode === undefined) return { mode: 'search', acts: false };
      if (method === 'page.mode') return { mode: params.mode, changed: true, verified: true };
      return { afterTurn: 0, baselineUrl: state.tabs[tabId]?.url, turnIndex: 0, conversationUrl: state.tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  // What the other agent's tabs.navigate has done when the person clicks Approve: forget(7), tabs.update(7, Y) pending.
  const otherAgentNavigates = () => {
    connected = false;
  };
  return { pages, sent, otherAgentNavigates };
}

const ask = (id: string, params: Record<string, unknown>): Request => ({
  kind: 'request',
  id,
  method: 'page.ask',
  params: { prompt: 'Approved follow-up for X', ...params },
  origin: { clientId: 'a', clientName: 'Agent A', tool: 'comet_ask', door: 'loopback' },
});

async function run(params: Record<string, unknown>, approvedUrl = X) {
  state.tabs = { 7: { id: 7, windowId: 1, title: 'Thread X', url: approvedUrl, active: true } };
  const { pages, sent, otherAgentNavigates } = world();
  const tabService = new TabService(pages);
  await tabService.drive(7);
  const router = new Router({
    tabs: tabService,
    pages,
    status: async () => ({}),
    authorize: async () => {
      otherAgentNavigates();
      return { tabId: 7, url: approvedUrl, title: 'Thread X' };
    },
  } as never);
  const replies: Envelope[] = [];
  await router.handle(ask('a:1', params), (m) => replies.push(m));
  const reply = replies.find((r) => r.kind !== 'progress');
  return { sent, reply };
}

describe('an approved prompt whose tab is loading another conversation when it is approved', () => {
  it('with the page as it is: nothing is typed into Y, and the refusal names the approval', async () => {
    const { sent, reply } = await run({});
    expect(sent).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/approved this for tab 7.*so nothing was sent/) } });
  });

  it('with a mode chosen: not even the mode is touched on Y', async () => {
    const { sent, reply } = await run({ keepMode: 'deep-research' });
    expect(sent).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
  });

  it('a card drawn on the home page holds for that page, not for the conversation a navigation loads meanwhile (fixes review 5 #2)', async () => {
    const { sent, reply } = await run({}, 'https://www.perplexity.ai/');
    expect(sent).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/but that tab now shows https:\/\/www\.perplexity\.ai\/search\/other-agents-thread-Y, so nothing was sent/) } });
  });
});
