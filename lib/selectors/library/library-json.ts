import { z } from 'zod';
import { ReaderPaths, SameOriginPath } from '../thread-schema';
import { LIBRARY_POST_PATH } from '../../protocol/urls';

/**
 * The library as the web app asks for it (issue 29): the thread list, the Spaces and a Space's
 * threads, and a whole thread paged by cursor. Dated data like the thread readers: a changed
 * endpoint or field is a change here, never in the code that fetches. Paths use the language of
 * lib/selectors/language/json-path.ts; each fact lists candidates, newest location first. Where an entry's
 * answer and sources sit is the thread JSON reader's (lib/selectors/thread-json.ts), read by both.
 *
 * Sources (NOTES.md §B, §D, §F of the real-perplexity folder, restated in lib/selectors/README.md
 * "The library"):
 * - the list: `POST /rest/thread/list_ask_threads?version=2.18&source=default` with a JSON body
 *   `{limit, ascending: false, offset, search_term}` (optionally `collection_uuid`), answered by a bare
 *   array whose items carry `slug`, `title`, `last_query_datetime` (no zone), `mode`, `display_model`,
 *   `total_threads` (the whole filtered list's count, in every item), `has_next_page`: a public HAR
 *   analysis of the web app of 2026-02-21 and several exporters (NOTES §F); without the
 *   `x-app-apiclient`/`x-app-apiversion` headers it answers 200 with `[]` (NOTES §B, 2026-05-11);
 * - Spaces: `GET /rest/collections/list_user_collections` → `[{uuid, title, slug, …}]` (same HAR
 *   analysis), a Space's threads at `GET /rest/collections/list_collection_threads?collection_slug=…`
 *   (a real response of 2025-07 in 14790897/perplexity-export's readme);
 * - a thread: `GET /rest/thread/<slug>?…&from_first=true&limit=100&cursor=<next_cursor>` while
 *   `has_next_page`, until `next_cursor` is null or repeats (the HAR analysis; pnd280/complexity pages so, NOTES §D); the
 *   real bodies of 2026-07-31 and 2026-08-01 (`thread-json-perplexity-client-*.json`) give
 *   `thread_metadata.{title, created_at, updated_at, collection_info}`, `entries[].{query_str,
 *   display_model, search_mode, entry_created_datetime, updated_datetime}`, `has_next_page`,
 *   `next_cursor`; the Feb 2026 entries hold `text`, a JSON string (`{answer, web_results}`, or the
 *   steps with a FINAL step whose `content.answer` is that string), read by Complexity (NOTES §D, §F);
 * - errors: 401 signed out, 404 `{"error": "Thread not found"}`, 429 rate-limited (NOTES §F).
 *
 * Still our guesses (2026-12-04, nothing public shows them): that list_ask_threads honours
 * `collection_uuid` together with `search_term`, the Retry-After header on a 429, and a Space's title
 * at `thread_metadata.collection_info.title`.
 */
const Paths = ReaderPaths;
const Query = z.record(z.string(), z.string());

export const LibraryJsonReaderSchema = z.looseObject({
  name: z.string().regex(/^library-json-\d{4}-\d{2}$/),
  version: z.number().int().min(1),
  checked: z.string(),
  /** Headers the web app sends with these requests (without them the list comes back empty). */
  headers: z.record(z.string(), z.string()),
  list: z.object({
    /** POSTed to: only a fixed `list_…` endpoint under /rest/ (the page refuses any other). */
    path: SameOriginPath.regex(LIBRARY_POST_PATH, 'must be a list endpoint under /rest/ (/rest/<area>/list_<what>): the only POST a tab makes for comet-relay'),
    query: Query,
    /** The JSON body's field names, and the fields it always carries. */
    body: z.object({ limit: z.string(), offset: z.string(), search: z.string(), space: z.string(), fixed: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }),
    items: Paths,
  }),
  spaces: z.object({
    path: SameOriginPath,
    query: Query,
    limitParam: z.string(),
    offsetParam: z.string(),
    pageSize: z.number().int().min(1).max(100),
    /** The most pages of Spaces read to find one by name. */
    maxPages: z.number().int().min(1).max(100),
    items: Paths,
    uuid: Paths,
    title: Paths,
    slug: Paths,
  }),
  spaceThreads: z.object({
    path: SameOriginPath,
    query: Query,
    slugParam: z.string(),
    limitParam: z.string(),
    offsetParam: z.string(),
    items: Paths,
  }),
  /** One item of any of the lists. */
  item: z.object({
    slug: Paths,
    title: Paths,
    lastActivity: Paths,
    created: Paths,
    mode: Paths,
    space: Paths,
    total: Paths,
    hasNext: Paths,
  }),
  thread: z.object({
    /** `{slug}` is the thread's slug, URL-encoded. */
    path: SameOriginPath.includes('{slug}'),
    query: Query,
    cursorParam: z.string(),
    /** The most pages one thread may have; a thread longer than this fails rather than comes back cut. */
    maxPages: z.number().int().min(1).max(10_000),
    entries: Paths,
    nextCursor: Paths,
    /** The page's word that more follow: with no new cursor, the thread is not exported (optional: older readers load). */
    hasNext: Paths.optional(),
    title: Paths,
    created: Paths,
    updated: Paths,
    space: Paths,
  }),
  entry: z.object({
    question: Paths,
    model: Paths,
    mode: Paths,
    /** Feb 2026: a JSON string holding `{answer, web_results}` (or the steps, FINAL's `content.answer` holding it). */
    legacyText: Paths,
    /** Inside it: the FINAL step's answer string, the answer and the sources. */
    legacyFinal: Paths,
    legacyAnswer: Paths,
    legacySources: Paths,
  }),
  /** The site's mode words (entries' `search_mode`, the list's `mode`) → ours; '' for a word that names no mode; a word not here is shown lower-cased. */
  modes: z.record(z.string(), z.string()),
});
export type LibraryJsonReader = z.infer<typeof LibraryJsonReaderSchema>;

