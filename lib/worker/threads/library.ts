import { answerText, firstBoolean, firstNumber, firstString, pick } from '../../selectors/language/json-path';
import { askedItems, entryFiles, pageAfter, rateLimitedPage, threadAssets } from '../../page/threads/thread-json-reader';
import { entryStatus } from '../../page/threads/entry-status';
import { RelayError } from '../../protocol/errors';
import type { ExportedAsked, ExportedFile, ExportedSource, ExportedThread, ExportedTurn, LibraryPage, LibraryThread } from '../../protocol/library/library';
import { threadRefProblem, threadSlugOf, threadUrlOf } from '../../protocol/library/thread-ref';
import type { LibraryJsonReader } from '../../selectors/library/library-json';
import type { ThreadJsonReader } from '../../selectors/thread-schema';

/**
 * The library's two reads (lib/protocol/library/library.ts), from what a Perplexity tab fetched
 * with the person's cookies: the site's thread list (searched, paged and filtered by Space by the
 * site itself) and a thread whole, every page of its JSON. Every fact is read where the readers say
 * (lib/selectors/library/library-json.ts for the library, lib/selectors/thread-json.ts for an
 * entry's answer and sources); a body no reader knows fails with JSON_SHAPE naming what was looked
 * for, never an empty or partial answer presented as whole.
 */

export interface FetchRequest {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
}
export interface Fetched {
  status: number;
  body: string;
  retryAfter?: string;
}
/** A same-origin request made by a Perplexity tab (the page script's `threads.fetch`). */
export type LibraryFetch = (request: FetchRequest) => Promise<Fetched>;

export interface LibraryReaders {
  library: LibraryJsonReader;
  thread: ThreadJsonReader;
}

/** Retry-After in ms: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, 86_400_000);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - now), 86_400_000) : undefined;
}

/** A response as JSON, or the named error for what the site answered. */
function bodyOf(fetched: Fetched, what: string): unknown {
  const { status } = fetched;
  if (status === 401) throw new RelayError('SIGNED_OUT', `perplexity.ai answered 401 for ${what}: the Perplexity tab is signed out. Sign in to perplexity.ai in the browser and try again.`);
  if (status === 404) throw new RelayError('THREAD_NOT_FOUND', `perplexity.ai has no ${what} for this account (HTTP 404): check the slug or URL, or list the threads that are.`);
  if (status === 429) {
    const wait = retryAfterMs(fetched.retryAfter);
    throw new RelayError(
      'RATE_LIMITED',
      `perplexity.ai is rate-limiting ${what} (HTTP 429)${wait !== undefined ? `; it asks to wait ${Math.ceil(wait / 1000)} s` : ''}. Try again later.`,
      wait !== undefined ? { retryAfterMs: wait } : undefined,
    );
  }
  if (status >= 400) throw new RelayError('EVALUATION_FAILED', `perplexity.ai answered HTTP ${status} for ${what}${status >= 500 ? ': try again in a minute' : ''}.`);
  // The endpoint answers empty bodies once it rate-limits (NOTES §B): not a thread with nothing in it.
  if (fetched.body.trim() === '') throw new RelayError('RATE_LIMITED', `perplexity.ai answered ${what} with an empty body, as it does while rate-limiting. Try again later.`);
  try {
    return JSON.parse(fetched.body);
  } catch (e) {
    throw new RelayError('JSON_SHAPE', `${what} is not JSON (${(e as Error).message}).`);
  }
}

/** A time as ISO 8601: the site's times without a zone are UTC. */
export function isoTime(value: string | undefined): string | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) return `${text}Z`;
  return text || null;
}

function modeWord(value: string | undefined, r: LibraryJsonReader): string | null {
  if (!value) return null;
  const word = r.modes[value.toUpperCase()];
  return word === '' ? null : (word ?? value.toLowerCase());
}

