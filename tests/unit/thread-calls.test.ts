import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { SubmittedTurn } from '../../lib/protocol/threads/threads';
import { PERPLEXITY_HOME } from '../../lib/protocol/urls';
import { fakeThreadCalls, type PageScript } from '../support/fake-tabs';

/**
 * The worker's routing of thread calls to tabs, with fake tabs and a scripted page per method: what
 * it opens, keeps and closes when a page call fails.
 */
const signal = new AbortController().signal;
const START = { message: 'Plan the offsite', attachments: [], settings: {}, tabCap: 6 };
/** The mode kit's answer to the worker's switch to Computer before a start. */
const SWITCHED = { mode: 'computer', source: 'switched', previous: 'standard', changed: true, verified: true };

describe('a task that was submitted keeps its tab', () => {
  it('the page sent the prompt but no thread URL came: the tab stays ours, and the error says not to send it again', async () => {
    const { calls, tabs, threadTabs } = fakeThreadCalls(async (_tab, method) => {
      if (method === 'page.mode') return SWITCHED;
      if (method === 'threads.start') throw new RelayError('AGENT_ERROR', 'the prompt was sent but Perplexity did not open a thread within 20 s (the tab shows https://www.perplexity.ai/)');
      if (method === 'threads.submitted') return { submitted: true, url: 'https://www.perplexity.ai/' };
      throw new Error(`unexpected ${method}`);
    });
    const error = await calls.call('threads.start', START, signal, () => {}).catch((e: RelayError) => e);
    expect(error).toMatchObject({ code: 'AGENT_ERROR' });
    expect((error as RelayError).message).toMatch(/was submitted.*do not send it again/is);
    // The side panel drops the card of a failed start: the agent is not sent there (review 15a, F2).
    expect((error as RelayError).message).not.toMatch(/side panel/);
    expect(tabs.map((t) => t.id)).toEqual([100]);
    expect(threadTabs.isOwned(100)).toBe(true);
  });

  it('the tab already shows the new task when the page call fails: the start answers with its thread_id, the tab bound to it, and says what failed (review 15a, F2)', async () => {
    const THREAD = 'plan-my-week-AbCdEfGhIjKlMnOpQrStUv';
    const address = `https://www.perplexity.ai/computer/tasks/${THREAD}`;
    const startIn = (cause: RelayError) => {
      const world = fakeThreadCalls(async (tabId, method) => {
        if (method === 'page.mode') return SWITCHED;
        if (method === 'threads.start') {
          // The prompt went out and the page moved to the task's address; then the page's call failed.
          const tab = world.tabs.find((t) => t.id === tabId);
          if (tab) tab.url = address;
          throw cause;
        }
        throw new Error(`unexpected ${method}`);
      });
      return world;
    };
    const reloaded = startIn(new RelayError('AGENT_ERROR', 'The Perplexity page in this tab was closed or reloaded during the call.'));
    const result = await reloaded.calls.call('threads.start', START, signal, () => {});
    expect(result).toEqual({ threadId: THREAD, url: address, turn: 0, note: expect.stringMatching(/started thread_id "plan-my-week-\w+".*closed or reloaded during the call.*do not send the prompt again/) });
    // What the Node side reads of it keeps the note.
    expect(SubmittedTurn.parse(result)).toEqual(result);
    expect(reloaded.threadTabs.ownedTabs()).toEqual([expect.objectContaining({ tabId: 100, threadId: THREAD })]);
    // A caller gone has nobody to tell, but the tab is the task's all the same.
    const cancelled = startIn(new RelayError('CANCELLED', 'The call was cancelled.'));
    await expect(cancelled.calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(cancelled.threadTabs.ownedTabs()).toEqual([expect.objectContaining({ tabId: 100, threadId: THREAD })]);
    // `/search/new` asks a new question: it names no thread, so no thread_id "new" is handed out (review 15d, N2).
    const unnamed = fakeThreadCalls(async (tabId, method) => {
      if (method === 'page.mode') return SWITCHED;
      const tab = unnamed.tabs.find((t) => t.id === tabId);
      if (tab) tab.url = 'https://www.perplexity.ai/search/new?q=Plan%20my%20week';
      throw new RelayError('AGENT_ERROR', 'The Perplexity page in this tab was closed or reloaded during the call.');
    });
    await expect(unnamed.calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'AGENT_ERROR' });
    expect(unnamed.threadTabs.ownedTabs().map((t) => t.threadId)).not.toContain('new');
  });

  it('the page could not say (the call was cut off mid-submit): the tab stays too', async () => {
    const { calls, tabs } = fakeThreadCalls(async (_tab, method) => {
      if (method === 'page.mode') return SWITCHED;
      if (method === 'threads.start') throw new RelayError('TIMEOUT', 'threads.start took longer than 90 s');
      throw new RelayError('TIMEOUT', 'the page does not answer');
    });
    await expect(calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'AGENT_ERROR' });
    expect(tabs.map((t) => t.id)).toEqual([100]);
  });

  it('the new tab is put in Computer mode through the mode kit before the prompt, and a tab that cannot be is closed, nothing sent', async () => {
    const asked: string[] = [];
    const ok = fakeThreadCalls(async (_tab, method) => {
      asked.push(method);
      if (method === 'page.mode') return SWITCHED;
      if (method === 'threads.start') return { threadId: 't-new', url: 'https://www.perplexity.ai/computer/tasks/t-new', turn: 0 };
      throw new Error(`unexpected ${method}`);
    });
    await ok.calls.call('threads.start', START, signal, () => {});
    expect(asked).toEqual(['page.mode', 'threads.start']);
    const failing = fakeThreadCalls(async (_tab, method) => {
      if (method === 'page.mode') throw new RelayError('SELECTOR_MISS', 'computerToggle: none of … matched');
      throw new Error(`unexpected ${method}`);
    });
    await expect(failing.calls.call('threads.start', START, signal, () => {})).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    expect(failing.tabs).toEqual([]);
  });

  it("the person's policy is asked again once the new tab is ready, just before the prompt: refused there, nothing sent and the tab closed (review 10, router F4)", async () => {
    const asked: string[] = [];
    const { calls, tabs } = fakeThreadCalls(async (_tab, method) => {
      asked.push(method);
      if (method === 'page.mode') return SWITCHED;
      throw new Error(`unexpected ${method}`);
    });
    const readOnlyNow = async () => {
      throw new RelayError('PERMISSION_DENIED', 'Read-only is on in the comet-relay side panel.');
    };
    await expect(calls.call('threads.start', START, signal, () => {}, undefined, false, readOnlyNow)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(asked).toEqual(['page.mode']);
    expect(tabs).toEqual([]);
  });

  it('refused before anything was submitted: the tab is closed and the page error stands', async () => {
    const { calls, tabs } = fakeThreadCalls(async (_tab, method) => {
      if (method === 'page.mode') return SWITCHED;
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
    const { calls } = fakeThreadCalls(async (_tab, method, params) => (method === 'threads.state' ? checkpointOf(String(params.threadId)) : undefined), {
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

describe('a call is bound to the thread it asked for', () => {
  it('a page that answers with another thread\'s reading fails the call naming both, and returns nothing of the other', async () => {
    const { calls } = fakeThreadCalls(async (_tab, method) => (method === 'threads.state' ? checkpointOf('t-other') : undefined), {
      initial: [{ id: 7, url: TASK('t-1') }],
    });
    const error = (await calls.call('threads.state', { threadId: 't-1', tabCap: 6 }, signal, () => {}).catch((e: RelayError) => e)) as RelayError;
    expect(error).toMatchObject({ code: 'TAB_NOT_FOUND' });
    expect(error.message).toContain('"t-1"');
    expect(error.message).toContain('"t-other"');
  });
});

describe('which tab an acting call takes', () => {
  const respond = { threadId: 't-1', followupUuid: 'F-1', reply: { kind: 'approve', reason: '' }, tabCap: 6 };
  const answering = async (_tab: number, method: string) => (method === 'threads.respond' ? { threadId: 't-1', url: TASK('t-1'), turn: 0 } : { found: true });

  it("an agent's answer never goes into the person's tab that shows the thread: a tab of ours does it", async () => {
    const { calls, tabs, requests } = fakeThreadCalls(answering, { initial: [{ id: 7, url: TASK('t-1') }] });
    await calls.call('threads.respond', respond, signal, () => {});
    expect(tabs.map((t) => t.id)).toEqual([7, 100]);
    expect(requests.find((r) => r.method === 'threads.respond')?.tabId).toBe(100);
  });

  it('the person answering from the side panel uses their own tab that shows the thread, opening none', async () => {
    const { calls, tabs, requests } = fakeThreadCalls(answering, { initial: [{ id: 7, url: TASK('t-1') }] });
    await calls.call('threads.respond', respond, signal, () => {}, undefined, true);
    expect(tabs.map((t) => t.id)).toEqual([7]);
    expect(requests).toEqual([{ tabId: 7, method: 'threads.respond' }]);
  });
});

describe('a cancelled call stops waiting for the tab', () => {
  it('whenReady gets the caller\'s signal: a cancel ends the call at once, not after 20 s', async () => {
    const { calls } = fakeThreadCalls(async () => undefined, {
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

/** A thread body in the shape the built-in JSON reader reads (our own words): one finished answer, one file. */
function threadBody(id: string) {
  return {
    thread_metadata: { title: `Thread ${id}`, uuid: id, slug: `slug-${id}`, mode: 'ASI' },
    entries: [
      {
        uuid: `e-${id}`,
        query_str: 'plan the offsite',
        status: 'COMPLETED',
        search_mode: 'ASI',
        blocks: [
          {
            intended_usage: 'workflow_root',
            workflow_block: {
              status: 'WORKFLOW_COMPLETED',
              steps: [{ title: '', items: [{ type: 'WORKFLOW_ITEM_TEXT', payload: { text_payload: { variant: 'answer', text: `The plan of ${id}` } } }] }],
            },
          },
        ],
      },
    ],
  };
}

describe('reads without a tab', () => {
  const PERSON = { id: 1, url: 'https://www.perplexity.ai/' };
  const fetchingPage = (bodyOf: (path: string) => { status: number; body: string }): PageScript => async (_tab, method, params) => {
    if (method === 'threads.fetch') return { ...bodyOf(String(params.path)), path: String(params.path) };
    if (method === 'threads.read' || method === 'threads.assets') return { reading: { ...checkpointOf('x').reading, threadId: String(params.threadId) } };
    throw new Error(`unexpected ${method} in tab ${_tab}`);
  };
  const idOf = (path: string) => decodeURIComponent(path.split('/').at(-1) ?? '');

  it('read_thread on 20 threads with one Perplexity tab open opens no tab: each reads its JSON through that tab', async () => {
    const { calls, tabs, requests } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) })), {
      initial: [PERSON],
      connected: () => [1],
    });
    const ids = Array.from({ length: 20 }, (_, i) => `t-${i}`);
    // Each call its own signal, as each relayed call has: 20 waits on one shared signal is not what runs (and warns of a listener leak).
    const read = await Promise.all(
      ids.map(
        (threadId) =>
          calls.call('threads.read', { threadId, tabCap: 6 }, new AbortController().signal, () => {}) as Promise<{ threadId: string; text: string; webStateError?: string }>,
      ),
    );
    expect(tabs).toEqual([PERSON]);
    expect(requests.every((r) => r.tabId === 1 && r.method === 'threads.fetch')).toBe(true);
    expect(read.map((r) => r.threadId)).toEqual(ids);
    expect(read[7]?.text).toContain('The plan of t-7');
    expect(read.some((r) => r.webStateError)).toBe(false);
  });

  it('list_thread_assets and create_asset_download read the JSON through that tab too; models_list and projects_list already did', async () => {
    const withFile = (id: string) => {
      const b = threadBody(id);
      ((b.entries[0]?.blocks ?? []) as unknown[]).push({
        intended_usage: 'assets_answer_mode',
        assets_mode_block: { assets: [{ uuid: 'a-1', download_info: [{ filename: 'plan.md', url: 'https://pplx-res.cloudinary.com/plan.md?sig=1', expires_at: 4_000_000_000 }] }] },
      });
      return b;
    };
    const { calls, tabs } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(path.startsWith('/rest/thread/') ? withFile(idOf(path)) : { models: [] }) })), {
      initial: [PERSON],
      connected: () => [1],
    });
    const listed = (await calls.call('threads.assets', { threadId: 't-1', tabCap: 6 }, signal, () => {})) as { assets: { asset_id: string }[] };
    expect(listed.assets.map((a) => a.asset_id)).toEqual(['a-1']);
    const download = await calls.call('threads.assetDownload', { threadId: 't-1', assetId: 'a-1', tabCap: 6 }, signal, () => {});
    expect(download).toMatchObject({ asset_id: 'a-1', url: 'https://pplx-res.cloudinary.com/plan.md?sig=1' });
    await calls.call('account.models', { tabCap: 6 }, signal, () => {}).catch(() => undefined);
    await calls.call('account.projects', { tabCap: 6 }, signal, () => {}).catch(() => undefined);
    expect(tabs).toEqual([PERSON]);
  });

  it('choosing where to read asks the browser for no tab list: the pages say what they show', async () => {
    const { calls, browserCalls } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) })), {
      initial: [PERSON],
      connected: () => [1],
    });
    for (let i = 0; i < 5; i++) await calls.call('threads.read', { threadId: `t-${i}`, tabCap: 6 }, signal, () => {});
    expect(browserCalls.query).toBe(0);
  });

  it('a tab that shows the thread but was discarded is left asleep: the JSON through the open tab answers', async () => {
    const reloaded: number[] = [];
    const { calls, requests } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) })), {
      initial: [PERSON, { id: 7, url: TASK('t-1'), discarded: true }],
      connected: () => [1],
      reload: async (tabId) => {
        reloaded.push(tabId);
      },
    });
    const read = (await calls.call('threads.read', { threadId: 't-1', tabCap: 6 }, signal, () => {})) as { text: string };
    expect(read.text).toContain('The plan of t-1');
    expect(reloaded).toEqual([]);
    expect(requests.map((r) => r.tabId)).toEqual([1]);
  });

  it('a live page that shows the thread reads it there (it knows the page too)', async () => {
    const { calls, requests } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) })), {
      initial: [PERSON, { id: 7, url: TASK('t-1') }],
      connected: () => [1, 7],
    });
    await calls.call('threads.read', { threadId: 't-1', tabCap: 6 }, signal, () => {});
    expect(requests).toEqual([{ tabId: 7, method: 'threads.read' }]);
  });

  it('with no Perplexity tab open, 20 reads open one background tab at home between them, not one each', async () => {
    const connected: number[] = [];
    const { calls, tabs } = fakeThreadCalls(fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) })), {
      connected: () => connected,
      whenReady: async (tabId) => {
        if (!connected.includes(tabId)) connected.push(tabId);
      },
    });
    // Each call its own signal, as each relayed call has.
    await Promise.all(Array.from({ length: 20 }, (_, i) => calls.call('threads.read', { threadId: `t-${i}`, tabCap: 6 }, new AbortController().signal, () => {})));
    expect(tabs.map((t) => t.url)).toEqual(['https://www.perplexity.ai/']);
  });

  it('when the JSON cannot answer (the reader drifted), the thread\'s tab reads it, and web_state says why', async () => {
    const withLocate = fakeThreadCalls(async (tabId, method, params) => {
      if (method === 'threads.locate') return { found: true };
      return fetchingPage(() => ({ status: 200, body: JSON.stringify({ items: [] }) }))(tabId, method, params);
    }, { initial: [PERSON], connected: () => [1] });
    const read = (await withLocate.calls.call('threads.read', { threadId: 't-1', tabCap: 6 }, signal, () => {})) as { webStateError?: string };
    expect(withLocate.tabs.map((t) => t.url)).toEqual([PERSON.url, TASK('t-1')]);
    expect(read.webStateError).toMatch(/Read from the page instead.*no list of entries at entries/);
  });

  it('an id the task page does not know, with the recent threads unreadable (rate-limited): said so, never "no such thread" (day-2 review M4)', async () => {
    const { calls } = fakeThreadCalls(async (tabId, method, params) => {
      if (method === 'threads.locate') return { found: false };
      if (method === 'threads.fetch' && String(params.path).includes('list_recent')) return { status: 200, body: '', path: String(params.path) };
      return fetchingPage(() => ({ status: 200, body: JSON.stringify({ items: [] }) }))(tabId, method, params);
    }, { initial: [PERSON], connected: () => [1] });
    const error = await calls.call('threads.send', { threadId: 'some-slug-Ab1', message: 'x', attachments: [], settings: {}, tabCap: 6 }, signal, () => {}).catch((e: RelayError) => e);
    expect(error).toMatchObject({ code: 'AGENT_ERROR', message: expect.stringMatching(/recent threads that would say which thread it is could not be read .*Try again in a minute/) });
  });

  it("an acting call that has its thread's turn asks the person's policy again first: refused there, it reaches no page (review 8, many clients M2)", async () => {
    const { calls, requests } = fakeThreadCalls(async (tabId, method, params) => {
      // Its tab is found first (and may have to load): the policy's last word comes after, right before the act.
      if (method === 'threads.locate') return { found: true };
      if (method === 'threads.send') return { threadId: params.threadId, turn: 1 };
      return fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) }))(tabId, method, params);
    }, { initial: [PERSON], connected: () => [1] });
    const readOnly = async () => {
      throw new RelayError('PERMISSION_DENIED', 'comet-relay is read-only now.');
    };
    const refused = await calls.call('threads.send', { threadId: 't-1', message: 'more', attachments: [], settings: {}, tabCap: 6 }, signal, () => {}, undefined, false, readOnly).catch((e: RelayError) => e);
    expect(refused).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(requests.filter((r) => r.method === 'threads.send')).toEqual([]);
    // A read is no act: it is not asked.
    await calls.call('threads.read', { threadId: 't-1', tabCap: 6 }, signal, () => {}, undefined, false, readOnly);
  });

  it('a tab that already shows the thread answers the read, as before; acting calls still get a tab of ours', async () => {
    const { calls, tabs, requests } = fakeThreadCalls(async (tabId, method, params) => {
      if (method === 'threads.locate') return { found: true };
      if (method === 'threads.send') return { threadId: params.threadId, turn: 1 };
      return fetchingPage((path) => ({ status: 200, body: JSON.stringify(threadBody(idOf(path))) }))(tabId, method, params);
    }, { initial: [PERSON, { id: 2, url: TASK('t-shown') }], connected: () => [1, 2] });
    await calls.call('threads.read', { threadId: 't-shown', tabCap: 6 }, signal, () => {});
    expect(requests.at(-1)).toEqual({ tabId: 2, method: 'threads.read' });
    await calls.call('threads.send', { threadId: 't-1', message: 'and the budget?', attachments: [], settings: {}, tabCap: 6 }, signal, () => {});
    expect(tabs.map((t) => t.url)).toEqual([PERSON.url, TASK('t-shown'), TASK('t-1')]);
    expect(requests.at(-1)).toEqual({ tabId: 100, method: 'threads.send' });
  });
});

