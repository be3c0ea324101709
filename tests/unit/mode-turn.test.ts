import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

vi.mock('wxt/browser', () => ({ browser: { scripting: { executeScript: async () => [{ result: '' }] }, tabs: { get: async () => undefined } } }));

/**
 * The mode's turn in the worker (lib/worker/calls/mode-turn.ts) as sessions meet it on one driven tab: a prompt
 * waiting in the page (an answer still being written) holds it; what waits behind it is told so and keeps its
 * approval's promise; a read of the mode the page answers by looking never waits (review 2026-12-05 of the day's
 * change, #1 and #6), one that acts on the composer does (late review #3).
 */
const tick = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};
const X = 'https://www.perplexity.ai/search/first-thread-Xa1';
const Y = 'https://www.perplexity.ai/search/second-thread-Yb2';

function world(start = X, readActs = false) {
  const tab = { id: 7, url: start, title: 'first' };
  const sent: string[] = [];
  let answerWritten!: () => void;
  const pageBusy = new Promise<void>((r) => (answerWritten = r));
  const pages = {
    request: vi.fn(async (_t: number, method: string, params: { prompt?: string; mode?: string; passive?: boolean }) => {
      if (method === 'page.mode' && !params.mode) sent.push(params.passive ? 'looked at the mode' : 'read the mode through its menu');
      // A page that can only read its mode by opening the mode menu (or typing "/") says so to a look-only read.
      if (method === 'page.mode' && !params.mode && readActs && params.passive) return { mode: null, source: 'unavailable', detail: 'reading it acts on the composer', acts: true };
      if (method === 'page.mode') return params.mode ? { mode: params.mode, source: 'switched', previous: 'standard', changed: true, verified: true } : { mode: 'standard', source: 'chip' };
      if (method === 'page.ask') {
        if (params.prompt === 'first') await pageBusy;
        // A prompt typed on the home page starts a conversation of its own once the page took it.
        if (tab.url === 'https://www.perplexity.ai/') tab.url = Y;
        sent.push(`${params.prompt} → ${tab.url}`);
        return { turnIndex: 0 };
      }
      return {};
    }),
    state: () => undefined,
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
    whenReplaced: async () => {},
  } as unknown as PageHub;
  let navigated!: () => void;
  const committed = new Promise<void>((r) => (navigated = r));
  const tabs = {
    pageTab: async () => 7,
    drivenTab: async () => ({ ...tab }),
    // A navigation commits a moment later: until then the tab still shows the conversation it leaves.
    navigate: async (url: string) => {
      await committed;
      tab.url = url;
      return url;
    },
  } as unknown as TabService;
  // Every prompt is held for the person's approval; the card names the tab and the conversation it shows.
  const router = new Router({ tabs, pages, status: async () => ({}), authorize: async () => ({ tabId: tab.id, url: tab.url, title: tab.title }) });
  const replies: (Envelope & { id?: string })[] = [];
  const call = (id: string, method: string, params: Record<string, unknown>) => router.handle({ kind: 'request', id, method, params } as Request, (m) => replies.push(m));
  return { call, replies, sent, answerWritten, navigated };
}