const SITE = { version: '2.18', source: 'default' };

export const libraryJson2026: LibraryJsonReader = {
  name: 'library-json-2026-12',
  version: 1,
  checked: '2026-12-04 (NOTES §B, §D, §F; real thread bodies of 2026-07-31 and 2026-08-01; the simulated site)',
  headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' },
  list: {
    path: '/rest/thread/list_ask_threads',
    query: SITE,
    body: { limit: 'limit', offset: 'offset', search: 'search_term', space: 'collection_uuid', fixed: { ascending: false } },
    items: ['[]', 'threads[]'],
  },
  spaces: {
    path: '/rest/collections/list_user_collections',
    query: SITE,
    limitParam: 'limit',
    offsetParam: 'offset',
    pageSize: 30,
    maxPages: 10,
    items: ['[]', 'collections[]'],
    uuid: ['uuid'],
    title: ['title'],
    slug: ['slug'],
  },
  spaceThreads: {
    path: '/rest/collections/list_collection_threads',
    query: { filter_by_user: 'true', filter_by_shared_threads: 'false', ...SITE },
    slugParam: 'collection_slug',
    limitParam: 'limit',
    offsetParam: 'offset',
    items: ['[]', 'threads[]'],
  },
  item: {
    slug: ['slug'],
    title: ['title', 'query_str'],
    lastActivity: ['last_query_datetime', 'updated_datetime'],
    created: ['first_query_datetime', 'created_at'],
    mode: ['search_mode', 'mode'],
    space: ['collection.title'],
    total: ['total_threads'],
    hasNext: ['has_next_page'],
  },
  thread: {
    path: '/rest/thread/{slug}',
    query: { with_parent_info: 'true', with_schematized_response: 'true', ...SITE, limit: '100', from_first: 'true' },
    cursorParam: 'cursor',
    maxPages: 1000,
    entries: ['entries'],
    nextCursor: ['next_cursor', 'thread_metadata.next_cursor'],
    // RECORDED: `has_next_page: false` beside `next_cursor: null` in both real bodies (2026-07-31, 2026-08-01); the web
    // app pages on while it is true (NOTES §F, the HAR analysis of 2026-02-21).
    hasNext: ['has_next_page'],
    title: ['thread_metadata.title', 'entries[0].thread_title'],
    created: ['thread_metadata.created_at', 'entries[0].entry_created_datetime'],
    updated: ['thread_metadata.updated_at', 'entries[-1].updated_datetime', 'entries[-1].entry_updated_datetime'],
    space: ['thread_metadata.collection_info.title', 'entries[0].collection_info.title'],
  },
  entry: {
    question: ['query_str'],
    model: ['display_model', 'user_selected_model'],
    mode: ['search_mode', 'mode'],
    legacyText: ['text'],
    legacyFinal: ['[step_type=FINAL].content.answer'],
    legacyAnswer: ['answer'],
    legacySources: ['web_results[]'],
  },
  modes: {
    SEARCH: 'search',
    RESEARCH: 'research',
    AGENTIC_RESEARCH: 'research',
    STUDIO: 'labs',
    STUDY: 'learn',
    ASI: 'computer',
    // RECORDED (NOTES §B, §F): the list's `mode` is always "copilot", whatever the thread: it names no mode (review 14b, F4).
    COPILOT: '',
  },
};

/** Built-in library readers, newest first. */
export const LIBRARY_JSON_READERS: readonly LibraryJsonReader[] = [libraryJson2026];
