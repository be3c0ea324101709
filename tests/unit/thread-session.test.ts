// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { ThreadSession } from '../../lib/page/thread-session';
import { waitForCheckpoint } from '../../lib/page/thread-wait';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadHtml } from '../fixtures/reader/load';

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
  const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: threadJson2026, page: threadPage2026, now: () => now });
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
    expect(Object.fromEntries(url.searchParams)).toEqual({ version: '2.18', source: 'default' });
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

describe('threads.wait in the page', () => {
  it('resolves at once on a checkpoint already shown, from the JSON, and releases the observer', async () => {
    const { session, driver } = setup('B-computer-confirm', []);
    const out = await waitForCheckpoint(session, driver.watcher, { timeoutMs: 5000 });
    expect(out.turn.event).toBe('confirm_action');
    expect(out.reading.source).toBe('json');
    expect(driver.watcher.active).toBe(false);
  });

  it('a running turn: the timeout ends it with no event; cancellation rejects; nothing is left running', async () => {
    const { session, driver } = setup('B-computer-running', []);
    const timedOut = await waitForCheckpoint(session, driver.watcher, { timeoutMs: 50 });
    expect(timedOut.turn.event).toBeNull();
    expect(driver.watcher.active).toBe(false);

    const controller = new AbortController();
    const waiting = waitForCheckpoint(session, driver.watcher, { timeoutMs: 60_000 }, { signal: controller.signal });
    expect(driver.watcher.active).toBe(true);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(driver.watcher.active).toBe(false);

    const quiet = await waitForCheckpoint(session, driver.watcher, { timeoutMs: 60_000, quietMs: 50 });
    expect(quiet.turn.event).toBeNull();
  });

  it('never answers for an earlier turn: a turn not on the page yet is waited for', async () => {
    const { session, driver } = setup('B-computer-complete', []);
    const out = await waitForCheckpoint(session, driver.watcher, { turn: 1, timeoutMs: 50 });
    expect(out.turn).toMatchObject({ index: 1, event: null });
  });
});