describe('a thread tab is its call\'s until the call is done (review 15a, F1)', () => {
  /** A promise the test lets go of. */
  function gate() {
    let open = () => {};
    const shut = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { shut, open };
  }
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 1));
    expect(done()).toBe(true);
  };
  const CAPPED = { ...START, tabCap: 1 };
  const BUSY = /All 1 thread tabs are busy \(COMET_THREAD_TABS is 1\); wait for a call to finish, or raise COMET_THREAD_TABS/;
  const page: PageScript = async (_tab, method) => {
    if (method === 'page.mode') return SWITCHED;
    if (method === 'threads.start') return { threadId: 't-new', url: TASK('t-new'), turn: 0 };
    if (method === 'threads.locate') return { found: true };
    if (method === 'threads.state') return checkpointOf('t-1');
    throw new Error(`unexpected ${method}`);
  };

  it('a start at the cap leaves the tab another start is still loading open, and is told every tab is busy', async () => {
    const ready = gate();
    const { calls, tabs } = fakeThreadCalls(page, { whenReady: (tabId) => (tabId === 100 ? ready.shut : Promise.resolve()) });
    const first = calls.call('threads.start', CAPPED, signal, () => {});
    await until(() => tabs.length === 1);
    await expect(calls.call('threads.start', CAPPED, signal, () => {})).rejects.toThrow(BUSY);
    expect(tabs.map((t) => t.id)).toEqual([100]);
    ready.open();
    await expect(first).resolves.toMatchObject({ threadId: 't-new' });
  });

  it('so does one between its mode switch and its submit (the person\'s policy asked again)', async () => {
    const policy = gate();
    const { calls, tabs, requests } = fakeThreadCalls(page);
    const first = calls.call('threads.start', CAPPED, signal, () => {}, undefined, false, () => policy.shut);
    await until(() => requests.some((r) => r.method === 'page.mode'));
    await expect(calls.call('threads.start', CAPPED, signal, () => {})).rejects.toThrow(BUSY);
    expect(tabs.map((t) => t.id)).toEqual([100]);
    policy.open();
    await expect(first).resolves.toMatchObject({ threadId: 't-new' });
  });

  it('a read holds the tab it opens for the thread, and one of ours it finds, while the page loads', async () => {
    let ready = gate();
    let loads = 0;
    const whenReady = async (tabId: number) => {
      loads += 1;
      if (tabId === 100) await ready.shut;
    };
    const { calls, tabs } = fakeThreadCalls(page, { whenReady });
    const state = { threadId: 't-1', tabCap: 1 };
    const opening = calls.call('threads.state', state, signal, () => {});
    await until(() => tabs.length === 1);
    await expect(calls.call('threads.start', CAPPED, signal, () => {})).rejects.toThrow(BUSY);
    ready.open();
    await opening;
    // Tab 100 is ours and shows t-1: the next read finds it, and holds it while it loads again.
    ready = gate();
    const finding = calls.call('threads.state', state, signal, () => {});
    await until(() => loads === 2);
    await expect(calls.call('threads.start', CAPPED, signal, () => {})).rejects.toThrow(BUSY);
    expect(tabs.map((t) => t.id)).toEqual([100]);
    ready.open();
    await finding;
  });

  it('no failed or cancelled call keeps a tab held: the cap can close every tab they left open', async () => {
    const controller = new AbortController();
    const notReady = new Set<number>();
    const { calls, tabs, threadTabs } = fakeThreadCalls(
      async (tabId, method, _params, s) => {
        if (method === 'page.mode') return SWITCHED;
        if (method === 'threads.start') {
          // The second start's tab (103) already shows its task when the page's call fails.
          const tab = tabs.find((t) => t.id === tabId);
          if (tab && tabId === 103) tab.url = TASK('t-started');
          throw new RelayError('TIMEOUT', 'threads.start took longer than 90 s');
        }
        if (method === 'threads.submitted') return { submitted: true, url: PERPLEXITY_HOME };
        if (method === 'threads.locate') return { found: true };
        if (method === 'threads.state' || method === 'threads.fetch') throw new RelayError('AGENT_ERROR', 'the page failed');
        if (method === 'threads.wait') {
          return new Promise((_resolve, reject) => s?.addEventListener('abort', () => reject(new RelayError('CANCELLED', 'The call was cancelled.')), { once: true }));
        }
        throw new Error(`unexpected ${method}`);
      },
      {
        whenReady: async (tabId) => {
          if (notReady.has(tabId)) throw new RelayError('NO_PERPLEXITY_TAB', 'the tab did not load its comet-relay script');
        },
      },
    );
    const failed = (call: Promise<unknown>) => call.then(() => 'resolved', (e: RelayError) => e.code);
    // 100: a start submitted with no thread address; kept.
    expect(await failed(calls.call('threads.start', START, signal, () => {}))).toBe('AGENT_ERROR');
    // 101: a read that fails in the page; kept.
    expect(await failed(calls.call('threads.state', { threadId: 't-1', tabCap: 6 }, signal, () => {}))).toBe('AGENT_ERROR');
    // 101 again: an act that found it, then refused by the person's policy asked again.
    let asks = 0;
    const refuseSecond = async () => {
      asks += 1;
      if (asks === 2) throw new RelayError('PERMISSION_DENIED', 'Read-only is on in the comet-relay side panel.');
    };
    expect(await failed(calls.call('threads.send', { threadId: 't-1', message: 'more', tabCap: 6 }, signal, () => {}, undefined, false, refuseSecond))).toBe('PERMISSION_DENIED');
    // 102: a wait cancelled by its caller; kept.
    const waiting = failed(calls.call('threads.wait', { threadId: 't-2', tabCap: 6 }, controller.signal, () => {}));
    await until(() => tabs.some((t) => t.id === 102));
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await waiting).toBe('CANCELLED');
    // 103: a start whose page call failed once its task had an address; kept, bound to the task.
    expect(await failed(calls.call('threads.start', START, signal, () => {}))).toBe('resolved');
    // 101 found again, but its page does not load.
    notReady.add(101);
    expect(await failed(calls.call('threads.state', { threadId: 't-1', tabCap: 6 }, signal, () => {}))).toBe('NO_PERPLEXITY_TAB');
    // 104: the tab at home a read by JSON opened, whose fetch failed.
    expect(await failed(calls.call('account.models', { tabCap: 6 }, signal, () => {}))).toBe('AGENT_ERROR');
    expect(tabs.map((t) => t.id)).toEqual([100, 101, 102, 103, 104]);
    const last = await threadTabs.open(PERPLEXITY_HOME, 1);
    expect(tabs.map((t) => t.id)).toEqual([last.tabId]);
  });
});
