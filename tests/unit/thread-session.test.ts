// @vitest-environment happy-dom
import { givenReaders } from '../support/given-readers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { type HandlerContext, lazyDriver } from '../../lib/page/handlers';
import { threadHandlers } from '../../lib/page/threads/thread-handlers';
import type { ThreadReading } from '../../lib/page/checkpoints/thread-model';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { ReaderShelf, THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../../lib/selectors/reader-shelf';
import { readInteractions } from '../../lib/page/checkpoints/interactions';
import { readerApplier } from '../../lib/page/packs';
import { threadReaders } from '../../lib/page/checkpoints/thread-readers';
import { generationB } from '../../lib/selectors';
import { movedJson, movedShapeReader } from '../sim/json/thread-json';
import { assetsOf, downloadFrom } from '../../lib/worker/threads/thread-results';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { waitForCheckpoint } from '../../lib/page/threads/thread-wait';
import { respondInThread } from '../../lib/page/threads/thread-answers';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadFixture, loadHtml } from '../fixtures/reader/load';

/**
 * How a tab asks the thread JSON (never in a loop: on a change, at most every few seconds per
 * thread, backing off on an empty body) and how a wait ends (checkpoint, timeout, quiet,
 * cancellation) without leaving an observer or a timer behind.
 */
const dir = join(import.meta.dirname, '../fixtures/threads');
let now = 1_000_000;

