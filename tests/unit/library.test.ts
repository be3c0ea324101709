import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RelayError } from '../../lib/protocol/errors';
import { threadMarkdown } from '../../lib/protocol/library/markdown';
import { LibraryJsonReaderSchema, libraryJson2026 } from '../../lib/selectors/library/library-json';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { exportThread, type FetchRequest, type LibraryFetch, listLibrary, retryAfterMs } from '../../lib/worker/threads/library';
import { SimLibrary } from '../sim/json/library';
import { fakeThreadCalls, type PageScript } from '../support/fake-tabs';
import { pageHandlers } from '../../lib/page/handlers';
import { post } from '../../lib/page/kits/panel-kit';
import { parsePack } from '../../lib/packs/parse';
import { THREAD_PAGE_READERS } from '../../lib/selectors/thread-page';
import { ACCOUNT_JSON_READERS } from '../../lib/selectors/account-json';
import type { AccountJsonReader, ThreadPageReader } from '../../lib/selectors/thread-schema';

/**
 * The library's reads (lib/worker/threads/library.ts) against the simulated site's library
 * (tests/sim/json/library.ts, built from the real shapes) and against the real thread JSON captures.
 */
const readers = { library: libraryJson2026, thread: threadJson2026 };
const ORIGIN = 'https://www.perplexity.ai';

/** What a Perplexity tab's `threads.fetch` does, against the sim's library. */
function siteFetch(lib: SimLibrary, seen: FetchRequest[] = []): LibraryFetch {
  return async (request) => {
    seen.push(request);
    const url = new URL(request.path, ORIGIN);
    for (const [k, v] of Object.entries(request.query)) if (v !== '') url.searchParams.set(k, v);
    const res = lib.handle(request.method ?? 'GET', url, { method: request.method ?? 'GET', url: url.href, headers: request.headers, ...(request.body ? { body: request.body } : {}) });
    if (!res) return { status: 404, body: '{"error":"not the library"}' };
    const retryAfter = res.headers?.['retry-after'];
    return { status: res.status, body: String(res.body), ...(retryAfter ? { retryAfter } : {}) };
  };
}

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: RelayError) => e);

describe('the library reader', () => {
  it('is valid data, dated, with same-origin paths', () => {
    expect(LibraryJsonReaderSchema.parse(libraryJson2026)).toBeTruthy();
    expect(libraryJson2026.checked).toMatch(/^2026-12-04/);
  });
});