/** The list a body holds at the first path (`x[]`: the array at x; `[]`: the body itself) that is one. */
function listItems(body: unknown, paths: readonly string[], what: string, r: LibraryJsonReader): unknown[] {
  for (const path of paths) {
    const container = path.endsWith('[]') ? path.slice(0, -2) : path;
    const list = container === '' ? body : pick(body, [container]).values[0];
    if (Array.isArray(list)) return list;
  }
  throw new RelayError('JSON_SHAPE', `${what} has no list of threads at ${paths.join(' or ')} (reader ${r.name}).`);
}

function threadOf(item: unknown, r: LibraryJsonReader, space: string | null, what: string): LibraryThread {
  const slug = firstString(item, r.item.slug);
  if (!slug || threadSlugOf(slug) !== slug) throw new RelayError('JSON_SHAPE', `${what} has a thread without a slug at ${r.item.slug.join(' or ')} (reader ${r.name}).`);
  return {
    slug,
    title: (firstString(item, r.item.title) ?? '').replace(/\s+/g, ' ').trim() || slug,
    url: threadUrlOf(slug),
    lastActivity: isoTime(firstString(item, r.item.lastActivity)),
    created: isoTime(firstString(item, r.item.created)),
    mode: modeWord(firstString(item, r.item.mode), r),
    space: firstString(item, r.item.space) ?? space,
  };
}

export interface ListParams {
  query?: string | undefined;
  space?: string | undefined;
  limit: number;
  offset: number;
  since?: string | undefined;
}

interface Space {
  uuid: string;
  title: string;
  slug: string;
}

/** A Space by its slug or title (case and spacing aside), from the account's Spaces, paged as the site pages them. */
export async function findSpace(name: string, fetch: LibraryFetch, r: LibraryJsonReader): Promise<Space> {
  const s = r.spaces;
  const wanted = name.replace(/\s+/g, ' ').trim().toLowerCase();
  const seen: string[] = [];
  for (let page = 0; page < s.maxPages; page++) {
    const query = { ...s.query, [s.limitParam]: String(s.pageSize), [s.offsetParam]: String(page * s.pageSize) };
    const items = listItems(bodyOf(await fetch({ path: s.path, query, headers: r.headers }), 'the Spaces'), s.items, 'the Spaces', r);
    for (const item of items) {
      const space = { uuid: firstString(item, s.uuid) ?? '', title: firstString(item, s.title) ?? '', slug: firstString(item, s.slug) ?? '' };
      if (space.slug === name.trim() || space.title.replace(/\s+/g, ' ').trim().toLowerCase() === wanted) return space;
      if (space.title) seen.push(space.title);
    }
    if (items.length < s.pageSize) break;
  }
  const known = seen.length ? ` Spaces of this account: ${seen.slice(0, 20).map((t) => `"${t}"`).join(', ')}${seen.length > 20 ? ', …' : ''}.` : ' This account has no Spaces.';
  throw new RelayError('INVALID_PARAMS', `No Space is named or has the slug "${name}".${known}`);
}

/**
 * One page of the library, newest first: the site's list (its search when `query` is given), a
 * Space's threads when `space` is. `since` keeps threads active on or after that day; the list
 * being newest first, the page that reaches an older one is the last.
 */
export async function listLibrary(params: ListParams, fetch: LibraryFetch, readers: LibraryReaders): Promise<LibraryPage> {
  const r = readers.library;
  const query = params.query?.trim() ?? '';
  const space = params.space?.trim() ? await findSpace(params.space, fetch, r) : undefined;
  let body: unknown;
  let items: unknown[];
  const what = space ? `the threads of Space "${space.title}"` : 'the thread list';
  if (space && !query) {
    const t = r.spaceThreads;
    const q = { ...t.query, [t.slugParam]: space.slug, [t.limitParam]: String(params.limit), [t.offsetParam]: String(params.offset) };
    body = bodyOf(await fetch({ path: t.path, query: q, headers: r.headers }), what);
    items = listItems(body, t.items, what, r);
  } else {
    const b = r.list.body;
    const sent = { ...b.fixed, [b.limit]: params.limit, [b.offset]: params.offset, [b.search]: query, ...(space ? { [b.space]: space.uuid } : {}) };
    body = bodyOf(await fetch({ path: r.list.path, query: r.list.query, headers: r.headers, method: 'POST', body: JSON.stringify(sent) }), what);
    items = listItems(body, r.list.items, what, r);
  }
  let threads = items.slice(0, params.limit).map((item) => threadOf(item, r, space?.title ?? null, what));
  const total = items.length > 0 ? (firstNumber(items[0], r.item.total) ?? null) : params.offset === 0 ? 0 : null;
  const hasNext = items.length > 0 ? firstBoolean(items.at(-1), r.item.hasNext) : false;
  const end = params.offset + threads.length;
  let nextOffset = threads.length === 0 ? null : total !== null ? (end < total ? end : null) : hasNext !== undefined ? (hasNext ? end : null) : threads.length < params.limit ? null : end;
  if (params.since) {
    const since = params.since;
    const older = (t: LibraryThread) => t.lastActivity !== null && t.lastActivity.slice(0, 10) < since;
    if (threads.some(older)) nextOffset = null;
    threads = threads.filter((t) => !older(t));
  }
  return { threads, total: params.since ? null : total, offset: params.offset, nextOffset };
}