function setup(name: string, bodies: (() => { status: number; body: string })[]) {
  const html = readFileSync(join(dir, `${name}.html`), 'utf8');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  const saved = (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { body: unknown }).body;
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetch = async (url: string, init: { headers: Record<string, string> }) => {
    requests.push({ url, headers: init.headers });
    const next = bodies.shift() ?? (() => ({ status: 200, body: JSON.stringify(saved) }));
    const { status, body } = next();
    return { status, text: async () => body } as Response;
  };
  Object.defineProperty(window, 'fetch', { value: fetch, configurable: true });
  const driver = createPageDriver(window);
  const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026, now: () => now });
  return { session, driver, requests, saved };
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('asking the thread JSON', () => {
  it('sends the app headers and version, then keeps to one read per interval while the page is unchanged', async () => {
    const { session, requests } = setup('B-computer-complete', []);
    const first = await session.reading();
    expect(first.source).toBe('json');
    expect(requests).toHaveLength(1);
    const url = new URL(requests[0]?.url ?? '');
    expect(url.pathname).toBe(`/rest/thread/${session.threadId}`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ with_schematized_response: 'true', version: '2.18', source: 'default' });
    expect(requests[0]?.headers).toEqual({ 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' });
    now += 500;
    const again = await session.reading();
    expect(again.source).toBe('json'); // the cached reading: the page has not changed since
    expect(requests).toHaveLength(1);
    now += 3000;
    await session.reading();
    expect(requests).toHaveLength(2);
  });

  it('an empty body is "later": the page answers, and the JSON is left alone for the back-off', async () => {
    const { session, requests } = setup('B-computer-question', [() => ({ status: 200, body: '' })]);
    const reading = await session.reading();
    expect(reading.source).toBe('page');
    expect(reading.turns.at(-1)?.event).toBe('ask_user_question');
    expect(session.lastProblem).toMatch(/came back empty/);
    now += 10_000;
    await session.reading();
    expect(requests).toHaveLength(1);
    now += threadJson2026.request.emptyBackoffMs;
    expect((await session.reading()).source).toBe('json');
    expect(requests).toHaveLength(2);
  });

  it('a body with no entries is "later" too: how the endpoint answers after many requests (captures review M3)', async () => {
    const { session, requests } = setup('B-computer-question', [() => ({ status: 200, body: '{"entries":[]}' })]);
    const reading = await session.reading();
    expect(reading.source).toBe('page');
    expect(reading.turns.at(-1)?.event).toBe('ask_user_question');
    expect(session.lastProblem).toMatch(/no entries \(rate-limited/);
    now += 10_000;
    await session.reading();
    expect(requests).toHaveLength(1);
  });

  /** The saved body of a fixture with a `next_cursor` of its own, as a page of a longer list. */
  const withCursor = (name: string, cursor: string) => () => {
    const { body } = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { body: object };
    return { status: 200, body: JSON.stringify({ ...body, next_cursor: cursor }) };
  };

  it('pages after the first ask for 100 entries by cursor; a list longer than the pages read is not the thread (threads review M3)', async () => {
    const pages = Array.from({ length: threadJson2026.request.maxPages }, (_, i) => withCursor('B-computer-complete', `c${i + 1}`));
    const { session, requests } = setup('B-computer-complete', pages);
    const reading = await session.reading();
    // Every page had a next one: the entries read are not the thread's latest, so the page answers.
    expect(reading.source).toBe('page');
    expect(session.lastProblem).toMatch(/more than 10 pages of entries/);
    expect(requests).toHaveLength(threadJson2026.request.maxPages);
    const [first, second] = requests.map((r) => new URL(r.url).searchParams);
    expect([first?.get('limit'), first?.get('cursor')]).toEqual(['10', null]);
    expect([second?.get('limit'), second?.get('cursor')]).toEqual(['100', 'c1']);
  });

  it('a cursor met before ends the list: the pages read are the thread', async () => {
    const again = withCursor('B-computer-complete', 'same');
    const { session, requests } = setup('B-computer-complete', [again, again, again]);
    expect((await session.reading()).source).toBe('json');
    expect(requests).toHaveLength(2);
  });

  it('a page that says more follow but gives no new cursor is not the thread: the page answers, and the problem says why (review 15e, F6)', async () => {
    const more = (cursor: string | null) => () => {
      const { body } = JSON.parse(readFileSync(join(dir, 'B-computer-complete.json'), 'utf8')) as { body: object };
      return { status: 200, body: JSON.stringify({ ...body, has_next_page: true, next_cursor: cursor }) };
    };
    for (const pages of [[more(null)], [more('c1'), more('c1')]]) {
      const asked = pages.length;
      const { session, requests } = setup('B-computer-complete', pages);
      expect((await session.reading()).source).toBe('page');
      expect(session.lastProblem).toMatch(/has more than its cursors reach \(reader thread-json-2026-12\); its latest turns would be missing/);
      expect(requests).toHaveLength(asked);
    }
  });

  it('a broken or moved body falls back to the page and says why', async () => {
    const { session } = setup('A-computer-sleep', [() => ({ status: 200, body: JSON.stringify({ data: { turns: [] } }) })]);
    const reading = await session.reading();
    expect(reading.source).toBe('page');
    expect(reading.turns.at(-1)?.event).toBe('sleep');
    expect(session.lastProblem).toMatch(/no list of entries at entries/);
  });

  it('JSON older than our own answer, or still showing what we answered, does not stand for the thread', async () => {
    const { session } = setup('B-computer-confirm', []);
    const json = await session.reading();
    const id = json.turns.at(-1)?.interactions[0]?.followupUuid ?? '';
    session.acted(id);
    expect(session.usable(json, now - 1)).toBe(false);
    expect(session.usable(json, now + 1)).toBe(false); // still lists the prompt we answered
  });
});

describe('a search turn at work, which its thread JSON knows only as running (NOTES §B)', () => {
  it('the page, which shows its text, answers for it; the JSON alone is never "no steps, no answer" as a fact', async () => {
    const html = readFileSync(join(import.meta.dirname, '../fixtures/pages/B-thread-streaming.html'), 'utf8');
    const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
    loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
    // Its text only: no step rows drawn (a light read of the page has no answer text; the check must read it whole).
    for (const el of document.querySelectorAll('.steps')) el.remove();
    const driver = createPageDriver(window);
    const query = driver.context().doc.querySelector('[data-workflow-entry] .select-text')?.textContent ?? '';
    // The body a running search entry has: PENDING, its tabs and its follow-ups, nothing else.
    const body = {
      entries: [
        {
          uuid: 'e-1',
          query_str: query,
          status: 'PENDING',
          blocks: [
            { intended_usage: 'answer_tabs', answer_tabs_block: { modes: [{ answer_mode_type: 'ANSWER' }], reformulated_queries: [query] } },
            { intended_usage: 'pending_followups', pending_followups_block: { followups: [] } },
          ],
        },
      ],
      has_next_page: false,
      thread_metadata: {},
    };
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => JSON.stringify(body) }) as unknown as Response, configurable: true });
    const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026, now: () => now });
    const reading = await session.reading();
    expect(reading.source).toBe('page');
    expect(reading.turns.at(-1)?.answer.length).toBeGreaterThan(0);
  });
});