describe('the mode turn between sessions on one tab', () => {
  it('a prompt approved for one conversation, waiting behind another session’s new chat, is never sent into the new conversation', async () => {
    const w = world();
    const first = w.call('A', 'page.ask', { prompt: 'first', newChat: true });
    await tick();
    // The second card is approved while the first one's new chat has not committed: it still shows the first thread.
    const second = w.call('B', 'page.ask', { prompt: 'second' });
    await tick();
    w.navigated();
    await tick();
    w.answerWritten();
    await Promise.all([first, second]);
    expect(w.sent.some((s) => s.startsWith('second'))).toBe(false);
    expect(w.replies.filter((r) => r.id === 'B').at(-1)).toMatchObject({ kind: 'error' });
  });

  it('a prompt approved on the home page, waiting behind another session’s new chat, is not sent into that new thread', async () => {
    const w = world('https://www.perplexity.ai/');
    const first = w.call('A', 'page.ask', { prompt: 'first', newChat: true });
    await tick();
    const second = w.call('B', 'page.ask', { prompt: 'second' });
    await tick();
    w.navigated();
    w.answerWritten();
    await Promise.all([first, second]);
    expect(w.sent).toEqual([`first → ${Y}`]);
    expect(w.replies.filter((r) => r.id === 'B').at(-1)).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
  });

  it('a new chat approved while the tab showed a conversation, waiting behind another prompt, still goes: it needs the tab alone', async () => {
    const w = world();
    const first = w.call('A', 'page.ask', { prompt: 'first', newChat: true });
    await tick();
    const second = w.call('B', 'page.ask', { prompt: 'second', newChat: true });
    await tick();
    w.navigated();
    w.answerWritten();
    await Promise.all([first, second]);
    expect(w.sent).toEqual([`first → ${Y}`, `second → ${Y}`]);
  });

  it('a wait given up by its deadline says so as a timeout, not a cancel, and changes nothing', async () => {
    const { ModeTurn } = await import('../../lib/worker/calls/mode-turn');
    const turn = new ModeTurn();
    let done!: () => void;
    const held = turn.run(new AbortController().signal, () => {}, () => new Promise<void>((r) => (done = r)));
    const ran: string[] = [];
    const late = turn.run(AbortSignal.timeout(20), () => {}, async () => void ran.push('switched'));
    await expect(late).rejects.toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/^Another prompt on this tab was still waiting to be sent/) });
    done();
    await held;
    expect(ran).toEqual([]);
  });

  it('a read of the mode is answered at once while another session’s prompt waits in the page', async () => {
    const w = world();
    const asking = w.call('A', 'page.ask', { prompt: 'first' });
    await tick();
    const reading = w.call('R', 'page.mode', {});
    await tick(20);
    expect(w.replies.filter((r) => r.id === 'R')).toEqual([expect.objectContaining({ kind: 'result', result: { mode: 'standard', source: 'chip' } })]);
    expect(w.sent).toEqual(['looked at the mode']);
    w.answerWritten();
    await Promise.all([asking, reading]);
  });

  it('a read that must open the mode menu or type "/" waits for the prompt like a switch, then reads (late review #3)', async () => {
    const w = world(X, true);
    const asking = w.call('A', 'page.ask', { prompt: 'first' });
    await tick();
    const reading = w.call('R', 'page.mode', {});
    await tick(20);
    expect(w.replies.filter((r) => r.id === 'R')).toEqual([
      expect.objectContaining({ kind: 'progress', message: 'Another prompt is being sent in this tab in its own mode; this mode read follows it.' }),
    ]);
    w.answerWritten();
    await Promise.all([asking, reading]);
    expect(w.sent).toEqual(['looked at the mode', `first → ${X}`, 'read the mode through its menu']);
    expect(w.replies.filter((r) => r.id === 'R').at(-1)).toMatchObject({ kind: 'result', result: { mode: 'standard', source: 'chip' } });
  });

  it('a mode switch behind it is told so at once, with more time for its call, and runs once the prompt was sent', async () => {
    const w = world();
    const asking = w.call('A', 'page.ask', { prompt: 'first' });
    await tick();
    const switching = w.call('S', 'page.mode', { mode: 'learn' });
    await tick(20);
    expect(w.replies.filter((r) => r.id === 'S')).toEqual([
      expect.objectContaining({ kind: 'progress', message: 'Another prompt is being sent in this tab in its own mode; this mode switch follows it.', holdMs: 60_000 }),
    ]);
    w.answerWritten();
    await Promise.all([asking, switching]);
    expect(w.replies.filter((r) => r.id === 'S').at(-1)).toMatchObject({ kind: 'result', result: { mode: 'learn' } });
  });
});
