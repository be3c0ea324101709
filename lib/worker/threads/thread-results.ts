import { RelayError } from '../../protocol/errors';
import type { ModelsList, ThreadAsset, ThreadCheckpoint, ThreadTranscript } from '../../protocol/threads/threads';
import { firstBoolean, firstNumber, firstString, pick, strings } from '../../selectors/language/json-path';
import { checkpointOf, readThreadStatus, type ThreadReading, transcriptOf, type TurnReading, webStateOf } from '../../page/checkpoints/thread-model';
import type { AccountJsonReader } from '../../selectors/thread-schema';

/**
 * The worker's half of the thread methods: the page reads (the DOM, the thread JSON) and fetches;
 * what those readings become for the contract — checkpoints, transcripts, web_state, asset pages,
 * models_list, projects_list — is worked out here, so the content script stays small.
 */

/** What a tab answers for threads.wait and threads.state. */
export interface PageCheckpoint {
  reading: ThreadReading;
  turn: TurnReading;
}

export function checkpointFrom(result: unknown): ThreadCheckpoint {
  const { reading, turn } = result as PageCheckpoint;
  return checkpointOf(reading, turn);
}

/** What a tab answers for threads.read: the whole thread, and why the JSON did not answer if it did not. */
export function transcriptFrom(result: unknown, threadId: string, maxChars: number): ThreadTranscript {
  const { reading, problem } = result as { reading: ThreadReading; problem?: string };
  const { text, truncated } = transcriptOf(reading, maxChars);
  const webState = webStateOf(reading);
  return {
    threadId,
    url: reading.url,
    status: readThreadStatus(reading),
    text,
    truncated,
    webState,
    ...(reading.source === 'page' && problem ? { webStateError: `Read from the page instead of Perplexity's thread data: ${problem}.` } : {}),
  };
}

/**
 * Every file a thread produced. From the JSON: ids, versions, sizes, times. From the page: its file
 * cards, by the card's id (the JSON's) when it has one; a reading without assets (an older tab)
 * lists its turns' download links, each link standing for its own id.
 */
export function assetsOf(reading: ThreadReading): ThreadAsset[] {
  if (reading.assets) return reading.assets;
  return reading.turns.flatMap((t) =>
    t.files.map((f) => ({
      asset_id: f.url,
      entry_id: t.entryId ?? `turn-${t.index}`,
      filename: f.filename,
      mime_type: f.media_type,
      size_bytes: f.size_bytes,
      asset_type: 'file',
      created_at: 0,
      is_primary_asset: null,
      root_asset_id: null,
      parent_asset_id: null,
      published_url: null,
    })),
  );
}

type Links = Record<string, { url: string; expiresAt?: number }>;

/** Where a link points, without its query (signed links differ in their signature, not their file). */
function fileKey(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? `${u.origin}${u.pathname}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The asset an id names, whichever source listed it: the same id, or (an id from the other source:
 * a page card's link, or a JSON uuid whose link an earlier read gave) the asset whose link points at
 * the same file.
 */
export function resolveAsset(assets: ThreadAsset[], links: Links, assetId: string): ThreadAsset | undefined {
  const same = assets.find((a) => a.asset_id === assetId);
  if (same) return same;
  const wanted = fileKey(links[assetId]?.url) ?? fileKey(assetId);
  if (!wanted) return undefined;
  const hits = assets.filter((a) => fileKey(links[a.asset_id]?.url ?? a.asset_id) === wanted);
  return hits.length === 1 ? hits[0] : undefined;
}

export const ASSETS_PAGE = 20;

/**
 * One page of a thread's assets. The cursor is an offset into all of them; a filter on the turn
 * applies within the page, so a filtered page can be empty while more pages follow (the seed's rule).
 */
export function pageAssets(assets: ThreadAsset[], params: { entryId?: string; cursor?: string }): { assets: ThreadAsset[]; next_cursor: string | null } {
  const offset = params.cursor === undefined ? 0 : Number(params.cursor);
  if (!Number.isInteger(offset) || offset < 0) throw new RelayError('INVALID_PARAMS', `cursor "${params.cursor}" is not a next_cursor from list_thread_assets.`);
  const page = assets.slice(offset, offset + ASSETS_PAGE);
  return {
    assets: params.entryId ? page.filter((a) => a.entry_id === params.entryId) : page,
    next_cursor: offset + ASSETS_PAGE < assets.length ? String(offset + ASSETS_PAGE) : null,
  };
}

/** A signed link with less time than this left is handed out no more: the caller could not fetch it in time. */
const LINK_MARGIN_S = 30;

/**
 * A fresh download URL for one asset, from a tab's reading and the links it has (the last JSON
 * read's signed links and the page's cards). The id may come from either source's listing.
 */
export function downloadFrom(result: unknown, threadId: string, assetId: string, nowSeconds = Date.now() / 1000) {
  const { reading, links } = result as { reading: ThreadReading; links: Links };
  const asset = resolveAsset(assetsOf(reading), links, assetId);
  if (!asset) throw new RelayError('INVALID_PARAMS', `asset_id "${assetId}" is not an asset of thread "${threadId}" (list_thread_assets lists them).`);
  const link = links[asset.asset_id] ?? (fileKey(asset.asset_id) ? { url: asset.asset_id } : undefined);
  if (!link) throw new RelayError('AGENT_ERROR', `Perplexity gives no download link for asset "${assetId}" right now; try again in a few seconds.`);
  // A signed link past its time is no download: the next reading of the thread data (every few seconds at most)
  // brings a fresh one (threads review 2026-12-05, L5: "expires_in_seconds: 0" was handed out as a link).
  if (link.expiresAt !== undefined && link.expiresAt - nowSeconds < LINK_MARGIN_S) {
    throw new RelayError('AGENT_ERROR', `The download link Perplexity last gave for asset "${assetId}" has expired; call create_asset_download again in a few seconds for a fresh one.`);
  }
  return { asset_id: assetId, url: link.url, expires_in_seconds: link.expiresAt !== undefined ? Math.round(link.expiresAt - nowSeconds) : null };
}

/** What the site says the account has of one mode: whether it may use it now, and how many uses are left where it counts. */
export interface ModeLimit {
  available: boolean;
  remaining: number | null;
}

/**
 * What the account has left of each mode its reader maps (lib/selectors/account-json.ts `modeLimits`): only an entry
 * that says `available` is kept; a mode whose entry is missing or says nothing readable is left out, never guessed.
 */
export function modeLimitsFrom(value: unknown, r: AccountJsonReader): { modes: Record<string, ModeLimit> } {
  const modes: Record<string, ModeLimit> = {};
  const l = r.modeLimits;
  for (const [mode, paths] of Object.entries(l?.modes ?? {})) {
    const entry = pick(value, paths).values[0];
    const available = l && entry !== undefined ? firstBoolean(entry, l.available) : undefined;
    if (available === undefined) continue;
    const remaining = firstNumber(entry, l?.remaining ?? []);
    modes[mode] = { available, remaining: remaining !== undefined && Number.isInteger(remaining) && remaining >= 0 ? remaining : null };
  }
  return { modes };
}

/** A JSON body a tab fetched for the account (models, projects, recent threads). */
export function accountBody(fetched: unknown, what: string, r: AccountJsonReader): unknown {
  const { status, body, path } = fetched as { status: number; body: string; path: string };
  if (status >= 400) throw new RelayError('AGENT_ERROR', `Perplexity answered HTTP ${status} for ${what} (${path}); is the account signed in?`);
  if (!body.trim()) throw new RelayError('AGENT_ERROR', `Perplexity sent an empty answer for ${what} (rate-limited); try again in a minute.`);
  try {
    return JSON.parse(body);
  } catch {
    throw new RelayError('AGENT_ERROR', `Perplexity's answer for ${what} (${path}) is not JSON (reader ${r.name}).`);
  }
}