describe('a reply by the JSON\'s id to a prompt the page knows by another', () => {
  it('records the id the caller used as answered, so JSON still listing it is not taken as current', async () => {
    const { session, driver, saved } = setup('B-computer-confirm', []);
    // The prompt's id as the saved page and JSON both give it (new with each regeneration of the fixtures).
    const PAGE_ID = document.querySelector('[data-followup-uuid]')?.getAttribute('data-followup-uuid') ?? '';
    expect(JSON.stringify(saved)).toContain(PAGE_ID);
    const jsonBody = JSON.stringify(saved).replaceAll(PAGE_ID, 'J-1');
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => jsonBody }) as Response, configurable: true });
    const box = document.querySelector(`[data-followup-uuid="${PAGE_ID}"]`) as HTMLElement;
    box.setAttribute('data-followup-uuid', 'P-1');
    // The page takes the approval: the box goes away.
    box.querySelector('button[aria-label="Approve"]')?.addEventListener('click', () => box.remove());
    const json = await session.reading();
    expect(json.turns.at(-1)?.interactions.map((i) => i.followupUuid)).toEqual(['J-1']);
    now += 1;
    await respondInThread(driver.context(), session, threadPage2026, { followupUuid: 'J-1', reply: { kind: 'approve', reason: '' } });
    expect(document.querySelector('[data-followup-uuid="P-1"]')).toBeNull();
    now += 1;
    expect(session.usable(json, now)).toBe(false);
  });

  it("still after Perplexity re-summarizes the task under a new slug: the tab's session is the thread's, not the slug's (review 15a, F3)", async () => {
    const ID = 'AbCdEfGhIjKlMnOpQrStUv';
    const task = (slug: string) => `https://www.perplexity.ai/computer/tasks/${slug}-${ID}`;
    loadHtml(readFileSync(join(dir, 'B-computer-confirm.html'), 'utf8'), task('book-a-table'));
    // The thread JSON lags: it still lists the confirmation after the page took the approval.
    const lagging = JSON.stringify((JSON.parse(readFileSync(join(dir, 'B-computer-confirm.json'), 'utf8')) as { body: unknown }).body);
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => lagging }) as Response, configurable: true });
    const driver = createPageDriver(window);
    const handlers = threadHandlers({ win: window, driver: () => driver, catalog: new SelectorCatalog(), readers: givenReaders() });
    const call = (method: string, params: object) =>
      (handlers[method] as (p: never, c: HandlerContext) => Promise<unknown>)(params as never, { signal: new AbortController().signal, progress: () => {} });
    const box = document.querySelector('[data-followup-uuid]') as HTMLElement;
    box.querySelector('button[aria-label="Approve"]')?.addEventListener('click', () => box.remove());
    const threadId = `book-a-table-${ID}`;
    await call('threads.respond', { threadId, followupUuid: box.getAttribute('data-followup-uuid'), reply: { kind: 'approve', reason: '' }, attachments: [] });
    window.history.replaceState(null, '', task('table-booked-for-friday'));
    const state = (await call('threads.state', { threadId })) as { turn: { event: string | null } };
    expect(state.turn.event).not.toBe('confirm_action');
  });
});

