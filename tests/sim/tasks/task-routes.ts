/**
 * The simulated perplexity.ai's routes for computer tasks, beside the page routes of site.ts:
 *
 *   GET  /rest/thread/{uuid or slug}      the web app's thread JSON (thread-json.ts), rate-limited
 *   GET  /rest/thread/list_recent         recent threads
 *   GET  /rest/models/config              the models config: Computer's models, modes and efforts (account.ts)
 *   GET  /rest/projects                   Projects, 50 at a time (account.ts)
 *   POST /_sim/api/upload                 a file from the composer's file input (files.ts)
 *   GET  /_sim/assets/{thread}/{asset}/…  a file a task produced
 *   GET  /computer/connectors/{id}/authorize?state=…   signing in to a connector (the task goes on)
 *   GET  /computer/forms/{id}             a form only Perplexity can show
 *   GET  /projects/{uuid}                 a Project's page (asks there start threads in it)
 */
import { modeLimitsJson, type ModesLeft, modelsJson, projectsJson, SIM_PROJECTS } from '../json/account';
import { assetBytes, Uploads } from '../files';
import { BILLING_URL } from './tasks';
import { turnStateAt } from './task-state';
import {
  JsonGate,
  type JsonMode,
  listRecentJson,
  movedJson,
  type RateLimit,
  REQUIRED_HEADERS,
  threadJson,
} from '../json/thread-json';
import type { AskRequest, InteractionEvent, PageData, ThreadData, TurnData, TurnReply } from '../types';
import type { SimRequest, SimResponse } from '../site';

export type { RateLimit } from '../json/thread-json';

export interface JsonControls {
  /** `ok`, or broken: `empty` bodies, `malformed` JSON, a `moved` shape, or HTTP 500 (`error`). */
  setMode(mode: JsonMode): void;
  readonly mode: JsonMode;
  setRateLimit(limit: RateLimit): void;
  /** Requests to /rest/thread/…, and how many of them got an empty body for the rate limit. */
  stats(): { requests: number; limited: number };
}

/** The account as Computer sees it: able to run tasks, out of credits, or without Computer. */
export type AccountState = 'ok' | 'out-of-credits' | 'no-computer';

export interface AccountControls {
  /** Refuse every computer-mode ask before anything is sent (the credit check, or no access). */
  set(state: AccountState): void;
  readonly state: AccountState;
  /** What `GET /rest/rate-limit/status` says is left of each mode (all available, uncounted, until set). */
  setModesLeft(left: ModesLeft): void;
}

export interface TaskRouteDeps {
  now(): number;
  speed(): number;
  origin: string;
  threads(): ThreadData[];
  findThread(ref: string): ThreadData | undefined;
  takeReply(thread: ThreadData, turn: TurnData, reply: TurnReply, interaction: string | undefined, at: number): { status: number; error?: string };
  rateLimit?: RateLimit;
  pageSize?: number;
  /** The thread JSON's shape or breakage at start (default `ok`); `site.json.setMode` changes it. */
  jsonMode?: JsonMode;
}

const DEFAULT_LIMIT: RateLimit = { max: 150, windowMs: 5 * 60_000 };

function jsonResponse(status: number, value: unknown): SimResponse {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value), headers: { 'cache-control': 'no-store' } };
}

