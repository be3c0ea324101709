import { describe, expect, it, vi } from 'vitest';
import type { WatchSnapshot } from '../../lib/protocol/watch';
import { offlinePanelService } from '../support/panel-service';

/**
 * The person's answer to a box from the side panel goes to the tab whose page showed the box, while it shows that
 * conversation (review 13b, R13b-6): it went to whatever tab was driven at the click, where a box with an id derived
 * from the same words could be approved in another conversation.
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const A = 'https://www.perplexity.ai/search/thread-A';

const snapshot: WatchSnapshot = {
  url: A,
  title: 'A',
  mode: null,
  status: 'waiting',
  latestStep: '',
  question: 'q',
  interactions: [{ type: 'confirm_action', id: 't0-confirm_action-1a2b3c', text: 'Send the draft reply to Bob?' }],
  conversations: [],
};

describe('an answer from the panel goes to the conversation whose box was answered', () => {
  const respondFrom = async (tab7: string) => {
    const sent: { tabId: number; method: string }[] = [];
    const panel = offlinePanelService(async () => ({}), {
      tabs: { drivenTab: async () => ({ id: 9, url: 'https://www.perplexity.ai/search/thread-B' }), pageTab: async () => 9 },
      pages: {
        state: (tabId: number) => ({ url: tabId === 7 ? tab7 : 'https://www.perplexity.ai/search/thread-B' }),
        document: () => undefined,
        request: async (tabId: number, method: string) => {
          sent.push({ tabId, method });
          return { ok: true };
        },
      },
    });
    (panel as unknown as { onSnapshot(tabId: number, value: WatchSnapshot): void }).onSnapshot(7, snapshot);
    const handlers = (panel as unknown as { handlers(): Record<string, (p: unknown) => Promise<unknown>> }).handlers();
    const outcome = await handlers['panel.respond']?.({ threadKey: A, interactionId: 't0-confirm_action-1a2b3c', reply: { kind: 'approve', reason: 'Approved in the side panel' } }).then(
      () => 'sent',
      (error: Error) => error.message,
    );
    return { sent, outcome };
  };

  it('to the tab whose page showed it, not the tab driven now (an agent switched to tab 9, thread B)', async () => {
    const { sent, outcome } = await respondFrom(A);
    expect(outcome).toBe('sent');
    expect(sent).toEqual([{ tabId: 7, method: 'page.respond' }]);
  });

  it('not at all once that tab shows another conversation, saying so', async () => {
    const { sent, outcome } = await respondFrom('https://www.perplexity.ai/search/thread-C');
    expect(outcome).toMatch(/The tab now shows https:\/\/www\.perplexity\.ai\/search\/thread-C, not the conversation whose question this answers .*nothing was sent/);
    expect(sent).toEqual([]);
  });
});