describe('threads.wait in the page', () => {
  it('resolves at once on a checkpoint already shown, from the JSON, and releases the observer', async () => {
    const { session, driver } = setup('B-computer-confirm', []);
    const out = await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 5000 });
    expect(out.turn.event).toBe('confirm_action');
    expect(out.reading.source).toBe('json');
    expect(driver.watcher.active).toBe(false);
  });

  it('a running turn: the timeout ends it with no event; cancellation rejects; nothing is left running', async () => {
    const { session, driver } = setup('B-computer-running', []);
    const timedOut = await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 50 });
    expect(timedOut.turn.event).toBeNull();
    expect(driver.watcher.active).toBe(false);

    const controller = new AbortController();
    const waiting = waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 60_000 }, { signal: controller.signal });
    expect(driver.watcher.active).toBe(true);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(driver.watcher.active).toBe(false);

    const quiet = await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 60_000, quietMs: 50 });
    expect(quiet.turn.event).toBeNull();
  });

  it('progress is the caller’s: a wait that says what it heard gets the other steps, another caller all of them (threads review L6)', async () => {
    const { session, driver } = setup('B-computer-running', []);
    const heardBy = async (heard?: string[]) => {
      const steps: string[] = [];
      await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 50, ...(heard ? { heard } : {}) }, { onProgress: (s) => steps.push(s) });
      return steps;
    };
    const first = await heardBy([]);
    expect(first.length).toBeGreaterThan(0);
    // Another session holding the same turn hears every step, though the first already did.
    expect(await heardBy([])).toEqual(first);
    // The first caller's next wait, saying what it heard: nothing again.
    expect(await heardBy(first)).toEqual([]);
    expect(await heardBy(first.slice(1))).toEqual(first.slice(0, 1));
  });

  it('never answers for an earlier turn: a turn not on the page yet is waited for', async () => {
    const { session, driver } = setup('B-computer-complete', []);
    const out = await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', turn: 1, timeoutMs: 50 });
    expect(out.turn).toMatchObject({ index: 1, event: null });
  });
});

