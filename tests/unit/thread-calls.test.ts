import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { ThreadCalls, type ThreadCallDeps } from '../../lib/worker/thread-calls';
import { type TabLike, ThreadTabs } from '../../lib/worker/thread-tabs';

/**
 * The worker's routing of thread calls to tabs, with fake tabs and a scripted page per method: what
 * it opens, keeps and closes when a page call fails.
 */
type PageScript = (tabId: number, method: string, params: Record<string, unknown>) => Promise<unknown>;

function world(page: PageScript, options: { initial?: TabLike[]; connected?: () => number[]; whenReady?: ThreadCallDeps['pages']['whenReady']; reload?: ThreadCallDeps['reload'] } = {}) {
  const tabs: TabLike[] = [...(options.initial ?? [])];
  let next = 100;
  const threadTabs = new ThreadTabs({
    query: async () => tabs.map((t) => ({ ...t })),
    get: async (id) => tabs.find((t) => t.id === id),
    create: async (url) => {
      const tab = { id: next++, url };
      tabs.push(tab);
      return tab;
    },
    remove: async (id) => {
      const i = tabs.findIndex((t) => t.id === id);
      if (i >= 0) tabs.splice(i, 1);
    },
    load: async () => undefined,
    save: async () => {},
  });
  const requests: { tabId: number; method: string }[] = [];
  const calls = new ThreadCalls({
    tabs: threadTabs,
    pages: {
      whenReady: options.whenReady ?? (async () => {}),
      state: (tabId) => ({ url: tabs.find((t) => t.id === tabId)?.url ?? '' }),
      request: async (tabId, method, params) => {
        requests.push({ tabId, method });
        return page(tabId, method, params as Record<string, unknown>);
      },
    },
    navigate: async () => {},
    connectedTabs: options.connected ?? (() => []),
    ...(options.reload ? { reload: options.reload } : {}),
  });
  return { calls, tabs, threadTabs, requests };
}

const signal = new AbortController().signal;
const START = { message: 'Plan the offsite', attachments: [], settings: {}, tabCap: 6 };

describe('a task that was submitted keeps its tab', () => {
  it('the page sent the prompt but no thread URL came: the tab stays ours, and the error says not to send it again', async () => {
    const { calls, tabs, threadTabs } = world(async (_tab, method) => {
      if (method === 'threads.start') throw new RelayError('AGENT_ERROR', 'the prompt was sent but Perplexity did not open a thread within 20 s (the tab shows https://www.perplexity.ai/)');
      if (method === 'threads.submitted') return { submitted: true, url: 'https://www.perplexity.ai/' };
      throw new Error(`unexpected ${method}`);
    });
    const error = await calls.call('threads.start', START, signal, () => {}).catch((e: RelayError) => e);
    expect(error).toMatchObject({ code: 'AGENT_ERROR' });
    expect((error as RelayError).message).toMatch(/was submitted.*do not send it again/is);
    expect(tabs.map((t) => t.id)).toEqual([100]);
    expect(threadTabs.isOwned(100)).toBe(true);
  });

  it('the page could not say (the call was cut off mid-submit): the tab stays too', async () => {
    const { calls, tabs } = world(async (_tab, method) => {
      if (method === 'threads.start') throw new RelayError('TIMEOUT', 'threads.start took longer than 90 s');
      throw new RelayError('TIMEOUT', 'the page does not answer');
    });
    await expect(calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'AGENT_ERROR' });
    expect(tabs.map((t) => t.id)).toEqual([100]);
  });

  it('refused before anything was submitted: the tab is closed and the page error stands', async () => {
    const { calls, tabs } = world(async (_tab, method) => {
      if (method === 'threads.start') throw new RelayError('SELECTOR_MISS', 'composer: none of … matched');
      if (method === 'threads.submitted') return { submitted: false, url: 'https://www.perplexity.ai/' };
      throw new Error(`unexpected ${method}`);
    });
    await expect(calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    expect(tabs).toEqual([]);
  });
});

const TASK = (id: string) => `https://www.perplexity.ai/computer/tasks/${id}`;
const checkpointOf = (threadId: string) => ({
  reading: { source: 'page', threadId, url: TASK(threadId), turnCount: 1, turns: [] },
  turn: { index: 0, query: '', event: 'complete', entryStatus: 'COMPLETED', answer: 'Done', steps: [], sources: [], files: [], interactions: [], optionalAuth: [] },
});

describe('a thread tab Chromium discarded or froze', () => {
  it('is reloaded, not waited on until "Reload the tab"', async () => {
    const reloaded: number[] = [];
    const { calls } = world(async (_tab, method, params) => (method === 'threads.state' ? checkpointOf(String(params.threadId)) : undefined), {
      initial: [{ id: 7, url: TASK('t-1'), discarded: true }],
      // The discarded tab's script never says ready until the tab is loaded again.
      whenReady: async (tabId) => {
        if (!reloaded.includes(tabId)) throw new RelayError('NO_PERPLEXITY_TAB', `The Perplexity page in tab ${tabId} did not load its comet-relay script within 20000 ms. Reload the tab.`);
      },
      reload: async (tabId) => {
        reloaded.push(tabId);
      },
    });
    const result = (await calls.call('threads.state', { threadId: 't-1', tabCap: 6 }, signal, () => {})) as { threadId: string; event: string };
    expect(reloaded).toEqual([7]);
    expect(result).toMatchObject({ threadId: 't-1', event: 'complete' });
  });
});

describe('a cancelled call stops waiting for the tab', () => {
  it('whenReady gets the caller\'s signal: a cancel ends the call at once, not after 20 s', async () => {
    const { calls } = world(async () => undefined, {
      initial: [{ id: 7, url: TASK('t-1') }],
      whenReady: (_tabId, _ms, s) =>
        new Promise<void>((_resolve, reject) => {
          s?.addEventListener('abort', () => reject(new RelayError('CANCELLED', 'The call was cancelled.')), { once: true });
          setTimeout(() => reject(new RelayError('NO_PERPLEXITY_TAB', 'timed out after 20 s')), 2000);
        }),
    });
    const controller = new AbortController();
    const started = Date.now();
    const call = calls.call('threads.state', { threadId: 't-1', tabCap: 6 }, controller.signal, () => {});
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
