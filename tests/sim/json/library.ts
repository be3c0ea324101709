/**
 * The simulated perplexity.ai's library (issue 29): the person's threads as the web app lists,
 * searches and pages them, their Spaces, and each thread's JSON paged by cursor. Built from the
 * shapes in lib/selectors/library/library-json.ts (NOTES §B, §D, §F of the real-perplexity folder),
 * in our own words and data: nothing of a capture is copied here.
 *
 *   POST /rest/thread/list_ask_threads?version=2.18&source=default   {limit, offset, ascending, search_term[, collection_uuid]}
 *        → a bare array, newest first; every item repeats `total_threads`; a GET answers 400, a request
 *          without the app's headers 200 with `[]` (as the site does)
 *   GET  /rest/collections/list_user_collections?limit&offset          → the Spaces
 *   GET  /rest/collections/list_collection_threads?collection_slug&limit&offset → a Space's threads
 *   GET  /rest/thread/<slug>?…&limit=N[&cursor=C]                     → at most `pageCap` entries a page,
 *        `next_cursor` until the last; Aug 2026 entries (`blocks[]`) or Feb 2026 ones (`text`, a JSON string). The
 *        `text` string comes only to a request without `with_schematized_response=true`: with it, the site returns
 *        the structured shape without `entries[].text` (NOTES §B, VSCode-Perplexity-MCP 2026-05-11), so a Feb 2026
 *        thread's entries then carry `blocks[]` as the Aug ones do; without it no entry carries `blocks[]`
 *
 * Failures a client must live with: 401 when signed out, 404 `{"error": "Thread not found"}`, 429 with
 * `Retry-After` (every Nth thread request, or queued for a path), a thread whose body has no `entries`.
 */
import { REQUIRED_HEADERS } from './thread-json';
import type { SimRequest, SimResponse } from '../site';

/** How a thread's entries come back: `text-2026-02` as `text` to a request without `with_schematized_response=true`, as `blocks[]` to one with it. */
export type LibraryShape = 'blocks-2026-08' | 'text-2026-02' | 'unknown';

export interface LibraryTurn {
  question: string;
  answer: string;
  sources: { name: string; url: string }[];
}

export interface LibraryThreadData {
  slug: string;
  uuid: string;
  title: string;
  /** ms since epoch */
  created: number;
  lastActivity: number;
  searchMode: string;
  model: string;
  space?: string;
  shape: LibraryShape;
  turns: LibraryTurn[];
}

export interface LibrarySpace {
  uuid: string;
  title: string;
  slug: string;
}

export interface LibrarySeed {
  /** How many threads (default 30). */
  threads?: number;
  /** Turns of every thread but the long one (default 2). */
  turns?: number;
  /** The thread `long-thread-…` with this many turns (default 25; 0 for none). */
  longTurns?: number;
  /** The newest thread's last activity (default 2026-12-01T12:00:00Z); each next one an hour older. */
  newest?: number;
}

const SPACES: LibrarySpace[] = [
  { uuid: '5b0a8c1e-0001-4c1a-9d00-5a1ce0000001', title: 'Garden Notes', slug: 'garden-notes-Qm1xk2' },
  { uuid: '5b0a8c1e-0002-4c1a-9d00-5a1ce0000002', title: 'Trip to Lisbon', slug: 'trip-to-lisbon-Zt7pa9' },
];

const SUBJECTS = ['tomato blight', 'sourdough starter', 'Lisbon trams', 'solar panels', 'octopus cognition', 'Roman roads', 'tide pools', 'violin varnish', 'compost heat', 'fado history'];
const ASKS = ['What causes', 'How to fix', 'A short history of', 'Best sources on', 'Explain'];

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The site's times carry no zone (NOTES §F: `last_query_datetime`). */
const siteTime = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '');

