import type { ThreadAsset, ThreadFile, ThreadSource } from '../protocol/threads';
import type { ThreadJsonReader } from '../selectors/thread-schema';
import { firstBoolean, firstNumber, firstString, pick, strings } from './json-path';
import type { CheckpointEvent, Interaction, ThreadReading, TurnReading } from './thread-model';

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

/** Checks one response of the thread endpoint. */
export function parseThreadBody(status: number, body: string, reader: ThreadJsonReader): JsonBody {
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
  return { ok: true, value };
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

function assetsOf(entry: unknown, entryId: string, r: ThreadJsonReader): ThreadAsset[] {
  return pick(entry, r.entry.assets).values.map((a): ThreadAsset => {
    const size = firstNumber(a, r.asset.size);
    return {
      asset_id: firstString(a, r.asset.id) ?? '',
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
    };
  });
}

/** The download URL (and its expiry, unix seconds) the JSON gives for each asset id. */
export function assetLinks(value: unknown, r: ThreadJsonReader): Map<string, { url: string; expiresAt?: number }> {
  const out = new Map<string, { url: string; expiresAt?: number }>();
  for (const entry of pick(value, r.thread.entries).values.flatMap((e) => (Array.isArray(e) ? e : []))) {
    for (const a of pick(entry, r.entry.assets).values) {
      const id = firstString(a, r.asset.id);
      const url = firstString(a, r.asset.url);
      const expiresAt = firstNumber(a, r.asset.expiresAt);
      if (id && url) out.set(id, { url, ...(expiresAt !== undefined ? { expiresAt } : {}) });
    }
  }
  return out;
}

/** Files of a result: the latest version of each file (an asset another one was edited from is left out). */
export function filesOf(assets: ThreadAsset[], links: Map<string, { url: string }>): ThreadFile[] {
  const superseded = new Set(assets.map((a) => a.parent_asset_id).filter(Boolean));
  return assets
    .filter((a) => !superseded.has(a.asset_id))
    .map((a) => ({ filename: a.filename ?? 'file', media_type: a.mime_type, size_bytes: a.size_bytes, url: links.get(a.asset_id)?.url ?? '' }))
    .filter((f) => f.url !== '');
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

function isPending(item: unknown, r: ThreadJsonReader): boolean {
  const responses = pick(item, r.userResponse.responses).values[0];
  return !Array.isArray(responses) || responses.length === 0;
}

const has = (list: readonly string[], v: string | undefined) => v !== undefined && list.includes(v);

function turnOf(entry: unknown, index: number, locked: ReturnType<typeof lockedOf>, isLast: boolean, r: ThreadJsonReader): TurnReading {
  const e = r.entry;
  const entryId = firstString(entry, e.id);
  const status = firstString(entry, e.status) ?? 'UNKNOWN';
  const answer = firstString(entry, e.answer) ?? strings(entry, e.answerChunks).join('');
  const workflow = firstString(entry, e.workflowStatus);
  const items = pick(entry, e.userResponses).values;
  const pending = items.filter((i) => isPending(i, r)).map((i) => interactionOf(i, r)).filter((i): i is Interaction => i !== undefined);
  const required = pending.filter((i) => i.requiresUserResponse);
  const optionalAuth = pending.filter((i) => !i.requiresUserResponse && i.type === 'auth_required');
  const wakeAt = firstString(entry, e.wakeAt);
  const errorMessage = firstString(entry, e.errorMessage);
  const running = has(r.values.entryRunning, status);
  const w = r.values.workflow;

  let event: CheckpointEvent | null = null;
  let notice: string | undefined;
  if (isLast && locked) {
    event = locked.event;
    notice = locked.notice;
  } else if (has(w.error, workflow)) event = 'error';
  else if (has(w.cancelled, workflow)) event = 'cancelled';
  else if (required.length > 0) event = (required[0] as Interaction).type;
  else if (has(w.awaiting, workflow) && wakeAt) event = 'sleep';
  else if (has(w.awaiting, workflow)) {
    event = 'waiting';
    notice = firstString(entry, e.waitingReason);
  } else if (has(w.complete, workflow) || (!workflow && !running)) event = 'complete';

  const assets = entryId ? assetsOf(entry, entryId, r) : [];
  const links = new Map<string, { url: string }>();
  for (const a of pick(entry, e.assets).values) {
    const id = firstString(a, r.asset.id);
    const url = firstString(a, r.asset.url);
    if (id && url) links.set(id, { url });
  }
  return {
    index,
    ...(entryId ? { entryId } : {}),
    query: firstString(entry, e.query) ?? '',
    event,
    entryStatus: status,
    answer,
    ...(errorMessage ? { errorMessage } : {}),
    ...(notice ? { notice } : {}),
    steps: strings(entry, e.steps),
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
  const locked = lockedOf(first, r);
  const turns = entries.map((entry, i) => turnOf(entry, i, locked, i === entries.length - 1, r));
  const last = turns.at(-1);
  if (last?.event === 'complete' && !last.answer.trim() && last.files.length === 0) last.event = null;
  const assets = entries.flatMap((entry) => {
    const id = firstString(entry, r.entry.id);
    return id ? assetsOf(entry, id, r) : [];
  });
  return {
    source: 'json',
    threadId: ctx.threadId,
    url: ctx.url,
    ...(firstString(first, r.thread.title) ? { title: firstString(first, r.thread.title) } : {}),
    turnCount: turns.length,
    turns,
    assets,
  };
}

/** The cursor of the next (newer) page, if any. */
export function nextCursor(value: unknown, r: ThreadJsonReader): string | undefined {
  return firstString(value, r.thread.nextCursor);
}

/** The thread's uuid, slug and kind as its JSON says (to find its page). */
export function threadIdentity(value: unknown, r: ThreadJsonReader): { uuid?: string; slug?: string; modeType?: string } {
  return { uuid: firstString(value, r.thread.uuid), slug: firstString(value, r.thread.slug), modeType: firstString(value, r.thread.modeType) };
}
