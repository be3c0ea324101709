import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { panelRouter } from '../support/panel-router';

/**
 * The person's policy is applied when a call arrives, and again when a call that waited its turn behind another
 * agent's prompt gets it: Read-only, the person's stop switch, refuses a prompt still queued; Require approval turned
 * on holds one that was let through unasked (review 8, many clients M2).
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false, readOnly: false } } as Record<string, unknown>,
  tabs: { 7: { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true } } as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

const ask = (id: string, prompt: string): Request => ({
  kind: 'request',
  id,
  method: 'page.ask',
  params: { prompt },
  origin: { clientId: id, clientName: `Agent ${id}`, tool: 'comet_ask', door: 'loopback' },
});

/** A page whose first prompt is held (an answer still being written before it) until the test lets it go. */
async function queue() {
  const typed: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const tabs = state.tabs;
  const pages = {
    state: (tabId: number) => ({ tabId, url: tabs[tabId]?.url, title: tabs[tabId]?.title }),
    whenReady: async () => {},
    request: async (tabId: number, method: string, params: { prompt?: string }) => {
      if (method !== 'page.ask') return {};
      if (params.prompt === 'first') await held;
      typed.push(String(params.prompt));
      return { afterTurn: 0, baselineUrl: tabs[tabId]?.url, turnIndex: 1, conversationUrl: tabs[tabId]?.url, questionKey: 'k', previousAnswerKey: '', submittedAt: 1, via: 'button' };
    },
  } as unknown as PageHub;
  const tabService = new TabService(pages);
  await tabService.drive(7);
  const { router, panels } = panelRouter(pages, tabService);
  const replies: Envelope[] = [];
  const first = router.handle(ask('a', 'first'), (m) => replies.push(m));
  await new Promise((resolve) => setTimeout(resolve, 10));
  const second = router.handle(ask('b', 'second'), (m) => replies.push(m));
  // The second waits its turn behind the first: it says so.
  await vi.waitFor(() => expect(replies.some((r) => r.kind === 'progress' && r.id === 'b')).toBe(true));
  const replyOf = (id: string) => replies.find((r) => r.kind !== 'progress' && (r as { id?: string }).id === id);
  return { typed, release, panels, both: () => Promise.all([first, second]), replyOf };
}

describe('a prompt that waited its turn, under the settings as they are when it gets it', () => {
  it('Read-only turned on meanwhile: it is refused, nothing typed', async () => {
    state.stored = { settings: { requireApproval: false, readOnly: false } };
    const q = await queue();
    await q.panels.settings.update({ readOnly: true });
    q.release();
    await q.both();
    expect(q.typed).not.toContain('second');
    expect(q.replyOf('b')).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('read-only') } });
  });

  it('Require approval turned on meanwhile: refused, not held (a card there would keep every call queued behind it waiting)', async () => {
    state.stored = { settings: { requireApproval: false, readOnly: false } };
    const q = await queue();
    await q.panels.settings.update({ requireApproval: true });
    q.release();
    await q.both();
    expect(q.panels.approvals.pending()).toEqual([]);
    expect(q.typed).toEqual(['first']);
    expect(q.replyOf('b')).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/^"Require approval" was turned on before the request to .* was carried out \(while it waited its turn or was on its way\), so it was not\. Call again/) } });
  });

  /**
   * A request sent while its tab still loads, and Read-only turned on before the page is ready: the reply, and what
   * reached the page (a mode switch as `page.mode(mode)`).
   */
  async function readOnlyWhileLoading(request: Request) {
    state.stored = { settings: { requireApproval: false, readOnly: false } };
    let loaded!: () => void;
    const loading = new Promise<void>((resolve) => (loaded = resolve));
    const sent: string[] = [];
    const pages = {
      state: () => undefined,
      document: () => undefined,
      whenReady: () => loading,
      request: async (_tabId: number, method: string, params: { mode?: string }) => {
        sent.push(params?.mode ? `${method}(${params.mode})` : method);
        return method === 'page.mode' ? { mode: params.mode ?? 'search', changed: true, verified: true } : {};
      },
    } as unknown as PageHub;
    const tabService = new TabService(pages);
    await tabService.drive(7);
    const { router, panels } = panelRouter(pages, tabService);
    const replies: Envelope[] = [];
    const handled = router.handle(request, (m) => replies.push(m));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await panels.settings.update({ readOnly: true });
    loaded();
    await handled;
    return { reply: replies.at(-1), sent };
  }

  it('a mode switch whose tab was still loading: Read-only turned on meanwhile refuses it, nothing sent to the page (review 10, router)', async () => {
    const { reply, sent } = await readOnlyWhileLoading({
      kind: 'request',
      id: 'm',
      method: 'page.mode',
      params: { mode: 'deep-research' },
      origin: { clientId: 'm', clientName: 'Agent m', tool: 'comet_mode', door: 'loopback' },
    });
    expect(sent).toEqual([]);
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('read-only') } });
  });

  it("a prompt's own mode switch (the session's mode) on a tab still loading: Read-only turned on meanwhile refuses it before the mode is touched (review 11c, M1)", async () => {
    const { reply, sent } = await readOnlyWhileLoading({ ...ask('k', 'hello'), params: { prompt: 'hello', keepMode: 'deep-research' } });
    expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(sent.filter((m) => m.startsWith('page.mode(') || m === 'page.ask')).toEqual([]);
  });

  it('a call the person approved is not asked again when it gets its turn, a thread call (which names no tab) too (fixes review 2 #1)', async () => {
    state.stored = { settings: { requireApproval: true, readOnly: false } };
    const pages = { state: () => undefined, whenReady: async () => {}, request: async () => ({}) } as unknown as PageHub;
    const { panels } = panelRouter(pages, new TabService(pages));
    const request = { kind: 'request', id: 't1', method: 'threads.send', params: { threadId: 't', message: 'more' } } as Request;
    const params = request.params as Record<string, unknown>;
    const approving = panels.authorize(request, params, new AbortController().signal, () => {});
    await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
    panels.approvals.decide('t1', true);
    expect(await approving).toBeUndefined();
    await expect(panels.recheck(request, params, undefined)).resolves.toBeUndefined();
    expect(panels.approvals.pending()).toEqual([]);
    // Another call that was never approved is refused, never held.
    const other = { ...request, id: 't2' };
    await expect(panels.recheck(other, params, undefined)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