function turnsFor(slug: string, n: number, subject: string): LibraryTurn[] {
  return Array.from({ length: n }, (_, i) => ({
    question: i === 0 ? `${subject}?` : `Follow-up ${i + 1} on ${subject}: what else?`,
    answer: `**${subject}**, part ${i + 1} [1].\n\n## Notes\n\n- first point [2]\n- second point [1][2]\n\n\`\`\`\ncode ${i + 1}\n\`\`\``,
    sources: [
      { name: `${subject} — overview ${i + 1}`, url: `https://example.org/${slug}/${i + 1}/a` },
      { name: `Notes [${i + 1}] on ${subject}`, url: `https://example.net/${slug}/${i + 1}/b` },
    ],
  }));
}

/** The library's threads for a seed: deterministic, newest first, every third in the Feb 2026 shape. */
export function seedLibrary(seed: LibrarySeed = {}): LibraryThreadData[] {
  const count = seed.threads ?? 30;
  const newest = seed.newest ?? Date.parse('2026-12-01T12:00:00Z');
  const out: LibraryThreadData[] = [];
  for (let i = 0; i < count; i++) {
    const subject = `${ASKS[i % ASKS.length]} ${SUBJECTS[i % SUBJECTS.length]} ${i + 1}`;
    const long = i === 1 && (seed.longTurns ?? 25) > 0;
    const slug = long ? 'long-thread-Lg25tn' : `${subject.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-T${String(i).padStart(4, '0')}`;
    const lastActivity = newest - i * HOUR_MS;
    const space = i % 5 === 2 ? SPACES[0] : i % 5 === 4 ? SPACES[1] : undefined;
    out.push({
      slug,
      uuid: `0d1e${String(i).padStart(4, '0')}-1111-4222-8333-${String(i).padStart(12, '0')}`,
      title: long ? 'A long conversation about tide pools' : subject,
      created: lastActivity - 2 * DAY_MS,
      lastActivity,
      searchMode: i % 7 === 3 ? 'RESEARCH' : 'SEARCH',
      model: i % 2 ? 'claude-sonnet' : 'turbo',
      ...(space ? { space: space.slug } : {}),
      shape: i % 3 === 2 && !long ? 'text-2026-02' : 'blocks-2026-08',
      turns: turnsFor(slug, long ? (seed.longTurns ?? 25) : (seed.turns ?? 2), subject),
    });
  }
  return out;
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): SimResponse {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value), headers: { 'cache-control': 'no-store', ...headers } };
}

function webResults(turn: LibraryTurn) {
  return turn.sources.map((s) => ({ name: s.name, url: s.url, snippet: `About ${s.name}.` }));
}

function entryOf(t: LibraryThreadData, turn: LibraryTurn, i: number, schematized: boolean): Record<string, unknown> {
  const at = siteTime(t.created + i * 60_000);
  const common = {
    uuid: `${t.uuid.slice(0, 24)}${String(i).padStart(12, '0')}`,
    backend_uuid: `${t.uuid.slice(0, 24)}${String(i + 1000).padStart(12, '0')}`,
    context_uuid: t.uuid,
    query_str: turn.question,
    display_model: t.model,
    search_mode: t.searchMode,
    mode: 'COPILOT',
    status: 'COMPLETED',
    thread_title: t.title,
    thread_url_slug: t.slug,
    entry_created_datetime: `${at}+00:00`,
    updated_datetime: i === t.turns.length - 1 ? siteTime(t.lastActivity) : at,
  };
  // A request without the flag gets no blocks at all (NOTES §B, perplexity-client 2026-08-01: "requested bare, returns
  // entries with no blocks"); a Feb 2026 thread's entries then carry their legacy `text`.
  if (!schematized) return t.shape === 'text-2026-02' ? { ...common, text: JSON.stringify({ answer: turn.answer, web_results: webResults(turn) }) } : common;
  return {
    ...common,
    blocks: [
      { intended_usage: 'ask_text', markdown_block: { progress: 'DONE', answer: turn.answer, chunks: [turn.answer] } },
      { intended_usage: 'web_results', web_result_block: { progress: 'DONE', web_results: webResults(turn) } },
    ],
  };
}

