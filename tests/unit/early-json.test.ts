// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HandlerContext } from '../../lib/page/handlers';
import { pageHandlers } from '../../lib/page/handlers';
import { createPageDriver } from '../../lib/page/driver';
import type { Envelope } from '../../lib/protocol/messages';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';
import { EarlyJson, JsonAnswers } from '../../lib/worker/threads/json-answer';
import { loadFixture } from '../fixtures/reader/load';

vi.mock('wxt/browser', () => ({ browser: {} }));

/**
 * comet_wait's thread JSON, fetched by the page the moment its wait sees the turn end (issue 31 item
 * 5): the worker sends a `threads.fetch` ahead of the wait, the page holds it until that wait ends and
 * fetches at once, the worker makes the answer from that body by the same rules. Nothing is fetched
 * for a wait that ends another way, and the early read lives no longer than its caller.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ctx = (signal = new AbortController().signal): HandlerContext => ({ signal, progress: () => {} });

function thread(): HTMLElement {
  return document.querySelector('.max-w-threadContentWidth') as HTMLElement;
}

/** Turn n as the site draws it while it works (question, steps, stop button), then its end. */
function workingTurn(n: number, question: string): { turn: HTMLElement; finish(): void } {
  const turn = document.createElement('div');
  turn.setAttribute('data-workflow-entry', String(n));
  turn.innerHTML = `<div class="group/query"><div class="select-text">${question}</div></div>
    <div class="contents"><div>Preparing to assist…</div></div>
    <div data-workflow-final-text><div class="prose" data-renderer="lm"><p>An answer</p></div></div>
    <button aria-label="Stop">■</button>`;
  thread().append(turn);
  return {
    turn,
    finish: () => {
      turn.querySelector('button[aria-label="Stop"]')?.remove();
      turn.querySelector('.contents')?.insertAdjacentHTML('afterbegin', '<div>Finished 1 steps</div>');
    },
  };
}

const EARLY = { path: '/rest/thread/{id}', query: { with_schematized_response: 'true' }, headers: { 'x-app-apiclient': 'default' } };