describe('library.list', () => {
  it('asks the site`s list by POST with the app`s headers, newest first, and says where the next page starts', async () => {
    const lib = new SimLibrary().seed({ threads: 30 });
    const seen: FetchRequest[] = [];
    const page = await listLibrary({ limit: 20, offset: 0 }, siteFetch(lib, seen), readers);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/rest/thread/list_ask_threads', headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' } });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ ascending: false, limit: 20, offset: 0, search_term: '' });
    expect(page.threads).toHaveLength(20);
    expect(page).toMatchObject({ total: 30, offset: 0, nextOffset: 20 });
    const first = page.threads[0];
    // The sim's list says `mode: "COPILOT"` as the site's always does (NOTES §B): no mode, said as none (review 14b, F4).
    expect(first).toMatchObject({ title: lib.threads[0]?.title, url: `${ORIGIN}/search/${lib.threads[0]?.slug}`, lastActivity: '2026-12-01T12:00:00.000Z', mode: null });
    const times = page.threads.map((t) => t.lastActivity ?? '');
    expect([...times].sort().reverse()).toEqual(times);
    const rest = await listLibrary({ limit: 20, offset: 20 }, siteFetch(lib), readers);
    expect(rest).toMatchObject({ total: 30, offset: 20, nextOffset: null });
    expect(rest.threads).toHaveLength(10);
  });

  it('searches with the site`s own search', async () => {
    const lib = new SimLibrary().seed({ threads: 30 });
    const seen: FetchRequest[] = [];
    const page = await listLibrary({ query: 'Lisbon trams', limit: 20, offset: 0 }, siteFetch(lib, seen), readers);
    expect(JSON.parse(seen[0]?.body ?? '').search_term).toBe('Lisbon trams');
    expect(page.threads.length).toBe(3);
    expect(page.threads.every((t) => t.title.includes('Lisbon trams'))).toBe(true);
    expect(page).toMatchObject({ total: 3, nextOffset: null });
  });

  it('filters by a Space given by title or slug, through its own list; with a search, by its uuid in the list', async () => {
    const lib = new SimLibrary().seed({ threads: 30 });
    const seen: FetchRequest[] = [];
    const byTitle = await listLibrary({ space: 'garden notes', limit: 4, offset: 0 }, siteFetch(lib, seen), readers);
    expect(seen.map((r) => r.path)).toEqual(['/rest/collections/list_user_collections', '/rest/collections/list_collection_threads']);
    expect(seen[1]?.query.collection_slug).toBe('garden-notes-Qm1xk2');
    expect(byTitle.threads).toHaveLength(4);
    expect(byTitle.threads.every((t) => t.space === 'Garden Notes')).toBe(true);
    expect(byTitle).toMatchObject({ total: 6, nextOffset: 4 });
    const bySlug = await listLibrary({ space: 'trip-to-lisbon-Zt7pa9', query: 'history', limit: 20, offset: 0 }, siteFetch(lib), readers);
    expect(bySlug.threads.length).toBeGreaterThan(0);
    expect(bySlug.threads.every((t) => t.space === 'Trip to Lisbon' && /history/i.test(t.title))).toBe(true);
  });

  it('names the Spaces there are when none matches', async () => {
    const lib = new SimLibrary().seed({ threads: 3 });
    const e = await failure(listLibrary({ space: 'Taxes', limit: 20, offset: 0 }, siteFetch(lib), readers));
    expect(e).toMatchObject({ code: 'INVALID_PARAMS' });
    expect(e?.message).toMatch(/No Space .*"Taxes".*"Garden Notes", "Trip to Lisbon"/);
  });

  it('keeps threads active since a day, and stops paging at the first older one', async () => {
    const lib = new SimLibrary().seed({ threads: 100 });
    const page = await listLibrary({ since: '2026-11-30', limit: 100, offset: 0 }, siteFetch(lib), readers);
    // The newest is 2026-12-01T12:00 and each next an hour older: 12 + 24 + 1 hours reach back to 11-30T00:00.
    expect(page.threads).toHaveLength(37);
    expect(page).toMatchObject({ total: null, nextOffset: null });
  });

  it('fails with named errors: signed out, rate-limited (with the wait), a body of another shape', async () => {
    const lib = new SimLibrary().seed({ threads: 3 });
    lib.signedOut = true;
    expect(await failure(listLibrary({ limit: 20, offset: 0 }, siteFetch(lib), readers))).toMatchObject({ code: 'SIGNED_OUT' });
    lib.signedOut = false;
    lib.failNext('/rest/thread/list_ask_threads', 429, { 'retry-after': '7' });
    const limited = await failure(listLibrary({ limit: 20, offset: 0 }, siteFetch(lib), readers));
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', data: { retryAfterMs: 7000 } });
    const shape = await failure(listLibrary({ limit: 20, offset: 0 }, async () => ({ status: 200, body: '{"threads": {}}' }), readers));
    expect(shape).toMatchObject({ code: 'JSON_SHAPE' });
    expect(shape?.message).toMatch(/no list of threads at \[\] or threads\[\]/);
    const noSlug = await failure(listLibrary({ limit: 20, offset: 0 }, async () => ({ status: 200, body: '[{"title": "x"}]' }), readers));
    expect(noSlug).toMatchObject({ code: 'JSON_SHAPE' });
    expect(noSlug?.message).toMatch(/without a slug at slug/);
  });

  it('an empty library is an empty page, not an error', async () => {
    expect(await listLibrary({ limit: 20, offset: 0 }, siteFetch(new SimLibrary()), readers)).toEqual({ threads: [], total: 0, offset: 0, nextOffset: null });
  });
});

