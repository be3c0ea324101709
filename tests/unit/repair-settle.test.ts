// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { repairKit } from '../../lib/page/kits/repair-kit';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { Repairs } from '../../lib/worker/calls/repairs';
import { loadHtml } from '../fixtures/reader/load';

/**
 * A thread just opened (from the sidebar, a `?q=` load): comet_poll reads it before its blocks are drawn, finds no turn,
 * and the worker asks the repair kit, which gives the page a moment to draw one (review 2026-12-05, day 4, F1 and F2).
 * The real driver, the real repair kit and the real worker end; the thread's blocks come 300 ms in.
 */
const COMPOSER = '<div data-ask-input-container><div id="ask-input" contenteditable="true" role="textbox"></div><button aria-label="Submit">s</button></div>';
const TURN =
  '<div data-workflow-entry="0"><div class="group group/user-bubble"><span class="whitespace-pre-line">why tides</span></div></div>' +
  '<div data-workflow-final-text class="group/final-text"><div class="prose" data-renderer="lm"><p>The Moon.</p></div></div>' +
  '<div data-workflow-text-footer><button aria-label="Copy">c</button></div>';
const FINISHED = JSON.stringify({ entries: [{ uuid: 'e', query_str: 'why tides', status: 'COMPLETED', blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: 'The Moon.' } }] }] });

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a conversation page drawing its turns while comet_poll reads it', () => {
  for (const [label, body] of [
    ['its JSON rate-limited', ''],
    ['its only entry still running', JSON.stringify({ entries: [{ uuid: 'e', query_str: 'why tides', status: 'PENDING', blocks: [] }] })],
    ['its JSON holding the finished turn', FINISHED],
  ] as const) {
    it(`is read again once drawn, not answered from the read before it, and nothing is repaired (${label})`, async () => {
      loadHtml(`<main><div id="thread"></div>${COMPOSER}</main>`, 'https://www.perplexity.ai/search/tides-abc123');
      const driver = createPageDriver(window);
      const kit = repairKit({ win: window, driver: () => driver } as never);
      setTimeout(() => {
        (document.getElementById('thread') as Element).innerHTML = TURN;
      }, 300);
      const asked: string[] = [];
      const page = async (method: string, params: Record<string, unknown>) => {
        asked.push(`${method}${params.turns ? '+turns' : ''}`);
        return (kit[method] as (p: unknown) => Promise<unknown>)(params);
      };
      const before = await driver.poll();
      expect(before).toMatchObject({ status: 'idle', turnCount: 0 });
      expect(before.unconfirmed).toBeUndefined();
      // The poll before the blocks came is the worker's first read; the read again is the page's own.
      const reads = [before];
      const run = async () => reads.shift() ?? driver.poll();
      const read = await new Repairs(() => threadJson2026).read('page.poll', run, page, async () => ({ status: 200, body }), { tabId: 1, url: window.location.href });
      expect(read).toMatchObject({ status: 'completed', turnCount: 1, response: 'The Moon.' });
      expect(read).not.toHaveProperty('repair');
      expect(asked).toEqual(['page.repair']);
    });
  }

  it('answer prose drawn before its turn’s blocks (the miss of an unknown layout): read again once they come, not failed', async () => {
    const PROSE = '<div class="prose" data-renderer="lm"><p>The Moon.</p></div>';
    loadHtml(`<main><div id="thread">${PROSE}</div>${COMPOSER}</main>`, 'https://www.perplexity.ai/search/tides-abc123');
    const driver = createPageDriver(window);
    const kit = repairKit({ win: window, driver: () => driver } as never);
    await expect(driver.poll()).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    setTimeout(() => {
      (document.getElementById('thread') as Element).innerHTML = TURN;
    }, 300);
    const page = async (method: string, params: Record<string, unknown>) => (kit[method] as (p: unknown) => Promise<unknown>)(params);
    const read = await new Repairs(() => threadJson2026).read('page.poll', () => driver.poll(), page, async () => ({ status: 200, body: '' }), { tabId: 1, url: window.location.href });
    expect(read).toMatchObject({ status: 'completed', turnCount: 1, response: 'The Moon.' });
  });

  it('a conversation page that never draws a turn (a deleted thread) stays idle after the wait, with no miss', async () => {
    loadHtml(`<main><div id="thread"><p>This thread does not exist.</p></div>${COMPOSER}</main>`, 'https://www.perplexity.ai/search/gone-abc123');
    const driver = createPageDriver(window);
    const kit = repairKit({ win: window, driver: () => driver } as never);
    const page = async (method: string, params: Record<string, unknown>) => (kit[method] as (p: unknown) => Promise<unknown>)(params);
    const read = await new Repairs(() => threadJson2026).read('page.poll', () => driver.poll(), page, async () => ({ status: 404, body: '{}' }), { tabId: 1, url: window.location.href });
    expect(read).toMatchObject({ status: 'idle', turnCount: 0 });
    expect(read).not.toHaveProperty('unconfirmed');
  });

  it('one that draws no turn in the wait while its thread JSON says the turn is being written: working, on the JSON’s word (page review F2)', async () => {
    loadHtml(`<main><div id="thread"></div>${COMPOSER}</main>`, 'https://www.perplexity.ai/search/tides-abc123');
    const driver = createPageDriver(window);
    const kit = repairKit({ win: window, driver: () => driver } as never);
    const page = async (method: string, params: Record<string, unknown>) => (kit[method] as (p: unknown) => Promise<unknown>)(params);
    const running = JSON.stringify({ entries: [{ uuid: 'e', query_str: 'why tides', status: 'PENDING', blocks: [] }] });
    let fetched = 0;
    const fetch = async () => {
      fetched++;
      return { status: 200, body: running };
    };
    const read = await new Repairs(() => threadJson2026).read('page.poll', () => driver.poll(), page, fetch, { tabId: 1, url: window.location.href });
    expect(fetched).toBe(1);
    expect(read).toMatchObject({ status: 'working', turnCount: 0 });
    // An entry that says nothing of its state (no status) is no evidence either way: the page's idle stands.
    const silent = JSON.stringify({ entries: [{ uuid: 'e', query_str: 'why tides', blocks: [] }] });
    const other = await new Repairs(() => threadJson2026).read('page.poll', () => driver.poll(), page, async () => ({ status: 200, body: silent }), { tabId: 1, url: window.location.href });
    expect(other).toMatchObject({ status: 'idle', turnCount: 0 });
  });
});

