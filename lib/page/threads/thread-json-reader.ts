import type { ThreadAsset, ThreadFile, ThreadSource } from '../../protocol/threads/threads';
import type { ThreadJsonReader } from '../../selectors/thread-schema';
import { answerText, firstBoolean, firstNumber, firstString, pick, strings } from '../../selectors/language/json-path';
import type { CheckpointEvent, Interaction, ThreadReading, TurnReading } from '../checkpoints/thread-model';
import { entryStatus } from './entry-status';

/**
 * Reads the web app's own thread JSON through a reader kept as data (lib/selectors/thread-json.ts).
 * The content script carries no zod: a body is checked here, by the paths the reader names, and
 * any problem names the path that failed, so it can be reported and the page read instead.
 */

export type JsonProblem =
  /** An empty body: rate-limited, ask again later (it says nothing about the thread). */
  | { kind: 'later'; message: string }
  /** The thread does not exist (or is not the user's). */
  | { kind: 'missing'; message: string }
  /** The body is not what the reader expects (HTTP error, not JSON, moved fields). */
  | { kind: 'invalid'; message: string };

export type JsonBody = { ok: true; value: unknown } | { ok: false; problem: JsonProblem };

/** Checks one response of the thread endpoint: `page` 0 the first (a later one may end the list with no entries). */
export function parseThreadBody(status: number, body: string, reader: ThreadJsonReader, page = 0): JsonBody {
  if (status === 404) return { ok: false, problem: { kind: 'missing', message: 'the thread JSON says there is no such thread (HTTP 404)' } };
  if (status >= 400) return { ok: false, problem: { kind: 'invalid', message: `the thread JSON answered HTTP ${status}` } };
  if (body.trim() === '') return { ok: false, problem: { kind: 'later', message: 'the thread JSON came back empty (rate-limited; asking again later)' } };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { ok: false, problem: { kind: 'invalid', message: `the thread JSON does not parse (${(e as Error).message})` } };
  }
  const entries = pick(value, reader.thread.entries).values[0];
  if (!Array.isArray(entries)) {
    return {
      ok: false,
      problem: { kind: 'invalid', message: `the thread JSON has no list of entries at ${reader.thread.entries.join(' or ')} (reader ${reader.name})` },
    };
  }
  if (rateLimitedPage(page, entries)) return { ok: false, problem: { kind: 'later', message: 'the thread JSON came back with no entries (rate-limited; asking again later)' } };
  return { ok: true, value };
}

/**
 * A thread has its first entry from the start. A first page with none is how the endpoint answers after many requests
 * (perplexity-client's findings of 2026-08-01: "bodies with no entries after ~150 requests" at one poll every 5 s):
 * later, never a thread of no turns (captures review 2026-12-05, M3). A later page may end the list empty. Every
 * reader of a thread's JSON (the thread tools, the export) asks this.
 */
export function rateLimitedPage(page: number, entries: readonly unknown[]): boolean {
  return page === 0 && entries.length === 0;
}

function domainOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

function sourcesOf(entry: unknown, r: ThreadJsonReader): ThreadSource[] {
  const seen = new Set<string>();
  const out: ThreadSource[] = [];
  for (const s of pick(entry, r.entry.sources).values) {
    const url = firstString(s, r.source.url);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    out.push({ title: firstString(s, r.source.title) ?? null, url, domain: domainOf(url), snippet: firstString(s, r.source.snippet) ?? null });
  }
  return out;
}

function assetsOf(entry: unknown, entryId: string, r: ThreadJsonReader, shared: unknown[] = []): ThreadAsset[] {
  const seen = new Set<string>();
  return [...pick(entry, r.entry.assets).values, ...shared].flatMap((a): ThreadAsset[] => {
    const id = firstString(a, r.asset.id) ?? '';
    if (id && seen.has(id)) return [];
    seen.add(id);
    const size = firstNumber(a, r.asset.size);
    return [{
      asset_id: id,
      entry_id: entryId,
      filename: firstString(a, r.asset.filename) ?? null,
      mime_type: firstString(a, r.asset.mediaType) ?? null,
      size_bytes: size !== undefined && size >= 0 ? Math.round(size) : null,
      asset_type: (firstString(a, r.asset.type) ?? 'file').toLowerCase(),
      created_at: Math.round(firstNumber(a, r.asset.createdAt) ?? 0),
      is_primary_asset: firstBoolean(a, r.asset.primary) ?? null,
      root_asset_id: firstString(a, r.asset.rootId) ?? null,
      parent_asset_id: firstString(a, r.asset.parentId) ?? null,
      published_url: firstString(a, r.asset.publishedUrl) ?? null,
    }];
  });
}

