import { describe, expect, it, vi } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import { offlinePanelService } from '../support/panel-service';

/**
 * The person answers a Computer task's question in the side panel: once threads.respond resolved (the page took the
 * answer), the card is working and offers the question no more, as it is after an agent's answer; a respond that
 * failed leaves the question waiting (review 15f, F2).
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const URL_ = 'https://www.perplexity.ai/computer/tasks/t-1';
const origin = { clientId: 'c2', clientName: 'codex', tool: 'call_perplexity_computer', summary: '', door: 'loopback' as const };
const req = (id: string, method: string, params: unknown): Request => ({ kind: 'request', id, method, params, origin });

function asked(local: (method: string) => Promise<unknown>) {
  const panel = offlinePanelService(local);
  const start = req('s1', 'threads.start', { message: 'Write the report' });
  panel.onCall({ phase: 'start', request: start, at: 1 });
  panel.onCall({ phase: 'end', request: start, at: 2, ok: true, result: { threadId: 't-1', url: URL_, turn: 0 } });
  const wait = req('w1', 'threads.wait', { threadId: 't-1', turn: 0 });
  panel.onCall({ phase: 'start', request: wait, at: 3 });
  panel.onCall({
    phase: 'end',
    request: wait,
    at: 4,
    ok: true,
    result: {
      threadId: 't-1',
      url: URL_,
      title: 'Write the report',
      turn: 0,
      event: 'ask_user_question',
      text: 'Which format?',
      steps: [],
      sources: [],
      files: [],
      interactions: [{ type: 'ask_user_question', followupUuid: 'f1', text: 'Which format?', requiresUserResponse: true }],
      optionalAuth: [],
      source: 'json',
    },
  });
  return panel;
}

const respond = (panel: ReturnType<typeof asked>) =>
  (panel as unknown as { handlers(): Record<string, (p: unknown) => Promise<unknown>> })
    .handlers()
    ['panel.respond']?.({ threadKey: URL_, interactionId: 'f1', reply: { kind: 'answer', text: 'PDF' } });

describe('a Computer question answered from the panel', () => {
  it('is no longer shown as waiting, nor offered again, once the answer went', async () => {
    const local = vi.fn(async (method: string) => (method === 'threads.respond' ? { threadId: 't-1', url: URL_, turn: 0 } : new Promise(() => {})));
    const panel = asked(local);
    expect(panel.threads.list()[0]).toMatchObject({ status: 'waiting', interactions: [{ id: 'f1' }] });

    await respond(panel);
    expect(local).toHaveBeenCalledWith('threads.respond', expect.objectContaining({ threadId: 't-1' }));

    const card = panel.threads.list()[0];
    expect(card?.latestStep).toBe('Answer sent');
    expect(card?.status).toBe('working');
    expect(card?.interactions).toEqual([]);
    // Not offered again: a second click is told the question waits no more, and nothing more is sent.
    await expect(respond(panel)).rejects.toThrow(/no longer waiting/);
    expect(local.mock.calls.filter(([m]) => m === 'threads.respond')).toHaveLength(1);
  });

  it('stays waiting, its question offered, when the page did not take the answer', async () => {
    const panel = asked(async (method: string) => {
      if (method === 'threads.respond') throw new Error('Perplexity did not take the reply');
      return new Promise(() => {});
    });
    await expect(respond(panel)).rejects.toThrow(/did not take/);
    expect(panel.threads.list()[0]).toMatchObject({ status: 'waiting', interactions: [{ id: 'f1' }] });
  });
});