export class SimLibrary {
  threads: LibraryThreadData[] = [];
  spaces: LibrarySpace[] = SPACES.map((s) => ({ ...s }));
  /** Entries a thread JSON page holds at most, whatever `limit` asks (a 25-turn thread spans three pages). */
  pageCap = 10;
  /** The tab is signed out: every library request answers 401. */
  signedOut = false;
  /** Every Nth thread JSON request answers 429 with this Retry-After (seconds; '' for none). */
  rateLimit: { every: number; retryAfter: string } | null = null;
  private readonly queued: { path: string; status: number; headers: Record<string, string> }[] = [];
  /** Requests seen, by path. */
  readonly requests = new Map<string, number>();
  private threadRequests = 0;

  seed(seed: LibrarySeed = {}): this {
    this.threads = seedLibrary(seed);
    return this;
  }

  thread(slug: string): LibraryThreadData | undefined {
    return this.threads.find((t) => t.slug === slug);
  }

  /** A new turn in a thread, now its last activity (the export's resume sees it changed). */
  bump(slug: string, at: number = Date.now()): void {
    const t = this.thread(slug);
    if (!t) throw new Error(`no library thread ${slug}`);
    t.turns.push({ question: `Bumped at ${siteTime(at)}?`, answer: 'A new answer [1].', sources: [{ name: 'New source', url: `https://example.org/${slug}/bump` }] });
    t.lastActivity = at;
  }

  /** The next request to `path` answers `status` (a 429 with `retry-after`, a 404, a 500…). */
  failNext(path: string, status: number, headers: Record<string, string> = {}): void {
    this.queued.push({ path, status, headers });
  }

  count(path: string): number {
    return this.requests.get(path) ?? 0;
  }

  private sorted(): LibraryThreadData[] {
    return [...this.threads].sort((a, b) => b.lastActivity - a.lastActivity);
  }

  private itemOf(t: LibraryThreadData, total: number, hasNext: boolean): Record<string, unknown> {
    const space = t.space ? this.spaces.find((s) => s.slug === t.space) : undefined;
    const first = t.turns[0];
    return {
      uuid: t.uuid,
      context_uuid: t.uuid,
      frontend_context_uuid: `f${t.uuid.slice(1)}`,
      slug: t.slug,
      title: t.title,
      query_str: first?.question ?? '',
      last_query_datetime: siteTime(t.lastActivity),
      mode: 'copilot',
      display_model: t.model,
      first_answer: JSON.stringify({ answer: first?.answer ?? '' }),
      answer_preview: (first?.answer ?? '').slice(0, 80),
      status: 'COMPLETED',
      thread_status: 'completed',
      thread_access: 1,
      query_count: t.turns.length,
      has_next_page: hasNext,
      total_threads: total,
      ...(space ? { collection: { uuid: space.uuid, title: space.title, slug: space.slug } } : {}),
    };
  }

  private page(list: LibraryThreadData[], limit: number, offset: number): Record<string, unknown>[] {
    const slice = list.slice(offset, offset + limit);
    return slice.map((t) => this.itemOf(t, list.length, offset + slice.length < list.length));
  }