/** The page's handlers on the fixture page, with its fetch recorded. */
function page() {
  loadFixture('A-thread.html', 'https://www.perplexity.ai/search/tides-abc');
  const fetched: string[] = [];
  const fetch = vi.fn(async (url: string) => {
    fetched.push(url);
    return new Response('{"entries":[]}', { status: 200 });
  });
  const win = Object.assign(Object.create(window) as Window, { fetch, location: window.location, document: window.document });
  const driver = createPageDriver(window);
  const handlers = pageHandlers(win, undefined, () => driver) as unknown as Record<string, (params: unknown, context: HandlerContext) => Promise<Record<string, unknown>>>;
  return { handlers, fetched };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the page: an early thread-JSON read held until its wait ends (issue 31 item 5)', () => {
  it('fetches the thread the turn ended on in the task that saw it end, before the wait has even read the turn', async () => {
    const { handlers, fetched } = page();
    const early = handlers['threads.fetch']?.({ ...EARLY, afterWait: 'k1' }, ctx());
    const waiting = handlers['page.wait']?.({ afterTurn: 2, timeoutMs: 5000, jsonKey: 'k1' }, ctx());
    const { finish } = workingTurn(2, 'Why are there two tides a day');
    await sleep(5);
    expect(fetched).toEqual([]); // nothing while the turn works
    let resolved = false;
    void waiting?.then(() => {
      resolved = true;
    });
    finish();
    await Promise.resolve(); // the observer's batch (a microtask), not a timer
    await Promise.resolve();
    expect(fetched).toEqual(['https://www.perplexity.ai/rest/thread/tides-abc?with_schematized_response=true']);
    expect(resolved).toBe(false);
    expect(await waiting).toMatchObject({ status: 'completed', turnIndex: 2 });
    expect(await early).toEqual({ status: 200, body: '{"entries":[]}', path: '/rest/thread/tides-abc', asked: '/rest/thread/tides-abc' });
  });

  it('fetches nothing for a wait that ends another way, or on a turn already over when the wait began', async () => {
    const { handlers, fetched } = page();
    const timedOut = handlers['threads.fetch']?.({ ...EARLY, afterWait: 'k2' }, ctx());
    workingTurn(2, 'A long one');
    expect(await handlers['page.wait']?.({ afterTurn: 2, timeoutMs: 50, jsonKey: 'k2' }, ctx())).toMatchObject({ status: 'timeout' });
    expect(await timedOut).toMatchObject({ skipped: true });

    // Turn 2 of the fixture ended before anyone waited: its JSON may be known already, so none is asked for here.
    loadFixture('A-thread.html', 'https://www.perplexity.ai/search/tides-abc');
    const over = handlers['threads.fetch']?.({ ...EARLY, afterWait: 'k3' }, ctx());
    expect(await handlers['page.wait']?.({ latest: true, timeoutMs: 5000, jsonKey: 'k3' }, ctx())).toMatchObject({ status: 'completed' });
    expect(await over).toMatchObject({ skipped: true });
    expect(fetched).toEqual([]);
  });

  it('a page that names no thread fetches nothing', async () => {
    const { handlers, fetched } = page();
    loadFixture('A-thread.html', 'https://www.perplexity.ai/');
    const early = handlers['threads.fetch']?.({ ...EARLY, afterWait: 'k4' }, ctx());
    const waiting = handlers['page.wait']?.({ afterTurn: 2, timeoutMs: 5000, jsonKey: 'k4' }, ctx());
    const { finish } = workingTurn(2, 'q');
    await sleep(5);
    finish();
    await waiting;
    expect(await early).toMatchObject({ skipped: true });
    expect(fetched).toEqual([]);
  });

  it('cancelled before its wait ends: CANCELLED, and the turn ending later fetches nothing', async () => {
    const { handlers, fetched } = page();
    const caller = new AbortController();
    const early = handlers['threads.fetch']?.({ ...EARLY, afterWait: 'k5' }, ctx(caller.signal));
    const waiting = handlers['page.wait']?.({ afterTurn: 2, timeoutMs: 5000, jsonKey: 'k5' }, ctx());
    const { finish } = workingTurn(2, 'q');
    await sleep(5);
    caller.abort();
    await expect(early).rejects.toMatchObject({ code: 'CANCELLED' });
    finish();
    await waiting;
    await sleep(5);
    expect(fetched).toEqual([]);
  });
});

/** A thread body in the shape of the 2026-08-04 capture (our own words). */
function body(answer: string) {
  return JSON.stringify({
    entries: [
      {
        query_str: 'why are there two tides a day',
        status: 'COMPLETED',
        blocks: [
          {
            intended_usage: 'workflow_root',
            workflow_block: { status: 'WORKFLOW_COMPLETED', steps: [{ title: '', items: [{ type: 'WORKFLOW_ITEM_TEXT', payload: { text_payload: { variant: 'answer', text: answer } } }] }] },
          },
        ],
      },
    ],
  });
}

const finished = {
  status: 'completed',
  response: 'The Moon pulls the sea',
  steps: [],
  currentStep: '',
  turnIndex: 0,
  questionText: 'Why are there two tides a day',
  truncated: false,
  totalLength: 22,
  hasStopButton: false,
  url: 'https://www.perplexity.ai/search/tides-abc',
  elapsedMs: 900,
};

interface Posted {
  method: string;
  params: Record<string, unknown>;
  signal: AbortSignal;
}

/** The router with JsonAnswers and a fake page: `early` answers the early read, `wait` the wait. */
function worker(page: { early(posted: Posted): Promise<unknown>; wait(posted: Posted): Promise<unknown> }) {
  const posted: Posted[] = [];
  const pages = {
    request: vi.fn(async (_tab: number, method: string, params: Record<string, unknown>, signal: AbortSignal) => {
      const p = { method, params, signal };
      posted.push(p);
      if (method === 'page.wait') return page.wait(p);
      if (params.afterWait !== undefined) return page.early(p);
      return { status: 200, body: body('Fetched late.'), path: String(params.path) };
    }),
    state: () => undefined,
  } as unknown as PageHub;
  const router = new Router({ tabs: { pageTab: async () => 7 } as unknown as TabService, pages, status: async () => ({}), answers: new JsonAnswers(() => threadJson2026) });
  const replies: Envelope[] = [];
  const call = (id: string) => router.handle({ kind: 'request', id, method: 'page.wait', params: { timeoutMs: 5000 } }, (m) => replies.push(m));
  return { router, posted, replies, call };
}

