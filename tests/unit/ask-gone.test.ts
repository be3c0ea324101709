import type { Runtime } from 'webextension-polyfill';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { questionKey } from '../../lib/page/answer/question';
import { PAGE_KITS } from '../../lib/protocol/page/page-kits';
import { PageHub } from '../../lib/worker/calls/pages';
import { type CallEvent, Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';
import { FakePort } from '../support/fake-port';

/**
 * A page that took `page.ask` and then went away (a hard navigation after the submit) must never be
 * answered "closed or reloaded during the call. Call again.": the agent would send the prompt twice
 * (review of 2026-12-04, #17). The real PageHub and Router; the page's ports are played by FakePort.
 */
let tabOpen = true;
vi.mock('wxt/browser', () => ({
  browser: { tabs: { get: async (id: number) => (tabOpen ? { id, url: 'https://www.perplexity.ai/search/t-1' } : Promise.reject(new Error('No tab'))) } },
}));

beforeEach(() => {
  tabOpen = true;
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

/** Loads any on-demand kit a call needs (the ask kit for page.ask) as the browser would. */
const kitName = (file: string) => Object.entries(PAGE_KITS).find(([, k]) => k.file === file)?.[0];
const inject = async (_target: unknown, file: string) => ({ kit: kitName(file), status: 'registered' });

function world() {
  const hub = new PageHub(() => {}, inject);
  const connect = () => {
    const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 5 } } });
    hub.accept(port as unknown as Runtime.Port);
    port.deliver({ kind: 'event', event: 'page.ready', data: { url: 'https://www.perplexity.ai/', title: 'Perplexity' } });
    return port;
  };
  const first = connect();
  const events: CallEvent[] = [];
  const router = new Router({ tabs: { pageTab: async () => 5 } as unknown as TabService, pages: hub, status: async () => ({}), onCall: (e) => events.push(e) });
  const replies: Envelope[] = [];
  const ask: Request = { kind: 'request', id: 'a1', method: 'page.ask', params: { prompt: 'What changed in Rust 2024?' } };
  const done = router.handle(ask, (m) => replies.push(m));
  return { first, connect, done, replies, events };
}

/** The page that follows answers page.poll with `questionText` as its last question. */
async function nextPageShows(next: FakePort, questionText: string) {
  await until(() => next.sent.some((m) => (m as { method?: string }).method === 'page.poll'));
  const poll = next.sent.find((m) => (m as { method?: string }).method === 'page.poll') as { id: string };
  next.deliver({ kind: 'result', id: poll.id, result: { questionText, url: 'https://www.perplexity.ai/search/what-changed-AbC', lastTurnIndex: 0 } });
}

describe('a page that went away holding page.ask (#17)', () => {
  it('#17: the page that follows shows the prompt: "taken", read its answer, never "call again"', async () => {
    const { first, connect, done, replies, events } = world();
    await until(() => first.sent.length > 0);
    first.drop(); // the submit's hard navigation
    await nextPageShows(connect(), 'What changed in Rust 2024?');
    await done;
    const [reply] = replies as { kind: string; error: { code: string; message: string; data?: { taken?: unknown } } }[];
    expect(reply?.kind).toBe('error');
    expect(reply?.error.message).toMatch(/^The prompt was taken: .*Do not send it again: read its answer with comet_wait/);
    expect(reply?.error.message).not.toMatch(/Call again/i);
    // The comet_wait it asks for follows that turn, not the session's previous ask (review 2026-12-05, worker #1).
    expect(reply?.error.data?.taken).toEqual({
      turnIndex: 0,
      conversationUrl: 'https://www.perplexity.ai/search/what-changed-AbC',
      questionKey: questionKey('What changed in Rust 2024?'),
      askedAt: expect.any(Number),
    });
    // The side panel hears it too: its Threads card keeps the prompt the page took (review 15f, F9).
    expect(events.at(-1)).toMatchObject({ phase: 'end', ok: false, data: { taken: reply?.error.data?.taken } });
  });

  it('#17: the page that follows shows another question, or the tab closed: "may have taken it", check before asking again', async () => {
    const other = world();
    await until(() => other.first.sent.length > 0);
    other.first.drop();
    await nextPageShows(other.connect(), 'An older question');
    await other.done;
    const closed = world();
    await until(() => closed.first.sent.length > 0);
    tabOpen = false;
    closed.first.drop();
    await closed.done;
    for (const { replies } of [other, closed]) {
      const message = (replies[0] as { error: { message: string } }).error.message;
      expect(message).toMatch(/may have taken it: do not send it again yet\. Call comet_poll/);
      expect(message).not.toMatch(/Call again/i);
    }
  });

  it('other calls of a page that went away still say to call again (nothing was sent)', async () => {
    const hub = new PageHub(() => {});
    const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 5 } } });
    hub.accept(port as unknown as Runtime.Port);
    const poll = hub.request(5, 'page.poll', {}, new AbortController().signal, () => {});
    port.drop();
    await expect(poll).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringContaining('Call again') });
  });
});