/** The thread's files kept outside its entries (Computer's shared files). */
export function threadAssets(value: unknown, r: ThreadJsonReader): unknown[] {
  return r.thread.assets ? pick(value, r.thread.assets).values : [];
}

/** The download URL (and its expiry, unix seconds) each of these assets has, by asset id. */
function linksOf(assets: unknown[], r: ThreadJsonReader): Map<string, { url: string; expiresAt?: number }> {
  const out = new Map<string, { url: string; expiresAt?: number }>();
  for (const a of assets) {
    const id = firstString(a, r.asset.id);
    const url = firstString(a, r.asset.url);
    const expiresAt = firstNumber(a, r.asset.expiresAt);
    if (id && url) out.set(id, { url, ...(expiresAt !== undefined ? { expiresAt } : {}) });
  }
  return out;
}

/** The download URL (and its expiry, unix seconds) the JSON gives for each asset id. */
export function assetLinks(value: unknown, r: ThreadJsonReader): Map<string, { url: string; expiresAt?: number }> {
  const entries = pick(value, r.thread.entries).values.flatMap((e) => (Array.isArray(e) ? e : []));
  return linksOf([...entries.flatMap((entry) => pick(entry, r.entry.assets).values), ...threadAssets(value, r)], r);
}

/** The latest version of each file: an asset another one was edited from is left out. */
function latestOf(assets: ThreadAsset[]): ThreadAsset[] {
  const superseded = new Set(assets.map((a) => a.parent_asset_id).filter(Boolean));
  return assets.filter((a) => !superseded.has(a.asset_id));
}

/** Files of a result: the latest version of each file, with its download link (one without is left out). */
export function filesOf(assets: ThreadAsset[], links: Map<string, { url: string }>): ThreadFile[] {
  return latestOf(assets)
    .map((a) => ({ filename: a.filename ?? 'file', media_type: a.mime_type, size_bytes: a.size_bytes, url: links.get(a.asset_id)?.url ?? '' }))
    .filter((f) => f.url !== '');
}

/**
 * An entry's files (its own, then `shared`: the thread's, which count with its latest entry) as read_thread reads them,
 * the latest version of each, with the download link the JSON gives or null: the export lists a file the site only
 * shows in its viewer too, since for a Computer task the files are the result (review 15e, F1).
 */
export function entryFiles(entry: unknown, r: ThreadJsonReader, shared: unknown[] = []): { asset: ThreadAsset; url: string | null }[] {
  const links = linksOf([...pick(entry, r.entry.assets).values, ...shared], r);
  return latestOf(assetsOf(entry, firstString(entry, r.entry.id) ?? '', r, shared)).map((asset) => ({ asset, url: links.get(asset.asset_id)?.url ?? null }));
}

function kindOf(value: string | undefined, r: ThreadJsonReader): Interaction['type'] | undefined {
  if (!value) return undefined;
  for (const [kind, names] of Object.entries(r.values.userResponseKinds)) if (names.includes(value)) return kind as Interaction['type'];
  return undefined;
}