export function taskRoutes(deps: TaskRouteDeps) {
  const gate = new JsonGate(deps.rateLimit ?? DEFAULT_LIMIT);
  const uploads = new Uploads();
  let mode: JsonMode = deps.jsonMode ?? 'ok';
  let account: AccountState = 'ok';
  let modesLeft: ModesLeft = {};

  /** A question nobody answered in time is skipped by the service itself, at its expiry time. */
  function settle(thread: ThreadData, at: number): void {
    const turn = thread.turns.at(-1);
    if (!turn || turn.reply) return;
    const st = turnStateAt(turn, at);
    for (const ev of st.pending) {
      if (ev.expiresInMs === undefined) continue;
      const expiry = turn.startedAt + ev.t + ev.expiresInMs;
      if (at >= expiry) deps.takeReply(thread, turn, { kind: 'skip' }, ev.id, expiry);
    }
  }

  function pendingOf(turn: TurnData, at: number): InteractionEvent[] {
    return turnStateAt(turn, at).pending;
  }

  const authorized = (req: SimRequest) => Object.entries(REQUIRED_HEADERS).every(([k, v]) => req.headers?.[k] === v);

  function threadRoute(ref: string, url: URL, req: SimRequest): SimResponse {
    if (!gate.allow(deps.now())) return { status: 200, contentType: 'application/json; charset=utf-8', body: '' };
    if (mode === 'error') return { status: 500, contentType: 'text/plain', body: 'internal error' };
    if (mode === 'empty') return { status: 200, contentType: 'application/json; charset=utf-8', body: '' };
    if (ref === 'list_recent') {
      for (const t of deps.threads()) settle(t, deps.now());
      return jsonResponse(200, listRecentJson(deps.threads(), deps.now(), authorized(req)));
    }
    const thread = deps.findThread(decodeURIComponent(ref));
    if (!thread) return jsonResponse(404, { status: 'failed', error_code: 'THREAD_NOT_FOUND' });
    settle(thread, deps.now());
    if (mode === 'malformed') return { status: 200, contentType: 'application/json; charset=utf-8', body: '{"entries": [ {"uuid": ' };
    // A test's page size wins over the one asked for, so a short thread still spans pages.
    const limit = Math.min(100, Math.max(1, deps.pageSize || Number(url.searchParams.get('limit')) || 20));
    const schematized = url.searchParams.get('with_schematized_response') === 'true';
    const value = threadJson(thread, deps.now(), deps.origin, { cursor: url.searchParams.get('cursor'), limit, authorized: authorized(req), schematized });
    return jsonResponse(200, mode === 'moved' ? movedJson(value) : value);
  }

  function assetRoute(threadRef: string, assetId: string): SimResponse {
    const thread = deps.findThread(decodeURIComponent(threadRef));
    for (const turn of thread?.turns ?? []) {
      const asset = turnStateAt(turn, deps.now()).assets.find((a) => a.id === decodeURIComponent(assetId));
      if (asset) {
        return {
          status: 200,
          contentType: asset.mediaType,
          body: assetBytes(asset),
          headers: { 'content-disposition': `attachment; filename="${asset.filename}"` },
        };
      }
    }
    return { status: 404, contentType: 'text/plain', body: 'no such file' };
  }

  /** Signing in: every turn waiting on this sign-in URL goes on; the page learns it over a BroadcastChannel. */
  function authorize(connectorId: string, url: URL): PageData {
    const at = deps.now();
    const resumed: { thread: string; turn: number }[] = [];
    for (const thread of deps.threads()) {
      const turn = thread.turns.at(-1);
      if (!turn) continue;
      for (const ev of pendingOf(turn, at)) {
        if (ev.kind !== 'auth_required' || !ev.connector) continue;
        const wanted = new URL(ev.connector.authUrl);
        if (wanted.pathname !== url.pathname || wanted.searchParams.get('state') !== url.searchParams.get('state')) continue;
        if (deps.takeReply(thread, turn, { kind: 'connected' }, ev.id, at).status === 200) resumed.push({ thread: thread.id, turn: turn.index });
      }
    }
    const name = connectorId.replace(/-/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
    return {
      kind: 'static',
      title: `${name} connected`,
      text: `${name} is connected to Perplexity Computer. You can close this tab.`,
      broadcast: { type: 'connector-connected', connector: connectorId, resumed },
    };
  }

  return {
    controls: {
      setMode(m: JsonMode) {
        mode = m;
      },
      get mode() {
        return mode;
      },
      setRateLimit(limit: RateLimit) {
        gate.limit = limit;
      },
      stats: () => ({ requests: gate.requests, limited: gate.limited }),
    } satisfies JsonControls,

    account: {
      set(state: AccountState) {
        account = state;
      },
      get state() {
        return account;
      },
      setModesLeft(left: ModesLeft) {
        modesLeft = left;
      },
    } satisfies AccountControls,

    /** A computer-mode ask the account cannot make: refused before a thread or turn exists. */
    refusal(mode: string): SimResponse | null {
      if (mode !== 'computer' || account === 'ok') return null;
      if (account === 'no-computer') return jsonResponse(403, { error_code: 'COMPUTER_NOT_ENABLED', reason: 'access_denied' });
      return jsonResponse(402, { error_code: 'INSUFFICIENT_CREDITS', reason: 'insufficient_credits', billing_url: BILLING_URL, quota_reset_date: null });
    },

    pendingOf(turn: TurnData, at: number): InteractionEvent[] {
      const thread = deps.threads().find((t) => t.turns.includes(turn));
      if (thread) settle(thread, at);
      return pendingOf(turn, at);
    },

    /** Files, settings and project of a new turn, from the ask. */
    prepareTurn(turn: TurnData, req: AskRequest): void {
      const files = uploads.take(req.attachments);
      if (files.length) turn.attachments = files;
      const s = req.settings;
      if (s && (s.mode || s.model)) turn.settings = { ...(s.mode ? { mode: s.mode } : {}), ...(s.model ? { model: s.model } : {}), ...(s.effort ? { effort: s.effort } : {}) };
    },

    projectOf(project: NonNullable<AskRequest['project']>): Pick<ThreadData, 'projectUuid' | 'projectVisibility'> {
      return { projectUuid: project.uuid, projectVisibility: project.visibility === 'project' ? 'project' : 'private' };
    },

    /** Pages of projects, forms and connector sign-ins; `url` carries the sign-in's state. */
    pageFor(path: string, url: URL): PageData | null {
      const auth = /^\/computer\/connectors\/([a-z0-9-]+)\/authorize$/.exec(path);
      if (auth) return authorize(auth[1] as string, url);
      let m = /^\/projects\/([^/]+)$/.exec(path);
      if (m) {
        const p = SIM_PROJECTS.find((x) => x.uuid === decodeURIComponent(m?.[1] ?? ''));
        return p ? { kind: 'project', project: { uuid: p.uuid, name: p.name, description: p.description } } : { kind: 'not-found' };
      }
      m = /^\/computer\/forms\/([^/]+)$/.exec(path);
      if (m) return { kind: 'static', title: 'Shipping address', text: 'Fill in this form to let Computer continue. (The simulated form has no fields.)' };
      return null;
    },

    async handle(method: string, url: URL, req: SimRequest): Promise<SimResponse | null> {
      const path = url.pathname;
      const m = /^\/rest\/thread\/([^/]+)$/.exec(path);
      if (m && method === 'GET') return threadRoute(m[1] as string, url, req);
      if (path === '/rest/models/config' && method === 'GET') return jsonResponse(200, modelsJson());
      if (path === '/rest/rate-limit/status' && method === 'GET') return jsonResponse(200, modeLimitsJson(modesLeft));
      if (path === '/rest/projects' && method === 'GET') {
        return jsonResponse(200, projectsJson(url.searchParams.get('search_term'), url.searchParams.get('cursor')));
      }
      if (path === '/_sim/api/upload' && method === 'POST') {
        const r = uploads.receive(req.body);
        return jsonResponse(r.status, r.value);
      }
      const asset = /^\/_sim\/assets\/([^/]+)\/([^/]+)\/[^/]+$/.exec(path);
      if (asset && method === 'GET') return assetRoute(asset[1] as string, asset[2] as string);
      return null;
    },
  };
}