describe('no turn drawn while the thread JSON says its last turn is being written (day-7c review R1–R3)', () => {
  const URL = 'https://www.perplexity.ai/search/tides-abc123';
  const finished = (q: string) => ({ uuid: q, query_str: q, status: 'COMPLETED', blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: `About ${q}.` } }] });
  const running = (...before: object[]) => JSON.stringify({ entries: [...before, { uuid: 'e', query_str: 'why tides', status: 'PENDING', blocks: [] }] });
  const undrawn = { url: URL, turnCount: 0, status: 'idle', response: '', lastTurnIndex: -1 };
  /** The repair kit of a page that draws nothing: it says so, at the URL the tab shows after its wait. */
  const kitAt = (url: string, asked: string[] = []) => async (method: string, params: Record<string, unknown>) => {
    asked.push(`${method}${params.turns ? '+turns' : ''}`);
    return params.turns ? { status: 'failed', probe: 'turn', reason: 'no turn matched', url } : { status: 'miss', probe: 'turn', url };
  };

  it('its word holds while the JSON may not be asked again: every poll in the window says working', async () => {
    let t = 1_000_000;
    const bodies = [running(), ''];
    let fetched = 0;
    const fetch = async () => {
      fetched++;
      return { status: 200, body: bodies.shift() ?? running() };
    };
    const repairs = new Repairs(() => threadJson2026, () => t);
    const poll = () => repairs.read('page.poll', async () => undrawn, kitAt(URL), fetch, { tabId: 1, url: URL });
    expect(await poll()).toMatchObject({ status: 'working' });
    t += 1_000; // within the JSON's interval: not asked, its word held
    expect(await poll()).toMatchObject({ status: 'working' });
    t += 3_000; // asked, and it answers empty (its rate limit): the word from 4 s ago still holds
    expect(await poll()).toMatchObject({ status: 'working' });
    expect(fetched).toBe(2);
    t += 61_000; // a minute on, refused again: held while it may not be asked (its back-off)
    bodies.unshift('');
    expect(await poll()).toMatchObject({ status: 'working' });
    t += 240_000; // five minutes with no answer from it: the page's own result
    bodies.unshift('');
    expect(await poll()).toMatchObject({ status: 'idle' });
  });

  it('a moment’s failure of the JSON (a 5xx, a failed fetch) keeps its word; a thread gone ends it (day-7e review E1)', async () => {
    let t = 1_000_000;
    const answers: (() => { status: number; body: string })[] = [
      () => ({ status: 200, body: running() }),
      () => ({ status: 503, body: 'busy' }),
      () => {
        throw new Error('the page navigated');
      },
      () => ({ status: 200, body: JSON.stringify({ entries: [] }) }), // the endpoint's rate limit (day-7f review G2)
      () => ({ status: 200, body: running() }),
    ];
    const fetch = async () => (answers.shift() as () => { status: number; body: string })();
    const repairs = new Repairs(() => threadJson2026, () => t);
    const poll = () => repairs.read('page.poll', async () => undrawn, kitAt(URL), fetch, { tabId: 1, url: URL });
    for (const step of [0, 4_000, 31_000, 31_000, 31_000]) {
      t += step;
      expect(await poll(), `t+${t - 1_000_000}`).toMatchObject({ status: 'working' });
    }
  });

  it('its word ends when the JSON says anything else: the thread gone, the person signed out (day-7d review F1)', async () => {
    let t = 1_000_000;
    const answers = [{ status: 200, body: running() }, { status: 404, body: '{}' }];
    const fetch = async () => answers.shift() ?? { status: 401, body: '' };
    const repairs = new Repairs(() => threadJson2026, () => t);
    const poll = () => repairs.read('page.poll', async () => undrawn, kitAt(URL), fetch, { tabId: 1, url: URL });
    expect(await poll()).toMatchObject({ status: 'working' });
    t += 4_000;
    expect(await poll()).toMatchObject({ status: 'idle' });
  });

  it('one session’s cancel during the JSON read backs the thread off for nobody (day-7g review H4)', async () => {
    let t = 1_000_000;
    const answers: (() => { status: number; body: string })[] = [
      () => {
        throw Object.assign(new Error('The call was cancelled.'), { code: 'CANCELLED' });
      },
      () => ({ status: 200, body: running() }),
    ];
    let fetched = 0;
    const fetch = async () => {
      fetched++;
      return (answers.shift() as () => { status: number; body: string })();
    };
    const repairs = new Repairs(() => threadJson2026, () => t);
    await repairs.read('page.poll', async () => undrawn, kitAt(URL), fetch, { tabId: 1, url: URL });
    t += 4_000; // past the JSON's interval, well within the back-off a failure would set
    expect(await repairs.read('page.poll', async () => undrawn, kitAt(URL), fetch, { tabId: 2, url: URL })).toMatchObject({ status: 'working' });
    expect(fetched).toBe(2);
  });

  it('a thread with finished turns is still repaired from them, not answered working with no turn', async () => {
    const asked: string[] = [];
    const read = new Repairs(() => threadJson2026).read('page.poll', async () => undrawn, kitAt(URL, asked), async () => ({ status: 200, body: running(finished('one'), finished('two')) }), { tabId: 1, url: URL });
    await expect(read).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    expect(asked).toEqual(['page.repair', 'page.repair+turns']);
  });

  it('the tab went to another thread during the wait: that thread’s JSON says nothing of the one polled', async () => {
    const read = await new Repairs(() => threadJson2026).read('page.poll', async () => undrawn, kitAt('https://www.perplexity.ai/search/other-def456'), async () => ({ status: 200, body: running() }), { tabId: 1, url: URL });
    expect(read).toMatchObject({ status: 'idle', turnCount: 0 });
  });
});