function interactionOf(item: unknown, r: ThreadJsonReader): Interaction | undefined {
  const u = r.userResponse;
  const type = kindOf(firstString(item, u.kind), r);
  const followupUuid = firstString(item, u.id);
  if (!type || !followupUuid) return undefined;
  const questions = pick(item, u.questions).values.map((q) => {
    const options = strings(q, u.questionOptions);
    const multiple = firstBoolean(q, u.questionMultiple);
    const text = firstString(q, u.questionText) ?? '';
    return { id: firstString(q, u.questionId) ?? text, text, ...(options.length ? { options } : {}), ...(multiple ? { multiple } : {}) };
  });
  const prompt = firstString(item, u.prompt) ?? '';
  const connector = firstString(item, u.connectorId);
  const displayName = firstString(item, u.connectorName);
  const title = firstString(item, u.title) ?? firstString(item, u.formTitle);
  const description = firstString(item, u.description);
  const authUrl = firstString(item, u.authUrl);
  const url = firstString(item, u.formUrl);
  const expiresAt = firstString(item, u.expiresAt);
  return {
    type,
    followupUuid,
    text: type === 'ask_user_question' && questions.length > 0 && !prompt ? questions.map((q) => q.text).join('\n') : prompt,
    ...(questions.length ? { questions } : {}),
    ...(connector ? { connector } : {}),
    ...(displayName ? { displayName } : {}),
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(authUrl ? { authUrl } : {}),
    ...(url ? { url } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    requiresUserResponse: firstBoolean(item, u.required) ?? true,
  };
}

/** Whether an item holds answers: its own `responses` (readers before 2026-12), or an answer item of the same id. */
function answeredIn(item: unknown, answers: unknown[], r: ThreadJsonReader): unknown | undefined {
  const u = r.userResponse;
  const filled = (x: unknown) => {
    const responses = pick(x, u.responses).values[0];
    return Array.isArray(responses) && responses.length > 0;
  };
  if (filled(item)) return item;
  const id = u.itemId ? firstString(item, u.itemId) : undefined;
  return id === undefined ? undefined : answers.find((a) => firstString(a, u.itemId ?? []) === id && filled(a));
}

/** One item that asks the person something, with what they answered (none yet: `answers` empty). */
export interface AskedItem {
  interaction: Interaction;
  answered: boolean;
  answers: { question: string; answer: string }[];
}

/** Every item of an entry that asks the person something, answered or not, in order. */
export function askedItems(entry: unknown, r: ThreadJsonReader): AskedItem[] {
  const u = r.userResponse;
  const answerItems = r.entry.userAnswers ? pick(entry, r.entry.userAnswers).values : [];
  return pick(entry, r.entry.userResponses).values.flatMap((item) => {
    const interaction = interactionOf(item, r);
    if (!interaction) return [];
    const answer = answeredIn(item, answerItems, r);
    const answers = answer && u.answers
      ? pick(answer, u.answers).values.map((a) => ({ question: firstString(a, u.answerQuestion ?? []) ?? '', answer: firstString(a, u.answerText ?? []) ?? '' }))
      : [];
    return [{ interaction, answered: answer !== undefined, answers }];
  });
}

const has = (list: readonly string[], v: string | undefined) => v !== undefined && list.includes(v);

/** What the thread-level part of the body says about its latest entry. */
interface ThreadLevel {
  locked: ReturnType<typeof lockedOf>;
  wakeAt?: string;
  /** The thread's own files (Computer's shared files), counted with its latest entry. */
  assets: unknown[];
}

function turnOf(entry: unknown, index: number, thread: ThreadLevel, isLast: boolean, r: ThreadJsonReader): TurnReading {
  const locked = thread.locked;
  const e = r.entry;
  const entryId = firstString(entry, e.id);
  const status = firstString(entry, e.status) ?? 'UNKNOWN';
  const answer = answerText(entry, e.answer, e.answerChunks) ?? '';
  const workflow = firstString(entry, e.workflowStatus);
  const w = r.values.workflow;
  // Unanswered is not waiting: questions that time out stay unanswered while the work goes on (a
  // research thread of 2026-07-31). The workflow's status says whether the person is waited on; a
  // reader without that status falls back to "unanswered in a workflow that has not ended".
  const ended = has(w.complete, workflow) || has(w.cancelled, workflow) || has(w.error, workflow);
  const waitsOnPerson = w.awaitingUser ? has(w.awaitingUser, workflow) : !ended;
  const unanswered = ended ? [] : askedItems(entry, r).filter((a) => !a.answered).map((a) => a.interaction);
  const required = waitsOnPerson ? unanswered.filter((i) => i.requiresUserResponse) : [];
  const optionalAuth = unanswered.filter((i) => !i.requiresUserResponse && i.type === 'auth_required');
  const wakeAt = firstString(entry, e.wakeAt) ?? (isLast ? thread.wakeAt : undefined);
  const errorMessage = firstString(entry, e.errorMessage);
  const waitingReason = firstString(entry, e.waitingReason);

  let event: CheckpointEvent | null = null;
  let notice: string | undefined;
  if (isLast && locked) {
    event = locked.event;
    notice = locked.notice;
  } else if (has(w.error, workflow)) event = 'error';
  else if (has(w.cancelled, workflow)) event = 'cancelled';
  else if (required.length > 0) event = (required[0] as Interaction).type;
  else if (has(w.awaiting, workflow) && wakeAt) event = 'sleep';
  // Waiting on the person with no question we can read: say nothing rather than guess.
  else if (has(w.awaitingUser ?? [], workflow)) event = null;
  else if (has(w.awaiting, workflow) && waitingReason !== undefined) {
    // Waiting on something outside only when the entry says on what: every live search stream opens with
    // WORKFLOW_AWAITING_NEXT_STEPS on a PENDING entry, and a clarified research turn goes back to it while it works
    // (sse captures of 2026-08-04 and 2026-08-01): the status alone is a turn still running (review 2026-12-05, sim #2).
    event = 'waiting';
    notice = waitingReason;
  } else if (has(w.complete, workflow) || (!workflow && entryStatus(entry, r) === 'complete')) event = 'complete';

  const shared = isLast ? thread.assets : [];
  const assets = entryId ? assetsOf(entry, entryId, r, shared) : [];
  const links = linksOf([...pick(entry, e.assets).values, ...shared], r);
  return {
    index,
    ...(entryId ? { entryId } : {}),
    query: firstString(entry, e.query) ?? '',
    event,
    entryStatus: status,
    answer,
    ...(errorMessage ? { errorMessage } : {}),
    ...(notice ? { notice } : {}),
    steps: strings(entry, e.steps).filter((step) => step.trim() !== ''),
    sources: sourcesOf(entry, r),
    files: filesOf(assets, links),
    ...(wakeAt && event === 'sleep' ? { wakeAt } : {}),
    interactions: event && event === required[0]?.type ? required : [],
    optionalAuth,
    ...(isLast && locked ? { account: locked.account } : {}),
  };
}

function lockedOf(value: unknown, r: ThreadJsonReader) {
  const reason = firstString(value, r.thread.lockedReason);
  if (!reason) return undefined;
  const event: CheckpointEvent | undefined = r.values.lockedReasons.access_denied.includes(reason)
    ? 'access_denied'
    : r.values.lockedReasons.insufficient_credits.includes(reason)
      ? 'insufficient_credits'
      : undefined;
  if (!event) return undefined;
  const billingUrl = firstString(value, r.thread.billingUrl);
  const quotaResetDate = firstString(value, r.thread.quotaResetDate);
  const notice =
    event === 'access_denied'
      ? 'Computer is not available for this account. If you belong to an organization, ask its administrator to enable Computer access.'
      : `Insufficient credits (${reason}).${billingUrl ? ` Add credits: ${billingUrl}` : ''}${quotaResetDate ? ` The quota comes back on ${quotaResetDate}.` : ''}`;
  return {
    event,
    notice,
    account: { reason, ...(billingUrl ? { billingUrl } : {}), ...(quotaResetDate ? { quotaResetDate } : {}) },
  };
}

export interface JsonContext {
  threadId: string;
  url: string;
}

/**
 * A reading of the thread from its JSON pages (in the order fetched: the first page holds the
 * oldest entries). A turn the JSON calls complete but that has neither answer nor files is left
 * running: peers saw "done" flags one frame early, and the page then answers instead.
 */
export function readThreadJson(pages: unknown[], r: ThreadJsonReader, ctx: JsonContext): ThreadReading {
  const first = pages[0];
  const entries = pages.flatMap((p) => {
    const list = pick(p, r.thread.entries).values[0];
    return Array.isArray(list) ? list : [];
  });
  const wakeAt = r.thread.wakeAt ? firstString(first, r.thread.wakeAt) : undefined;
  // The thread's own list may repeat files its entries list (each is counted once, with its entry).
  const own = new Set(entries.flatMap((entry) => pick(entry, r.entry.assets).values.map((a) => firstString(a, r.asset.id))));
  const shared = pages.flatMap((p) => threadAssets(p, r)).filter((a) => !own.has(firstString(a, r.asset.id)));
  const thread: ThreadLevel = { locked: lockedOf(first, r), ...(wakeAt ? { wakeAt } : {}), assets: shared };
  const turns = entries.map((entry, i) => turnOf(entry, i, thread, i === entries.length - 1, r));
  const last = turns.at(-1);
  const answerUnread = last?.event === 'complete' && !last.answer.trim() && last.files.length === 0;
  if (last && answerUnread) last.event = null;
  const threadStatus = r.thread.status ? firstString(first, r.thread.status) : undefined;
  const assets = entries.flatMap((entry, i) => {
    const id = firstString(entry, r.entry.id);
    return id ? assetsOf(entry, id, r, i === entries.length - 1 ? thread.assets : []) : [];
  });
  const kind = threadKindOf(first, r);
  return {
    source: 'json',
    ...(kind ? { kind } : {}),
    threadId: ctx.threadId,
    url: ctx.url,
    ...(firstString(first, r.thread.title) ? { title: firstString(first, r.thread.title) } : {}),
    turnCount: turns.length,
    ...(threadStatus ? { threadStatus } : {}),
    ...(answerUnread ? { answerUnread } : {}),
    turns,
    assets,
  };
}

/**
 * The one rule a whole thread is paged by, after a page (the web app's: by `next_cursor` while `has_next_page`, to the
 * end when it is null or repeats): the next cursor, one not `followed` before; undefined at the end; null when the page
 * says more follow but gives no such cursor, so the rest cannot be read and the pages are a cut thread (review 15e, F6).
 */
export function pageAfter(value: unknown, at: { nextCursor: readonly string[]; hasNext?: readonly string[] }, followed: readonly string[]): string | null | undefined {
  const cursor = firstString(value, at.nextCursor);
  if (cursor && !followed.includes(cursor)) return cursor;
  return firstBoolean(value, at.hasNext ?? []) ? null : undefined;
}

/** The query of a page of a thread's JSON: the reader's for the first, with its `nextQuery` and the cursor after. */
export function pageQuery(r: ThreadJsonReader, cursor?: string): Record<string, string> {
  return cursor ? { ...r.request.query, ...r.request.nextQuery, [r.request.cursorParam]: cursor } : r.request.query;
}

/**
 * After the pages read (`next`, pageAfter's word on the last): why they are not the whole thread, when they are not. A
 * list cut at `maxPages`, or where a page gives no way on, would make its last entry read as the thread's latest turn
 * (threads review 2026-12-05, M3): the page answers instead.
 */
export function pagesCut(next: string | null | undefined, r: ThreadJsonReader): JsonProblem | undefined {
  // null: a page said more follow, with no new cursor to them.
  const more = next === null ? 'its cursors reach' : `${r.request.maxPages} pages of entries`;
  if (next !== undefined) return { kind: 'invalid', message: `the thread JSON has more than ${more} (reader ${r.name}); its latest turns would be missing` };
}

/** The thread's kind (`computer`, `research`, `search`) by the reader's table; undefined when the value is not in it. */
export function threadKindOf(value: unknown, r: ThreadJsonReader): string | undefined {
  const mode = firstString(value, r.thread.modeType);
  if (mode === undefined) return undefined;
  return Object.entries(r.values.threadKinds ?? {}).find(([, names]) => names.includes(mode))?.[0];
}

/** The thread's uuid, slug and kind as its JSON says (to find its page). */
export function threadIdentity(value: unknown, r: ThreadJsonReader): { uuid?: string; slug?: string; modeType?: string; kind?: string } {
  const kind = threadKindOf(value, r);
  return { uuid: firstString(value, r.thread.uuid), slug: firstString(value, r.thread.slug), modeType: firstString(value, r.thread.modeType), ...(kind ? { kind } : {}) };
}