describe('library.thread', () => {
  it('reads a 25-turn thread whole across three JSON pages, following next_cursor', async () => {
    const lib = new SimLibrary().seed({ threads: 5, longTurns: 25 });
    const seen: FetchRequest[] = [];
    const t = await exportThread('https://www.perplexity.ai/search/long-thread-Lg25tn', siteFetch(lib, seen), readers);
    expect(seen.map((r) => r.query.cursor ?? null)).toEqual([null, 'c10', 'c20']);
    expect(seen[0]?.query).toMatchObject({ from_first: 'true', limit: '100' });
    expect(t.pages).toBe(3);
    expect(t.turns).toHaveLength(25);
    const data = lib.thread('long-thread-Lg25tn');
    expect(t.turns.map((x) => x.question)).toEqual(data?.turns.map((x) => x.question));
    expect(t.turns[24]?.answer).toBe(data?.turns[24]?.answer);
    expect(t.turns[24]?.sources).toEqual(data?.turns[24]?.sources.map((s, i) => ({ n: i + 1, title: s.name, url: s.url })));
    expect(t).toMatchObject({ slug: 'long-thread-Lg25tn', title: 'A long conversation about tide pools', mode: 'search', model: 'claude-sonnet', space: null });
    expect(t.created).toMatch(/Z$/);
    expect(t.updated).toBe(new Date(data?.lastActivity ?? 0).toISOString());
    expect(threadMarkdown(t)).toContain('## 25. Follow-up 25 on');
  });

  it('reads the Feb 2026 shape (text, a JSON string) and a Space', async () => {
    const lib = new SimLibrary().seed({ threads: 6 });
    const feb = lib.threads.find((x) => x.shape === 'text-2026-02' && x.space);
    // The reader always asks with with_schematized_response=true; the `text` string is what a request without it gets.
    const bare: LibraryFetch = (request) => siteFetch(lib)({ ...request, query: { ...request.query, with_schematized_response: '' } });
    const t = await exportThread(feb?.slug ?? '', bare, readers);
    expect(t.turns.map((x) => x.answer)).toEqual(feb?.turns.map((x) => x.answer));
    expect(t.turns[0]?.sources[1]).toEqual({ n: 2, title: feb?.turns[0]?.sources[1]?.name, url: feb?.turns[0]?.sources[1]?.url });
    expect(t.space).toBe('Garden Notes');
    // Asked as the reader asks, the same thread reads the same from its blocks.
    expect(await exportThread(feb?.slug ?? '', siteFetch(lib), readers)).toEqual(t);
  });

  /** A library thread's entries as the sim serves them to a request with `query` added. */
  const entriesOf = (lib: SimLibrary, slug: string | undefined, query: string) => {
    const url = new URL(`/rest/thread/${slug}?version=2.18&source=default${query}`, ORIGIN);
    const res = lib.handle('GET', url, { method: 'GET', url: url.href, headers: libraryJson2026.headers });
    return (JSON.parse(String(res?.body)) as { entries: Record<string, unknown>[] }).entries;
  };

  it('serves entries[].text only to a request without with_schematized_response=true (NOTES §B; review 2026-12-05, sim #10)', () => {
    const lib = new SimLibrary().seed({ threads: 6 });
    const feb = lib.threads.find((x) => x.shape === 'text-2026-02');
    const entries = (query: string) => entriesOf(lib, feb?.slug, query);
    const structured = entries('&with_schematized_response=true');
    expect(structured.length).toBeGreaterThan(0);
    expect(structured.every((e) => !('text' in e) && Array.isArray(e.blocks))).toBe(true);
    const legacy = entries('');
    expect(legacy.every((e) => typeof e.text === 'string' && !('blocks' in e))).toBe(true);
  });

  it('gives an Aug 2026 thread asked without the flag entries with no blocks at all (NOTES §B: "requested bare")', () => {
    const lib = new SimLibrary().seed({ threads: 6 });
    const aug = lib.threads.find((x) => x.shape === 'blocks-2026-08');
    const entries = (query: string) => entriesOf(lib, aug?.slug, query);
    expect(entries('&with_schematized_response=true').every((e) => Array.isArray(e.blocks))).toBe(true);
    const bare = entries('');
    expect(bare.length).toBeGreaterThan(0);
    expect(bare.every((e) => !('blocks' in e) && !('text' in e))).toBe(true);
  });

  it('says which turn the site still writes, never passing its partial answer off as whole', async () => {
    const body = { entries: [{ query_str: 'done', status: 'COMPLETED', blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: 'Done.' } }] }, { query_str: 'going', status: 'PENDING', blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Half an ans'] } }] }] };
    const t = await exportThread('x', async () => ({ status: 200, body: JSON.stringify(body) }), readers);
    expect(t.turns.map((x) => x.running)).toEqual([undefined, true]);
    expect(t.turns[1]?.answer).toBe('Half an ans');
    expect(threadMarkdown(t)).toContain('## 2. going\n\nHalf an ans\n\n*(Still being written when this was exported: the answer above is not the whole.)*');
  });

  it('stops at a cursor that repeats', async () => {
    let calls = 0;
    const body = (cursor: string | null) => JSON.stringify({ entries: [{ query_str: `q${calls}`, blocks: [] }], next_cursor: cursor });
    const t = await exportThread('x', async () => ({ status: 200, body: body(++calls < 5 ? 'same' : null) }), readers);
    expect(calls).toBe(2);
    expect(t.turns.map((x) => x.question)).toEqual(['q1', 'q2']);
  });

  it('a page that says more follow but gives no new cursor fails as a cut thread, not the turns so far as whole (review 15e, F6)', async () => {
    const page = (next: string | null, more: boolean) => JSON.stringify({ entries: [{ query_str: 'q', status: 'COMPLETED', blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: 'a' } }] }], has_next_page: more, next_cursor: next });
    const cut = /^thread "x": page 1 of its JSON says more entries follow but gives no new cursor at next_cursor or thread_metadata\.next_cursor \(reader library-json-2026-12\); it was not exported rather than exported cut\. Try again later;.*comet-relay selectors add/;
    expect(await failure(exportThread('x', async () => ({ status: 200, body: page(null, true) }), readers))).toMatchObject({ code: 'JSON_SHAPE', message: expect.stringMatching(cut) });
    // A cursor given before is no way on either.
    let calls = 0;
    const again = await failure(exportThread('x', async () => ({ status: 200, body: page('same', ++calls < 5) }), readers));
    expect([again?.code, again?.message]).toEqual(['JSON_SHAPE', expect.stringMatching(/page 2 of its JSON says more entries follow but gives no new cursor/)]);
    // The real bodies' end: `has_next_page: false`, `next_cursor: null`.
    expect((await exportThread('x', async () => ({ status: 200, body: page(null, false) }), readers)).pages).toBe(1);
  });

  it('fails with named errors, never a partial thread', async () => {
    const lib = new SimLibrary().seed({ threads: 3, longTurns: 25 });
    expect(await failure(exportThread('no/such', siteFetch(lib), readers))).toMatchObject({ code: 'INVALID_PARAMS' });
    expect(await failure(exportThread('https://evil.example/search/x', siteFetch(lib), readers))).toMatchObject({ code: 'INVALID_PARAMS' });
    lib.failNext('/rest/thread/gone-Ab12', 404);
    expect(await failure(exportThread('gone-Ab12', siteFetch(lib), readers))).toMatchObject({ code: 'THREAD_NOT_FOUND' });
    lib.signedOut = true;
    expect(await failure(exportThread('long-thread-Lg25tn', siteFetch(lib), readers))).toMatchObject({ code: 'SIGNED_OUT' });
    lib.signedOut = false;
    // A 429 on the second page: the whole export fails (and says how long to wait), it does not come back with ten turns.
    lib.rateLimit = { every: 2, retryAfter: '3' };
    expect(await failure(exportThread('long-thread-Lg25tn', siteFetch(lib), readers))).toMatchObject({ code: 'RATE_LIMITED', data: { retryAfterMs: 3000 } });
    lib.rateLimit = null;
    const broken = lib.threads[0];
    if (broken) broken.shape = 'unknown';
    const shape = await failure(exportThread(broken?.slug ?? '', siteFetch(lib), readers));
    expect(shape).toMatchObject({ code: 'JSON_SHAPE' });
    expect(shape?.message).toMatch(/no list of entries at entries/);
    const entry = await failure(exportThread('x', async () => ({ status: 200, body: '{"entries": [{"query_str": "q"}]}' }), readers));
    expect(entry).toMatchObject({ code: 'JSON_SHAPE' });
    expect(await failure(exportThread('x', async () => ({ status: 200, body: '' }), readers))).toMatchObject({ code: 'RATE_LIMITED' });
    // The shape the endpoint answers after many requests: never a thread of no turns, which a later run would count
    // unchanged (day-2 review H3).
    expect(await failure(exportThread('x', async () => ({ status: 200, body: '{"entries": []}' }), readers))).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/with no entries, as it does while rate-limiting/),
    });
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('12')).toBe(12_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('library: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; skipping the exports of them.');

describe.skipIf(!present)('the real thread JSON captures, exported whole', () => {
  const read = (name: string) => readFileSync(join(folder, name), 'utf8');
  /** A real body served one entry a page, each page pointing at the next (the paging is ours; the entries are the site's). */
  const paged = (name: string): LibraryFetch => {
    const whole = JSON.parse(read(name)) as { entries: unknown[] };
    return async (request) => {
      const at = Number(request.query.cursor ?? 0);
      const next = at + 1 < whole.entries.length ? String(at + 1) : null;
      return { status: 200, body: JSON.stringify({ ...whole, entries: whole.entries.slice(at, at + 1), next_cursor: next, has_next_page: next !== null }) };
    };
  };

  it('a finished turn whose answer moved where no path looks fails as a shape the reader does not know, never "(no answer)" (review 13c, F7)', async () => {
    const body = JSON.parse(read('thread-json-perplexity-client-multiturn-2026-08-01.json')) as { entries: { status: string; blocks: Record<string, unknown>[] }[] };
    // The drift: the answer block's body renamed, as the site moved its answer three times in 2026 (thread-json.ts).
    for (const block of body.entries.flatMap((e) => e.blocks)) {
      if (block.intended_usage !== 'ask_text') continue;
      block.markdown_block_v2 = block.markdown_block;
      delete block.markdown_block;
    }
    expect(body.entries.every((e) => e.status === 'COMPLETED')).toBe(true);
    const outcome = await failure(exportThread('d236db28-526f-49a1-9a21-faa33c3ad928', async () => ({ status: 200, body: JSON.stringify(body) }), readers));
    expect(outcome).toMatchObject({ code: 'JSON_SHAPE', message: expect.stringMatching(/entry 1 says it finished but holds no answer at .* \(readers thread-json-2026-12, library-json-2026-12\): add a thread JSON reader/) });
  });

  it('the two-turn search thread of 2026-08-01: both turns, answers as written, sources numbered as cited', async () => {
    const t = await exportThread('d236db28-526f-49a1-9a21-faa33c3ad928', paged('thread-json-perplexity-client-multiturn-2026-08-01.json'), readers);
    expect(t.pages).toBe(2);
    expect(t.turns).toHaveLength(2);
    expect(t.title).toBe('what is the capital of Australia and why is it not Sydney');
    expect(t).toMatchObject({ mode: 'search', model: 'turbo', created: '2026-08-01T13:08:23.763867Z', space: null });
    const first = t.turns[0];
    expect(first?.question).toBe('what is the capital of Australia and why is it not Sydney');
    expect(first?.answer.startsWith('The capital of Australia is **Canberra**, not Sydney.[1][2][3]')).toBe(true);
    expect(first?.sources[0]).toEqual({ n: 1, title: 'Canberra - Wikipedia', url: 'https://en.wikipedia.org/wiki/Canberra' });
    // Every citation in every answer names a listed source.
    for (const turn of t.turns) {
      const cited = [...turn.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(cited.length).toBeGreaterThan(0);
      for (const n of cited) expect(turn.sources.some((s) => s.n === n), `[${n}]`).toBe(true);
    }
    expect(t.turns[1]?.answer.length).toBeGreaterThan(200);
  });

  it('the Deep Research thread of 2026-07-31', async () => {
    const t = await exportThread('research', paged('thread-json-perplexity-client-research-resume-2026-07-31.json'), readers);
    expect(t.turns).toHaveLength(1);
    expect(t).toMatchObject({ mode: 'research', title: 'compare the economic policies of Australia and New Zealand since 2020' });
    expect(t.turns[0]?.answer.length).toBeGreaterThan(1000);
    expect(t.turns[0]?.sources.length).toBeGreaterThan(5);
  });

  it('the Computer threads (simulated by their authors) read as Computer', async () => {
    for (const name of ['SIMULATED-computer-thread-json-canceled-pplx-tools.json', 'SIMULATED-computer-thread-json-user-questions-pplx-tools.json']) {
      const t = await exportThread('computer', paged(name), readers);
      expect(t.turns.length, name).toBe(1);
      expect(t.mode, name).toBe('computer');
      // Their authors left the question empty ("query_str": ""): read as it is, not refused.
      expect(t.turns[0]?.question, name).toBe('');
    }
  });
});

describe('through the worker`s thread calls', () => {
  const PERSON = { id: 1, url: 'https://www.perplexity.ai/search/the-person-s-thread-Ab1' };
  const page = (lib: SimLibrary): PageScript => async (_tab, method, params) => {
    if (method === 'library.post') return siteFetch(lib)({ ...(params as unknown as FetchRequest), method: 'POST' });
    if (method !== 'threads.fetch') throw new Error(`unexpected ${method}`);
    return siteFetch(lib)(params as unknown as FetchRequest);
  };

  it('fetch through the person`s open Perplexity tab, which never moves, and open no tab', async () => {
    const lib = new SimLibrary().seed({ threads: 30, longTurns: 25 });
    const { calls, tabs, requests, navigations } = fakeThreadCalls(page(lib), { initial: [PERSON], connected: () => [1] });
    const list = (await calls.call('library.list', { limit: 5, offset: 0 }, new AbortController().signal, () => {})) as { threads: unknown[] };
    expect(list.threads).toHaveLength(5);
    const whole = (await calls.call('library.thread', { thread: 'long-thread-Lg25tn' }, new AbortController().signal, () => {})) as { turns: unknown[] };
    expect(whole.turns).toHaveLength(25);
    expect(tabs).toEqual([PERSON]);
    expect(navigations).toEqual([]);
    expect(requests.every((r) => r.tabId === 1)).toBe(true);
    expect(requests.map((r) => r.method)).toEqual(['library.post', 'threads.fetch', 'threads.fetch', 'threads.fetch']);
  });

  it('with no Perplexity tab open, one background tab of ours at home fetches', async () => {
    const lib = new SimLibrary().seed({ threads: 3 });
    const { calls, tabs, navigations } = fakeThreadCalls(page(lib), { connected: () => [] });
    const list = (await calls.call('library.list', { limit: 20, offset: 0 }, new AbortController().signal, () => {})) as { threads: unknown[] };
    expect(list.threads).toHaveLength(3);
    expect(tabs.map((t) => t.url)).toEqual(['https://www.perplexity.ai/']);
    expect(navigations).toEqual([]);
  });
});

describe('the page`s POST (the panel kit`s library.post)', () => {
  const fetched: { url: string; init: RequestInit }[] = [];
  const win = {
    location: { origin: ORIGIN },
    fetch: async (url: string, init: RequestInit) => {
      fetched.push({ url, init });
      return new Response('[]', { status: 429, headers: { 'retry-after': '9' } });
    },
  } as unknown as Window;
  const signal = new AbortController().signal;

  it('goes to a fixed /rest/ endpoint only, with a small JSON object, and hands back a 429`s Retry-After', async () => {
    const ok = await post(win, { path: '/rest/thread/list_ask_threads', query: { version: '2.18' }, headers: { 'x-app-apiclient': 'default' }, body: '{"limit":20}' }, signal);
    expect(ok).toMatchObject({ status: 429, retryAfter: '9' });
    expect(fetched[0]?.url).toBe(`${ORIGIN}/rest/thread/list_ask_threads?version=2.18`);
    expect(fetched[0]?.init).toMatchObject({ method: 'POST', body: '{"limit":20}', credentials: 'include' });
    expect(new Headers(fetched[0]?.init.headers ?? {}).get('content-type')).toBe('application/json');
    for (const bad of [
      { path: '/rest/thread/some-slug-1', body: '{}' },
      { path: '/rest/thread/delete_threads', body: '{}' },
      { path: '/rest/thread/mark_viewed', body: '{}' },
      { path: '/search/x', body: '{}' },
      { path: '//evil.example/rest/a', body: '{}' },
      { path: '/rest/thread/list_ask_threads', body: '[1]' },
      { path: '/rest/thread/list_ask_threads', body: 'x' },
      { path: '/rest/thread/list_ask_threads', body: `{"a":"${'x'.repeat(5000)}"}` },
    ]) {
      await expect(post(win, { ...bad, query: {}, headers: {} }, signal)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    }
    expect(fetched).toHaveLength(1);
  });

  it('the page script`s own fetch stays a GET', async () => {
    const get = pageHandlers(win)['threads.fetch'] as unknown as (p: unknown, c: { signal: AbortSignal; progress(): void }) => Promise<unknown>;
    expect(await get({ path: '/rest/thread/x', query: {}, headers: {}, method: 'POST', body: '{}' }, { signal, progress() {} })).toMatchObject({ status: 429, retryAfter: '9' });
    expect(fetched[1]?.init.method).toBeUndefined();
    expect(fetched[1]?.init.body).toBeUndefined();
  });
});

describe('a changed endpoint is a pack, not a release', () => {
  it('a library reader added as a file is checked like the others, and the worker asks where it says', async () => {
    const moved = { ...libraryJson2026, name: 'library-json-2027-01', list: { ...libraryJson2026.list, path: '/rest/library/list_threads' } };
    expect(parsePack({ kind: 'library-json-reader', reader: moved })).toMatchObject({ ok: true });
    const offsite = { ...moved, thread: { ...moved.thread, path: '//evil.example/{slug}' } };
    expect(parsePack({ kind: 'library-json-reader', reader: offsite })).toMatchObject({ ok: false });
    // The list is POSTed to: a pack cannot point it at an endpoint that changes anything.
    const deleting = { ...moved, list: { ...moved.list, path: '/rest/thread/delete_threads' } };
    expect(parsePack({ kind: 'library-json-reader', reader: deleting })).toMatchObject({ ok: false, problems: [expect.stringMatching(/list endpoint under \/rest\//)] });
    const asked: string[] = [];
    const { calls } = fakeThreadCalls(
      async (_tab, _method, params) => {
        asked.push(String(params.path));
        return { status: 200, body: '[]' };
      },
      {
        connected: () => [1],
        initial: [{ id: 1, url: ORIGIN }],
        readers: () => ({ page: THREAD_PAGE_READERS[0] as ThreadPageReader, account: ACCOUNT_JSON_READERS[0] as AccountJsonReader, library: moved }),
      },
    );
    await calls.call('library.list', { limit: 20, offset: 0 }, new AbortController().signal, () => {});
    expect(asked).toEqual(['/rest/library/list_threads']);
  });
});