  /** The library's answer to a request, or null when it is not one of its routes. */
  handle(method: string, url: URL, req: SimRequest): SimResponse | null {
    const path = url.pathname;
    const thread = /^\/rest\/thread\/([^/]+)$/.exec(path);
    const slug = thread ? decodeURIComponent(thread[1] as string) : undefined;
    // A thread the library does not hold is left to the sim's other threads (task-routes.ts answers 404 for none).
    const ours =
      path === '/rest/thread/list_ask_threads' ||
      path.startsWith('/rest/collections/') ||
      (slug !== undefined && (this.thread(slug) !== undefined || this.queued.some((q) => q.path === path)));
    if (!ours) return null;
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    const queued = this.queued.findIndex((q) => q.path === path);
    if (queued >= 0) {
      const [q] = this.queued.splice(queued, 1);
      return json(q?.status ?? 500, { error: 'simulated failure', status: 'error' }, q?.headers);
    }
    if (this.signedOut) return json(401, { error: 'Unauthorized', status: 'error' });
    const headersOk = Object.entries(REQUIRED_HEADERS).every(([k, v]) => req.headers?.[k] === v);
    const num = (name: string, fallback: number, max: number) => {
      const n = Number(url.searchParams.get(name));
      return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
    };
    if (path === '/rest/thread/list_ask_threads') {
      if (method !== 'POST') return json(400, { error: 'Bad request', status: 'error' });
      if (!headersOk) return json(200, []);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
      } catch {
        return json(400, { error: 'Bad request', status: 'error' });
      }
      const limit = Math.min(100, Math.max(1, Number(body.limit) || 20));
      const offset = Math.max(0, Number(body.offset) || 0);
      const term = String(body.search_term ?? '').trim().toLowerCase();
      const space = body.collection_uuid ? this.spaces.find((s) => s.uuid === body.collection_uuid) : undefined;
      if (body.collection_uuid && !space) return json(200, []);
      let list = this.sorted();
      if (space) list = list.filter((t) => t.space === space.slug);
      if (term) list = list.filter((t) => t.title.toLowerCase().includes(term) || t.turns.some((x) => x.question.toLowerCase().includes(term)));
      if (body.ascending === true) list.reverse();
      return json(200, this.page(list, limit, offset));
    }
    if (method !== 'GET') return json(405, { error: 'Method not allowed', status: 'error' });
    if (path === '/rest/collections/list_user_collections') {
      const limit = num('limit', 30, 100);
      const offset = num('offset', 0, 1e6);
      return json(
        200,
        this.spaces.slice(offset, offset + limit).map((s) => ({ uuid: s.uuid, title: s.title, description: '', emoji: '', slug: s.slug, access: 1, created_at: siteTime(Date.parse('2026-01-05T09:00:00Z')) })),
      );
    }
    if (path === '/rest/collections/list_collection_threads') {
      const space = this.spaces.find((s) => s.slug === url.searchParams.get('collection_slug'));
      if (!space) return json(404, { error: 'Collection not found', status: 'error' });
      const list = this.sorted().filter((t) => t.space === space.slug);
      return json(200, this.page(list, num('limit', 20, 100) || 20, num('offset', 0, 1e6)));
    }
    if (slug === undefined) return null;
    this.threadRequests += 1;
    if (this.rateLimit && this.threadRequests % this.rateLimit.every === 0) {
      return json(429, { error: 'Too many requests', status: 'error' }, this.rateLimit.retryAfter ? { 'retry-after': this.rateLimit.retryAfter } : {});
    }
    const t = this.thread(slug);
    if (!t) return json(404, { error: 'Thread not found', status: 'error' });
    const meta = {
      title: t.title,
      created_at: siteTime(t.created),
      updated_at: siteTime(t.lastActivity),
      mode: '2',
      thread_status: 'completed',
      collection_info: t.space ? (({ uuid, title, slug: s }) => ({ uuid, title, slug: s }))(this.spaces.find((s) => s.slug === t.space) as LibrarySpace) : null,
    };
    if (t.shape === 'unknown') return json(200, { status: 'success', thread_metadata: meta, items: [] });
    const limit = Math.min(this.pageCap, Math.max(1, num('limit', 10, 100) || 10));
    const cursor = url.searchParams.get('cursor');
    const offset = cursor ? Number(/^c(\d+)$/.exec(cursor)?.[1] ?? Number.NaN) : 0;
    if (!Number.isInteger(offset)) return json(400, { error: 'Bad cursor', status: 'error' });
    const schematized = url.searchParams.get('with_schematized_response') === 'true';
    const entries = t.turns.slice(offset, offset + limit).map((turn, i) => entryOf(t, turn, offset + i, schematized));
    const more = offset + limit < t.turns.length;
    return json(200, { status: 'success', entries, background_entries: [], has_next_page: more, next_cursor: more ? `c${offset + limit}` : null, thread_metadata: meta });
  }
}