describe('a turn the page reader cannot find', () => {
  it('is asked of the thread JSON, not waited on until the timeout', async () => {
    const { session, driver } = setup('B-computer-complete', []);
    // Page drift: the reader finds no turn at all, while the JSON still reads.
    document.body.innerHTML = '<main><p>A page our reader no longer understands</p></main>';
    const out = await waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', turn: 0, timeoutMs: 300 });
    expect(out.reading.source).toBe('json');
    expect(out.turn.event).toBe('complete');
  });

  it('on a page that changes no more, the JSON is asked again on a doubling timer until it says the turn ended', async () => {
    const running = readFileSync(join(dir, 'B-computer-running.json'), 'utf8');
    const runningBody = JSON.stringify((JSON.parse(running) as { body: unknown }).body);
    const { session, driver, requests } = setup('B-computer-complete', [() => ({ status: 200, body: runningBody }), () => ({ status: 200, body: runningBody })]);
    document.body.innerHTML = '<main><p>A page our reader no longer understands</p></main>';
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const waiting = waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', turn: 0, timeoutMs: 60_000 });
      const advance = async (ms: number) => {
        now += ms;
        await vi.advanceTimersByTimeAsync(ms);
      };
      await advance(100);
      expect(requests).toHaveLength(1); // running
      // The page churns without showing the turn: that must not push the next read further away.
      for (let i = 0; i < 20; i++) {
        document.querySelector('main')?.append(document.createTextNode(' still unknown'));
        await advance(10);
      }
      await advance(2900);
      expect(requests).toHaveLength(2); // still running
      await advance(3100);
      expect(requests).toHaveLength(2); // the next one is 6 s later
      await advance(3100);
      expect(requests).toHaveLength(3); // complete
      const out = await waiting;
      expect(out.reading.source).toBe('json');
      expect(out.turn.event).toBe('complete');
      expect(driver.watcher.active).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a page that shows the turn done while the JSON gives no answer for it', () => {
  /** Runs a wait on `fixture`'s page with `body` for every JSON read, `seconds` of fake time. */
  const waitTenSeconds = async (body: string, seconds = 10, fixture = 'B-computer-complete') => {
    const { session, driver, requests } = setup(fixture, Array.from({ length: 60 }, () => () => ({ status: 200, body })));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    try {
      let out: Awaited<ReturnType<typeof waitForCheckpoint>> | undefined;
      const waiting = waitForCheckpoint(session, driver.watcher, { threadId: session.threadId ?? '', timeoutMs: 120_000 }, { signal: controller.signal }).then(
        (o) => {
          out = o;
        },
        () => undefined,
      );
      for (let i = 0; i < seconds; i++) {
        now += 1000;
        await vi.advanceTimersByTimeAsync(1000);
      }
      // A wait still going is let go, so that nothing of it outlives the test.
      controller.abort();
      await waiting;
      return { out, requests, driver };
    } finally {
      vi.useRealTimers();
    }
  };

  it('a JSON entry it calls finished, with its text where the reader does not take it: the page answers after two reads (threads review M1)', async () => {
    const saved = JSON.stringify((JSON.parse(readFileSync(join(dir, 'B-computer-complete.json'), 'utf8')) as { body: unknown }).body);
    const untaken = saved.replaceAll('"variant":"answer"', '"variant":"thought"');
    expect(untaken).not.toBe(saved);
    const { out, requests, driver } = await waitTenSeconds(untaken);
    expect(requests).toHaveLength(2);
    expect(out?.reading.source).toBe('page');
    expect(out?.turn.event).toBe('complete');
    expect(driver.watcher.active).toBe(false);
  });

  const running = () => JSON.stringify((JSON.parse(readFileSync(join(dir, 'B-computer-running.json'), 'utf8')) as { body: unknown }).body);

  it('a JSON entry still PENDING is the JSON’s word that the turn runs: the page is not taken over it (day-2 review M1)', async () => {
    const { out, requests } = await waitTenSeconds(running());
    expect(out).toBeUndefined();
    expect(requests.length).toBeGreaterThanOrEqual(3);
  });

  it('a JSON that lags is asked each time twice as late, not every 3 s to the end of the hold (day-3 review L3)', async () => {
    const { out, requests } = await waitTenSeconds(running(), 115);
    expect(out).toBeUndefined();
    // 0, 3, 9, 21, 45, 93 s: six reads in two minutes, where every 3 s made 41.
    expect(requests.length).toBeLessThanOrEqual(7);
  });

  it('a question the page shows is taken after one JSON read that lags (day-3 review L3)', async () => {
    const { out, requests } = await waitTenSeconds(running(), 10, 'B-computer-question');
    expect(out?.reading.source).toBe('page');
    expect(out?.turn.event).toBe('ask_user_question');
    expect(requests).toHaveLength(1);
  });
});

describe('a held wait is bound to its thread to the end', () => {
  it('a tab that moves to another conversation mid-wait fails the wait naming both, never returns the other one', async () => {
    const { session, driver } = setup('B-computer-running', [() => ({ status: 404, body: '' })]);
    const asked = session.threadId ?? '';
    const waiting = waitForCheckpoint(session, driver.watcher, { threadId: asked, timeoutMs: 5000 });
    // The person clicks another conversation in the sidebar: same document, another thread, already complete.
    const other = readFileSync(join(dir, 'B-computer-complete.html'), 'utf8');
    const otherUrl = `https://www.perplexity.ai${/URL: (\S+?)\.? /.exec(other)?.[1]}`;
    now += 10_000;
    loadHtml(other, otherUrl);
    const outcome = await waiting.then(
      (out) => ({ resolved: out.reading.threadId }),
      (e: { code: string; message: string }) => e,
    );
    expect(outcome).toMatchObject({ code: 'TAB_NOT_FOUND' });
    expect((outcome as { message: string }).message).toContain(asked);
    expect((outcome as { message: string }).message).toContain(session.threadId ?? '');
    expect(driver.watcher.active).toBe(false);
  });

  it('a tab that already shows another thread when the deadline comes fails too', async () => {
    const { session, driver } = setup('B-computer-running', [() => ({ status: 404, body: '' })]);
    const waiting = waitForCheckpoint(session, driver.watcher, { threadId: 'some-other-thread', timeoutMs: 30 });
    await expect(waiting).rejects.toMatchObject({ code: 'TAB_NOT_FOUND', message: expect.stringContaining('some-other-thread') });
  });
});

describe('a follow-up while the task works', () => {
  it('is refused before anything is typed, and the refusal says nothing was sent (data.notSent, for the MCP side)', async () => {
    const { session } = setup('B-computer-running', []);
    const catalog = new SelectorCatalog();
    const handlers = threadHandlers({ win: window, driver: lazyDriver(window, catalog), catalog, readers: givenReaders() });
    const composer = document.querySelector('#ask-input')?.textContent ?? '';
    const send = handlers['threads.send'] as (p: never, c: HandlerContext) => Promise<unknown>;
    await expect(
      send({ threadId: session.threadId, message: 'And more', attachments: [], settings: {} } as never, { signal: new AbortController().signal, progress: () => {} }),
    ).rejects.toMatchObject({ code: 'AGENT_ERROR', message: expect.stringMatching(/still working on its latest turn/), data: { notSent: true } });
    expect(document.querySelector('#ask-input')?.textContent ?? '').toBe(composer);
  });
});

describe('asset ids hold whichever source listed them', () => {
  /** The kit's methods on the loaded page, and the worker's results of them. */
  const kit = () => {
    const catalog = new SelectorCatalog();
    return threadHandlers({ win: window, driver: lazyDriver(window, catalog), catalog, readers: givenReaders() });
  };
  const call = (handlers: ReturnType<typeof kit>, method: string, params: object) =>
    (handlers[method] as (p: never, c: HandlerContext) => Promise<unknown>)(params as never, { signal: new AbortController().signal, progress: () => {} });
  const broken = () => ({ status: 200, body: JSON.stringify({ moved: true }) });
  /** A page whose file cards carry no id of their own (the ids the page gives are their links). */
  const withoutCardIds = () => {
    for (const card of document.querySelectorAll('[data-asset-id]')) card.removeAttribute('data-asset-id');
  };
  afterEach(() => vi.useRealTimers());

  it('listed from the page (card ids), downloaded while the JSON answers: the same ids', async () => {
    const { session } = setup('B-computer-files', [broken]);
    const threadId = session.threadId ?? '';
    const listed = await call(kit(), 'threads.assets', { threadId });
    const fromPage = assetsOf((listed as { reading: ThreadReading }).reading);
    expect((listed as { reading: ThreadReading }).reading.source).toBe('page');
    expect(fromPage.length).toBeGreaterThan(1);
    const next = kit(); // the JSON answers now (a new session: no interval to wait out)
    const json = assetsOf(((await call(next, 'threads.assets', { threadId })) as { reading: ThreadReading }).reading);
    expect(json.map((a) => a.asset_id)).toEqual(expect.arrayContaining(fromPage.map((a) => a.asset_id)));
  });

  it('listed from the page by link, downloaded through the JSON: resolved to the signed link of the same file', async () => {
    const { session } = setup('B-computer-files', [broken]);
    withoutCardIds();
    const threadId = session.threadId ?? '';
    const listed = (await call(kit(), 'threads.assets', { threadId })) as { reading: ThreadReading };
    expect(listed.reading.source).toBe('page');
    const [first] = assetsOf(listed.reading);
    expect(first?.asset_id).toMatch(/^https:\/\//);
    const result = (await call(kit(), 'threads.assetDownload', { threadId })) as { reading: ThreadReading };
    expect(result.reading.source).toBe('json');
    // A signed link says when it expires; this saved one already has, so it is asked for as of long ago.
    const download = downloadFrom(result, threadId, first?.asset_id ?? '', 0);
    expect(download.asset_id).toBe(first?.asset_id);
    expect(download.url).toMatch(/signature=sim/);
    expect(download.expires_in_seconds).toBeGreaterThan(0);
    // As of now it is past its time: no link is handed out, the caller is told to ask again (threads review L5).
    expect(() => downloadFrom(result, threadId, first?.asset_id ?? '')).toThrow(/has expired; call create_asset_download again in a few seconds/);
  });

  it('listed from the JSON, downloaded while only the page answers: resolved through the links the JSON gave', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { session } = setup('B-computer-files', []);
    const threadId = session.threadId ?? '';
    const handlers = kit();
    const listed = (await call(handlers, 'threads.assets', { threadId })) as { reading: ThreadReading };
    expect(listed.reading.source).toBe('json');
    const uuid = assetsOf(listed.reading)[0]?.asset_id ?? '';
    expect(uuid).not.toMatch(/^https:/);
    withoutCardIds();
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => broken().body }), configurable: true });
    vi.setSystemTime(Date.now() + 60_000);
    const result = (await call(handlers, 'threads.assetDownload', { threadId })) as { reading: ThreadReading };
    expect(result.reading.source).toBe('page');
    const download = downloadFrom(result, threadId, uuid);
    expect(download).toMatchObject({ asset_id: uuid, expires_in_seconds: null });
    expect(new URL(download.url).pathname).toContain('/_sim/assets/');
    expect(() => downloadFrom(result, threadId, 'not-an-asset')).toThrow(/asset_id "not-an-asset" is not an asset/);
  });
});

