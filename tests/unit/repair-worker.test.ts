import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { pick } from '../../lib/selectors/language/json-path';
import { THREAD_JSON_READERS } from '../../lib/selectors/thread-json';
import { finishedTurns, Repairs } from '../../lib/worker/calls/repairs';
import { threadJsonBody } from '../support/repair-pages';

const reader = THREAD_JSON_READERS[0] as (typeof THREAD_JSON_READERS)[number];
const URL = 'https://www.perplexity.ai/search/a-captured-thread';
const TURNS = [{ index: 0, question: 'Why is the sky blue?', answer: 'Rayleigh scattering [1].', sources: ['https://example.com/a'] }];
const INFO = { name: 'gen-b-2026-12-derived', origin: `derived on 2026-12-02 from ${URL} against its thread JSON`, url: URL, derivedAt: '2026-12-02T00:00:00.000Z', replaced: { answer: '[data-a]' }, base: 'gen-b-2026-10-live', turns: [0], pack: { kind: 'selector-set', comment: 'x', set: {} } };

/** A page whose reader misses until a repair is made, and a JSON endpoint that counts its reads. */
function rig(opts: { body?: string; derive?: 'ok' | 'fail' } = {}) {
  const calls: string[] = [];
  let repaired = false;
  let tried = false;
  const page = async (method: string, params: Record<string, unknown>) => {
    calls.push(`${method}${params.turns ? '+turns' : ''}`);
    if (repaired) return { status: 'repaired', url: URL, repair: INFO };
    if (!params.turns) return tried ? { status: 'tried', url: URL, probe: 'turn', reason: 'answer: no element shows it' } : { status: 'miss', url: URL, probe: 'turn' };
    tried = true;
    if (opts.derive === 'fail') return { status: 'failed', url: URL, probe: 'answer', reason: "no element on the page shows the text of any of the thread JSON's 1 finished answer(s)" };
    repaired = true;
    return { status: 'repaired', url: URL, repair: INFO };
  };
  const fetch = async () => {
    calls.push('fetch');
    return { status: 200, body: opts.body ?? threadJsonBody(TURNS) };
  };
  const poll = async () => (repaired ? { url: URL, turnCount: 1, status: 'completed', response: 'Rayleigh scattering', lastTurnIndex: 0, repair: 'Read through a repair' } : { url: URL, turnCount: 0, status: 'idle', response: '', lastTurnIndex: -1 });
  return { calls, page, fetch, poll };
}