describe('the worker: comet_wait answers from the early read (issue 31 item 5)', () => {
  it('sends the early read before the wait, keyed to it, and makes the answer from its body: no second request', async () => {
    const { posted, replies, call } = worker({
      early: async ({ params }) => ({ status: 200, body: body('The **Moon** pulls the sea.'), path: '/rest/thread/tides-abc', asked: String(params.path).replace('{id}', 'tides-abc') }),
      wait: async () => finished,
    });
    await call('w1');
    expect(posted.map((p) => p.method)).toEqual(['threads.fetch', 'page.wait']);
    expect(posted[0]?.params).toMatchObject({ path: threadJson2026.request.path, afterWait: expect.any(String) });
    expect(posted[1]?.params.jsonKey).toBe(posted[0]?.params.afterWait);
    expect(replies[0]).toMatchObject({ kind: 'result', result: { status: 'completed', response: 'The **Moon** pulls the sea.', answerSource: 'json' } });
  });

  it('an early read that asked nothing (the wait ended another way) is replaced by a fetch of its own', async () => {
    const { posted, replies, call } = worker({ early: async () => ({ status: 0, body: '', path: '', skipped: true }), wait: async () => finished });
    await call('w2');
    expect(posted.map((p) => p.method)).toEqual(['threads.fetch', 'page.wait', 'threads.fetch']);
    expect(posted[2]?.params.afterWait).toBeUndefined();
    expect(replies[0]).toMatchObject({ result: { response: 'Fetched late.', answerSource: 'json' } });
  });

  it('its caller gone, the early read is cancelled with the wait', async () => {
    const { router, posted, call } = worker({
      early: ({ signal }) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      wait: ({ signal }) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const handled = call('w3');
    await sleep(5);
    router.cancel('w3');
    await handled;
    expect(posted.map((p) => [p.method, p.signal.aborted])).toEqual([
      ['threads.fetch', true],
      ['page.wait', true],
    ]);
  });

  it('a call that ends without taking it (the turn did not finish) cancels it in the page', async () => {
    const { posted, replies, call } = worker({
      early: ({ signal }) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      wait: async () => ({ ...finished, status: 'timeout' }),
    });
    await call('w4');
    expect(replies[0]).toMatchObject({ result: { status: 'timeout', answerSource: 'page' } });
    // The answer goes first; the cancel follows in the next task.
    await new Promise((r) => setTimeout(r, 0));
    expect(posted[0]?.signal.aborted).toBe(true);
  });

  it('a taken early read is a fetch like any other: the call ending leaves it running, its budget passed, for the next read', async () => {
    let arrive!: (r: unknown) => void;
    const read = new EarlyJson(EARLY, (_p, signal) => {
      signal.addEventListener('abort', () => arrive(undefined));
      return new Promise((r) => (arrive = r));
    }, new AbortController().signal);
    expect(await read.take('/rest/thread/tides-abc', EARLY.query, EARLY.headers)).toBeUndefined(); // before the wait's result: never waited on
    read.open();
    const taken = read.take('/rest/thread/tides-abc', EARLY.query, EARLY.headers);
    read.end();
    arrive({ status: 200, body: 'late', asked: '/rest/thread/tides-abc' });
    expect(await taken).toEqual({ status: 200, body: 'late' });
    // Another request than the one it made (a cursor, other headers, another thread) is fetched as ever.
    const other = new EarlyJson(EARLY, async () => ({ status: 200, body: 'x', asked: '/rest/thread/tides-abc' }), new AbortController().signal);
    other.open();
    expect(await other.take('/rest/thread/tides-abc', { ...EARLY.query, cursor: '2' }, EARLY.headers)).toBeUndefined();
    const third = new EarlyJson(EARLY, async () => ({ status: 200, body: 'x', asked: '/rest/thread/tides-abc' }), new AbortController().signal);
    third.open();
    expect(await third.take('/rest/thread/other', EARLY.query, EARLY.headers)).toBeUndefined();
  });
});