describe('thread readers added as files (data packs) are used at once', () => {
  it('a JSON body in a shape no built-in reader knows: the page answers, naming the reader; a reader added for it reads it from the next read', async () => {
    const { saved } = setup('B-computer-complete', []);
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => JSON.stringify(movedJson(saved)) }), configurable: true });
    const shelf = new ReaderShelf();
    const driver = createPageDriver(window);
    const session = new ThreadSession({
      ctx: () => driver.context(),
      watcher: driver.watcher,
      json: () => shelf.pick(THREAD_JSON_READER_KIND, threadJson2026).reader,
      page: () => threadPage2026,
      now: () => now,
    });
    const before = await session.reading();
    expect(before.source).toBe('page');
    expect(session.lastProblem).toMatch(/no list of entries at entries \(reader thread-json-2026-12\)/);
    shelf.replace(THREAD_JSON_READER_KIND, [{ item: movedShapeReader(), source: '/h/selectors/thread-json-reader.thread-json-2027-01.json' }]);
    now += threadJson2026.request.minIntervalMs;
    const after = await session.reading();
    expect(after.source).toBe('json');
    expect(after.turns.at(-1)?.event).toBe('complete');
    expect(after.title).toBeTruthy();
    shelf.replace(THREAD_JSON_READER_KIND, []); // removed: the built-in one again
    now += threadJson2026.request.minIntervalMs;
    expect((await session.reading()).source).toBe('page');
  });

  it("the page script's applier puts an added page reader to use for what comet_wait and the panel read", () => {
    loadFixture('B-task-confirm.html', 'https://www.perplexity.ai/computer/tasks/8c0d3f4e-task', 'pages');
    const box = document.querySelector('.task-interaction') as HTMLElement;
    // The sim's confirmation box carries its follow-up's id (data-followup-uuid), which the built-in reader takes.
    const builtIn = box.getAttribute('data-followup-uuid');
    expect(builtIn).toMatch(/-interaction$/);
    box.setAttribute('data-prompt-id', 'confirm-42');
    expect(readInteractions(document, generationB)[0]?.id).toBe(builtIn);
    const apply = readerApplier(threadReaders, THREAD_PAGE_READER_KIND);
    try {
      apply([{ kind: THREAD_PAGE_READER_KIND, name: 'thread-page-2027-01', source: '/h/p.json', item: { ...threadPage2026, name: 'thread-page-2027-01', boxId: ['data-prompt-id'] } }]);
      expect(readInteractions(document, generationB)[0]?.id).toBe('confirm-42');
    } finally {
      apply([]);
    }
    expect(readInteractions(document, generationB)[0]?.id).toBe(builtIn);
  });
});