describe('the worker end of a repair', () => {
  it('a poll that finds no turn on a conversation page is repaired from one JSON read and read again through it', async () => {
    const r = rig();
    const repairs = new Repairs(() => reader);
    const result = await repairs.read('page.poll', r.poll, r.page, r.fetch, { tabId: 1, url: URL });
    expect(result).toMatchObject({ response: 'Rayleigh scattering', repair: 'Read through a repair' });
    expect(r.calls).toEqual(['page.repair', 'fetch', 'page.repair+turns']);
  });

  it('a wait on a page whose repair failed fails at once with [SELECTOR_MISS] naming the probe and why, without asking the JSON again', async () => {
    const r = rig({ derive: 'fail' });
    const repairs = new Repairs(() => reader);
    const wait = async () => ({ status: 'timeout' });
    const first = await repairs.read('page.wait', wait, r.page, r.fetch, { tabId: 1, url: URL }).catch((e: unknown) => e as RelayError);
    expect(first).toBeInstanceOf(RelayError);
    expect((first as RelayError).code).toBe('SELECTOR_MISS');
    expect((first as RelayError).message).toMatch(/^turn: the reader finds no turn on .*A repair from the thread JSON was tried on this page and failed \(answer: no element on the page shows the text/);
    const again = await repairs.read('page.wait', wait, r.page, r.fetch, { tabId: 1, url: URL }).catch((e: unknown) => e as RelayError);
    expect((again as RelayError).message).toMatch(/was tried on this page and failed \(answer: no element shows it\)/);
    expect(r.calls.filter((c) => c === 'fetch')).toHaveLength(1);
  });

  it('a JSON with no finished turn vouches for nothing: no repair is tried and the page\'s result stands', async () => {
    const running = JSON.parse(threadJsonBody(TURNS)) as { entries: { status: string }[] };
    for (const e of running.entries) e.status = 'PENDING';
    const r = rig({ body: JSON.stringify(running) });
    const repairs = new Repairs(() => reader);
    expect(await repairs.read('page.poll', r.poll, r.page, r.fetch, { tabId: 1, url: URL })).toMatchObject({ turnCount: 0 });
    expect(r.calls).toEqual(['page.repair', 'fetch']);
    // Within the endpoint's interval the JSON is not asked again.
    await repairs.read('page.poll', r.poll, r.page, r.fetch, { tabId: 1, url: URL });
    expect(r.calls.filter((c) => c === 'fetch')).toHaveLength(1);
  });

  it('a JSON page that says more follow but gives no new cursor vouches for nothing: its last entry read is not the thread`s last (review 15e, F6)', async () => {
    const r = rig({ body: JSON.stringify({ ...JSON.parse(threadJsonBody(TURNS)), has_next_page: true, next_cursor: null }) });
    const repairs = new Repairs(() => reader);
    expect(await repairs.read('page.poll', r.poll, r.page, r.fetch, { tabId: 1, url: URL })).toMatchObject({ turnCount: 0 });
    expect(r.calls).toEqual(['page.repair', 'fetch']);
  });

  it('a page that is not a conversation is not asked about at all', async () => {
    const r = rig();
    const repairs = new Repairs(() => reader);
    const home = async () => ({ url: 'https://www.perplexity.ai/', turnCount: 0, status: 'idle', response: '' });
    await repairs.read('page.poll', home, r.page, r.fetch, { tabId: 1, url: 'https://www.perplexity.ai/' });
    await repairs.read('page.wait', home, r.page, r.fetch, { tabId: 1, url: 'https://www.perplexity.ai/' });
    expect(r.calls).toEqual([]);
  });

  it('a finished answer the page reads otherwise than the JSON tries a repair; one that agrees (chips and Markdown aside) does not', async () => {
    const r = rig();
    const repairs = new Repairs(() => reader);
    const json = { response: 'Rayleigh **scattering** [1](https://example.com/a).', truncated: false, answerSource: 'json' };
    expect(await repairs.onDisagreement({ response: 'Rayleigh scattering example +1', truncated: false }, json, 0, r.poll, r.page, r.fetch)).toBeNull();
    expect(r.calls).toEqual([]);
    const again = await repairs.onDisagreement({ response: 'Searching 4 sources', truncated: false }, json, 0, r.poll, r.page, r.fetch);
    expect(again).toMatchObject({ repair: 'Read through a repair' });
    expect(r.calls).toEqual(['page.repair', 'fetch', 'page.repair+turns']);
  });

  it('a disagreement no repair settles leaves the JSON\'s answer standing: nothing fails', async () => {
    const r = rig({ derive: 'fail' });
    const repairs = new Repairs(() => reader);
    const json = { response: 'Rayleigh scattering [1].', truncated: false, answerSource: 'json' };
    expect(await repairs.onDisagreement({ response: 'Searching 4 sources', truncated: false }, json, 0, r.poll, r.page, r.fetch)).toBeNull();
  });

  const folder = process.env.COMET_REAL_PERPLEXITY;
  it.skipIf(!(folder && existsSync(folder)))('reads the finished turns of a real thread JSON (thread-json-perplexity-client-multiturn-2026-08-01.json)', () => {
    const body = JSON.parse(readFileSync(join(folder as string, 'thread-json-perplexity-client-multiturn-2026-08-01.json'), 'utf8')) as unknown;
    const entries = pick(body, reader.thread.entries).values[0] as unknown[];
    const turns = finishedTurns(entries, reader);
    expect(turns.length).toBe(entries.length);
    expect(turns[0]?.question).toMatch(/\w/);
    expect(turns[0]?.answer.length).toBeGreaterThan(20);
    expect(turns[0]?.sources[0]).toMatch(/^https:\/\//);
  });
});
