import { RelayError } from '../protocol/errors';
import type { ModelsList, ThreadAsset } from '../protocol/threads';
import type { ThreadJsonReader } from '../selectors/thread-schema';
import { firstBoolean, firstString, pick, strings } from './json-path';

/**
 * The account's Computer options (models_list) and Projects (projects_list), read from the web
 * app's own JSON through the reader's data, and the paging of a thread's assets.
 */

async function getJson(win: Window, r: ThreadJsonReader, path: string, query: Record<string, string>, what: string): Promise<unknown> {
  const url = new URL(path, win.location.origin);
  for (const [k, v] of Object.entries(query)) if (v !== '') url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await win.fetch(url.href, { headers: r.request.headers, credentials: 'include', cache: 'no-store' });
  } catch (e) {
    throw new RelayError('EVALUATION_FAILED', `Could not read ${what} from ${url.pathname} (${(e as Error).message}).`);
  }
  const body = await res.text();
  if (!res.ok) throw new RelayError('AGENT_ERROR', `Perplexity answered HTTP ${res.status} for ${what} (${url.pathname}); is the account signed in?`);
  if (!body.trim()) throw new RelayError('AGENT_ERROR', `Perplexity sent an empty answer for ${what} (rate-limited); try again in a minute.`);
  try {
    return JSON.parse(body);
  } catch {
    throw new RelayError('AGENT_ERROR', `Perplexity's answer for ${what} (${url.pathname}) is not JSON (reader ${r.name}).`);
  }
}

export async function readModels(win: Window, r: ThreadJsonReader): Promise<ModelsList> {
  const m = r.models;
  const value = await getJson(win, r, m.path, {}, 'the Computer models');
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

export async function readProjects(win: Window, r: ThreadJsonReader, params: { searchTerm?: string; cursor?: string }) {
  const p = r.projects;
  const value = await getJson(win, r, p.path, { [p.searchParam]: params.searchTerm ?? '', [p.cursorParam]: params.cursor ?? '' }, 'the Projects');
  const list = pick(value, p.list);
  if (!list.path && !Array.isArray(pick(value, p.list.map((x) => x.replace(/\[\]$/, ''))).values[0])) {
    throw new RelayError('AGENT_ERROR', `Perplexity's Projects answer has no list at ${p.list.join(' or ')} (reader ${r.name}).`);
  }
  return {
    projects: list.values.map((x) => {
      const url = firstString(x, p.project.url) ?? '';
      return {
        project_uuid: firstString(x, p.project.uuid) ?? '',
        project_url: url ? new URL(url, win.location.origin).href : '',
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

/**
 * Where a thread lives, when the page at /computer/tasks/{id} says it does not exist: the recent
 * threads list knows it by uuid or slug, and its kind says which page shows it.
 */
export async function locateThread(win: Window, r: ThreadJsonReader, threadId: string): Promise<string | undefined> {
  const l = r.listRecent;
  const value = await getJson(win, r, l.path, {}, 'the recent threads');
  for (const t of pick(value, l.threads).values) {
    const uuid = firstString(t, l.uuid);
    const slug = firstString(t, l.slug);
    if (uuid !== threadId && slug !== threadId) continue;
    const template = l.threadPath[firstString(t, l.modeType) ?? ''] ?? l.threadPath.search;
    if (!template) return undefined;
    return template.replace('{uuid}', encodeURIComponent(uuid ?? threadId)).replace('{slug}', encodeURIComponent(slug ?? threadId));
  }
  return undefined;
}