/** Parses a JSON string, or undefined. */
function parsed(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The Feb 2026 entry: `text` (or `answer`) a JSON string of `{answer, web_results}`, or of the steps whose FINAL one holds it. */
function legacyAnswer(entry: unknown, r: LibraryJsonReader): { answer: string; sources: unknown[] } | undefined {
  const e = r.entry;
  for (const raw of [firstString(entry, e.legacyText), firstString(entry, e.legacyAnswer)]) {
    let value = parsed(raw);
    const final = firstString(value, e.legacyFinal);
    if (final !== undefined) value = parsed(final) ?? { answer: final };
    const answer = firstString(value, e.legacyAnswer);
    if (answer !== undefined) {
      // The answer itself may be the JSON string once more.
      const inner = parsed(answer);
      const text = firstString(inner, e.legacyAnswer);
      if (text !== undefined) return { answer: text, sources: pick(inner, e.legacySources).values.length ? pick(inner, e.legacySources).values : pick(value, e.legacySources).values };
      return { answer, sources: pick(value, e.legacySources).values };
    }
  }
  return undefined;
}

function sourcesOf(list: unknown[], t: ThreadJsonReader): ExportedSource[] {
  const out: ExportedSource[] = [];
  // Numbered by place, as the answer's `[n]` cites them (json-answer.ts links them so too).
  list.forEach((s, i) => {
    const url = firstString(s, t.source.url);
    if (url) out.push({ n: i + 1, title: (firstString(s, t.source.title) ?? '').trim() || url, url });
  });
  return out;
}

/** An entry's files as the thread reader reads them (`shared`: the thread's own, counted with its latest entry). */
function filesOf(entry: unknown, t: ThreadJsonReader, shared: unknown[] = []): ExportedFile[] {
  return entryFiles(entry, t, shared).map(({ asset, url }) => ({ id: asset.asset_id, name: asset.filename, type: asset.asset_type, url, size: asset.size_bytes }));
}

/** Whether a block's kind is one the reader lists (`{n}` there: a number, as in `ask_text_2_images`). */
function kindIn(kinds: readonly string[], kind: string): boolean {
  return kinds.includes(kind) || kinds.includes(kind.replace(/\d+/g, '{n}'));
}

/** The entry's blocks the export holds nothing of, by kind: known ones not exported, and any kind the reader does not list. */
function unreadOf(entry: unknown, t: ThreadJsonReader): NonNullable<ExportedTurn['unread']> {
  const b = t.blockKinds;
  if (!b) return [];
  const out = new Map<string, { kind: string; blocks: number; what?: string }>();
  for (const kind of pick(entry, b.kind).values) {
    if (typeof kind !== 'string' || kindIn(b.read, kind) || kindIn(b.ignored, kind)) continue;
    const listed = [kind, kind.replace(/\d+/g, '{n}')].find((k) => Object.hasOwn(b.unexported, k));
    const what = listed === undefined ? undefined : b.unexported[listed];
    const seen = out.get(kind);
    if (seen) seen.blocks += 1;
    else out.set(kind, { kind, blocks: 1, ...(what ? { what } : {}) });
  }
  return [...out.values()];
}

/** What the turn asked the person, and what they answered, from the thread reader's items. */
function askedOf(entry: unknown, t: ThreadJsonReader): ExportedAsked[] {
  return askedItems(entry, t).map(({ interaction: i, answers }) => {
    const questions = (i.questions ?? []).map((q) => q.text);
    // The reader gives the questions as its text when the site gave no prompt: not said twice.
    const prompt = questions.length > 0 && i.text === questions.join('\n') ? '' : i.text;
    return { prompt, questions, answers };
  });
}

/**
 * What a turn holds besides its answer and sources, each field only when there is something to say: running, or how it
 * ended when it did not finish (review 15e, F2: a cancelled task read as a finished answer, a failure's reason was lost),
 * the questions it asked (F3), its own files (F1) and the blocks left out (F9).
 */
function turnFacts(entry: unknown, t: ThreadJsonReader): Omit<ExportedTurn, 'question' | 'answer' | 'sources'> {
  const state = entryStatus(entry, t);
  const outcome = state === 'cancelled' || state === 'error' ? state : undefined;
  // A turn the site still writes says so: what it holds is not the whole answer.
  const status = firstString(entry, t.entry.status);
  const running = !outcome && status !== undefined && t.values.entryRunning.includes(status);
  const error = outcome === 'error' ? firstString(entry, t.entry.errorMessage)?.trim() : undefined;
  const asked = askedOf(entry, t);
  const files = filesOf(entry, t);
  const unread = unreadOf(entry, t);
  return {
    ...(running ? { running: true as const } : {}),
    ...(outcome ? { outcome } : {}),
    ...(error ? { error } : {}),
    ...(asked.length ? { asked } : {}),
    ...(files.length ? { files } : {}),
    ...(unread.length ? { unread } : {}),
  };
}

function turnOf(entry: unknown, index: number, readers: LibraryReaders, slug: string): ExportedTurn {
  const { library: r, thread: t } = readers;
  const question = firstString(entry, r.entry.question);
  if (question === undefined) {
    throw new RelayError('JSON_SHAPE', `thread "${slug}": entry ${index + 1} has no question at ${r.entry.question.join(' or ')} (reader ${r.name}).`);
  }
  const facts = turnFacts(entry, t);
  const answer = answerText(entry, t.entry.answer, t.entry.answerChunks);
  if (answer !== undefined) return { question, answer, sources: sourcesOf(pick(entry, t.entry.sources).values, t), ...facts };
  const legacy = legacyAnswer(entry, r);
  if (legacy) return { question, answer: legacy.answer, sources: sourcesOf(legacy.sources, t), ...facts };
  // No answer anywhere a reader knows: a turn still running or stopped before it wrote has blocks and says so;
  // an entry with neither blocks nor text is a shape nobody reads.
  const known = pick(entry, ['blocks']).values[0];
  if (!Array.isArray(known)) {
    throw new RelayError(
      'JSON_SHAPE',
      `thread "${slug}": entry ${index + 1} has no answer at ${[...t.entry.answer, ...r.entry.legacyText].join(' or ')} and no blocks (reader ${r.name}).`,
    );
  }
  // A search or research entry that says it finished holds its answer somewhere: where no path looks, it is a shape the
  // reader does not know, not a turn with no answer (review 13c, F7: exported "(no answer)", counted done, never
  // exported again). A Computer task may finish with files and no text (the SIMULATED- Computer bodies of the captures).
  if (entryStatus(entry, t) === 'complete' && modeWord(firstString(entry, r.entry.mode), r) !== 'computer') {
    throw new RelayError(
      'JSON_SHAPE',
      `thread "${slug}": entry ${index + 1} says it finished but holds no answer at ${[...t.entry.answer, ...t.entry.answerChunks, ...r.entry.legacyText].join(' or ')} (readers ${t.name}, ${r.name}): add a thread JSON reader that knows where the answer moved (comet-relay selectors add).`,
    );
  }
  return { question, answer: '', sources: sourcesOf(pick(entry, t.entry.sources).values, t), ...facts };
}

/**
 * A thread whole: every page of its JSON from the first (`from_first`), following the cursor by the one
 * rule every thread read pages by (pageAfter). Pages are read as they come: only the turns are kept.
 */
export async function exportThread(ref: string, fetch: LibraryFetch, readers: LibraryReaders, signal?: AbortSignal): Promise<ExportedThread> {
  const slug = threadSlugOf(ref);
  if (!slug) throw new RelayError('INVALID_PARAMS', threadRefProblem(ref));
  const r = readers.library;
  const th = r.thread;
  const what = `thread "${slug}"`;
  const turns: ExportedTurn[] = [];
  const followed: string[] = [];
  let first: unknown;
  let last: unknown;
  let lastEntries: unknown[] = [];
  let firstEntries: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
    if (pages >= th.maxPages) {
      throw new RelayError('EVALUATION_FAILED', `${what} has more than ${th.maxPages} pages of JSON (reader ${r.name}); it was not exported rather than exported cut.`);
    }
    const query = { ...th.query, ...(cursor ? { [th.cursorParam]: cursor } : {}) };
    const body = bodyOf(await fetch({ path: th.path.replace('{slug}', encodeURIComponent(slug)), query, headers: r.headers }), what);
    const entries = pick(body, th.entries).values[0];
    if (!Array.isArray(entries)) throw new RelayError('JSON_SHAPE', `${what}: page ${pages + 1} of its JSON has no list of entries at ${th.entries.join(' or ')} (reader ${r.name}).`);
    // Written as a thread of no turns, it would be counted unchanged by every later run (day-2 review H3).
    if (rateLimitedPage(pages, entries)) throw new RelayError('RATE_LIMITED', `perplexity.ai answered ${what} with no entries, as it does while rate-limiting. Try again later.`);
    pages += 1;
    first ??= body;
    if (pages === 1) firstEntries = entries;
    last = body;
    if (entries.length) lastEntries = entries;
    for (const entry of entries) turns.push(turnOf(entry, turns.length, readers, slug));
    const next = pageAfter(body, th, followed);
    // More said but no way to it: the turns so far would be counted the whole thread by every later run (review 15e, F6).
    if (next === null) {
      throw new RelayError(
        'JSON_SHAPE',
        `${what}: page ${pages} of its JSON says more entries follow but gives no new cursor at ${th.nextCursor.join(' or ')} (reader ${r.name}); it was not exported rather than exported cut. Try again later; if it fails again, add a library reader that knows where the site puts the next page (comet-relay selectors add).`,
      );
    }
    if (!next) break;
    followed.push(next);
    cursor = next;
  }
  const lastEntry = lastEntries.at(-1);
  const firstEntry = firstEntries[0];
  // The thread's own files (a Computer task's shared files) count with its latest turn, as read_thread counts them;
  // a file an entry lists itself stays with that entry.
  const own = new Set(turns.flatMap((turn) => (turn.files ?? []).map((f) => f.id)));
  const shared = [...threadAssets(first, readers.thread), ...(last !== first ? threadAssets(last, readers.thread) : [])].filter(
    (a) => !own.has(firstString(a, readers.thread.asset.id) ?? ''),
  );
  const latest = turns.at(-1);
  if (latest && shared.length) {
    const files = filesOf(lastEntry, readers.thread, shared);
    turns[turns.length - 1] = { ...latest, ...(files.length ? { files } : {}) };
  }
  return {
    slug,
    url: threadUrlOf(slug),
    title: (firstString(first, th.title) ?? turns[0]?.question ?? '').replace(/\s+/g, ' ').trim() || slug,
    created: isoTime(firstString(first, th.created)),
    // The last page knows the last activity best (its entries are the newest).
    updated: isoTime(firstString(last, th.updated) ?? firstString(first, th.updated)),
    mode: modeWord(firstString(firstEntry, r.entry.mode), r),
    model: firstString(lastEntry, r.entry.model) ?? null,
    space: firstString(first, th.space) ?? null,
    turns,
    pages,
  };
}