export function modelsFrom(value: unknown, r: AccountJsonReader): ModelsList {
  const m = r.models;
  const models = pick(value, m.models).values.map((x) => ({
    id: firstString(x, m.model.id) ?? '',
    label: firstString(x, m.model.label) ?? '',
    description: firstString(x, m.model.description) ?? '',
    fast: firstBoolean(x, m.model.fast) ?? false,
    efforts: strings(x, m.model.efforts),
    default_effort: firstString(x, m.model.defaultEffort) ?? null,
  }));
  if (models.length === 0 || models.some((x) => !x.id)) {
    throw new RelayError('AGENT_ERROR', `Perplexity's Computer models have no list at ${m.models.join(' or ')} (reader ${r.name}).`);
  }
  return {
    default_mode: firstString(value, m.defaultMode) ?? null,
    modes: pick(value, m.modes).values.map((x) => ({
      mode: firstString(x, m.mode.mode) ?? '',
      model: firstString(x, m.mode.model) ?? '',
      effort: firstString(x, m.mode.effort) ?? '',
    })),
    models,
    default_model: firstString(value, m.defaultModel) ?? null,
  };
}

export function projectsFrom(value: unknown, r: AccountJsonReader, origin: string) {
  const p = r.projects;
  const list = pick(value, p.list.map((x) => x.replace(/\[\]$/, ''))).values[0];
  if (!Array.isArray(list)) throw new RelayError('AGENT_ERROR', `Perplexity's Projects answer has no list at ${p.list.join(' or ')} (reader ${r.name}).`);
  return {
    projects: pick(value, p.list).values.map((x) => {
      const url = firstString(x, p.project.url) ?? '';
      return {
        project_uuid: firstString(x, p.project.uuid) ?? '',
        project_url: url ? new URL(url, origin).href : '',
        name: firstString(x, p.project.name) ?? '',
        description: firstString(x, p.project.description) ?? '',
        role: firstString(x, p.project.role) ?? '',
        landing_category: firstString(x, p.project.landingCategory) ?? '',
        knowledge_enabled: firstBoolean(x, p.project.knowledgeEnabled) ?? false,
      };
    }),
    next_cursor: firstString(value, p.nextCursor) ?? null,
  };
}

/** Where a thread given by uuid or slug lives, from the recent threads (its kind says which page). */
export function threadPathFrom(value: unknown, r: AccountJsonReader, threadId: string): string | undefined {
  const l = r.listRecent;
  for (const t of pick(value, l.threads).values) {
    const uuid = firstString(t, l.uuid);
    const slug = firstString(t, l.slug);
    if (uuid !== threadId && slug !== threadId) continue;
    const template = l.threadPath[firstString(t, l.modeType) ?? ''] ?? l.threadPath.search;
    return template?.replace('{uuid}', encodeURIComponent(uuid ?? threadId)).replace('{slug}', encodeURIComponent(slug ?? threadId));
  }
  return undefined;
}
