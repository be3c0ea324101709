/**
 * The web app's own thread data, as the simulated perplexity.ai serves it:
 *
 *   GET /rest/thread/{uuid or slug}?version=2.18&source=default[&cursor=N][&limit=N]
 *   GET /rest/thread/list_recent
 *
 * Both need the headers `x-app-apiclient: default` and `x-app-apiversion: 2.18`; without them lists
 * come back empty (what unofficial clients report of the real site). Too many requests in a window
 * get empty bodies (rate limiting). What is public (entries, background_entries, thread_metadata,
 * entry status PENDING / COMPLETED, blocks by intended_usage, workflow statuses, user-response
 * items, locked_reason) follows the public record; everything else here is our guess, kept in this
 * one file (see README.md, "Computer tasks"): the user-response item kinds, `wake_at`, the
 * assets block's intended_usage, the page size and cursor, FAILED for errors.
 */
import { threadJson2026 } from '../../lib/selectors/thread-json';
import type { ThreadJsonReader } from '../../lib/selectors/thread-schema';
import { blockTokens } from './answer';
import { ASSET_URL_TTL_S, assetBytes } from './files';
import { assetPathOf, blockId } from './task-paths';
import type { BlockSpec } from './task-types';
import { replyFor, turnStateAt } from './task-state';
import type { Block, InteractionEvent, Inline, Source, ThreadData, TurnData } from './types';

export const JSON_API_VERSION = '2.18';
export const REQUIRED_HEADERS: Record<string, string> = { 'x-app-apiclient': 'default', 'x-app-apiversion': JSON_API_VERSION };

/** What the endpoint does, for tests: `ok`, or broken in one of the ways a reader must survive. */
export type JsonMode = 'ok' | 'empty' | 'malformed' | 'moved' | 'error';

export interface RateLimit {
  /** Requests allowed per window; beyond that, bodies are empty until the window moves on. */
  max: number;
  windowMs: number;
}

/** Sliding-window counter of the thread JSON requests (peers saw empty bodies after ~150 in a few minutes). */
export class JsonGate {
  private hits: number[] = [];
  requests = 0;
  limited = 0;
  constructor(public limit: RateLimit) {}

  allow(now: number): boolean {
    this.requests += 1;
    this.hits = this.hits.filter((t) => now - t < this.limit.windowMs);
    if (this.hits.length >= this.limit.max) {
      this.limited += 1;
      return false;
    }
    this.hits.push(now);
    return true;
  }
}

// ── Markdown of an answer prefix (the JSON holds what has streamed so far) ───────────────────────

function inlineMd(list: Inline[], sources: Source[], budget: number): { md: string; used: number } {
  let md = '';
  let used = 0;
  for (const i of list) {
    if (used >= budget) break;
    if (typeof i === 'string' || 'bold' in i) {
      const text = typeof i === 'string' ? i : i.bold;
      const words = text.match(/\s*\S+/g) ?? [];
      const take = Math.min(words.length, budget - used);
      const shown = take === words.length ? text : words.slice(0, take).join('');
      md += typeof i === 'string' ? shown : `**${shown}**`;
      used += take;
    } else if ('cite' in i) {
      md += i.cite.map((n) => (sources[n] ? `[${n + 1}]` : '')).join('');
      used += 1;
    } else {
      md += `\`${i.code}\``;
      used += 1;
    }
  }
  return { md, used };
}

function blockMd(b: Block, sources: Source[], budget: number): string {
  switch (b.type) {
    case 'h2':
    case 'h3':
      return `${b.type === 'h2' ? '##' : '###'} ${(b.text.match(/\s*\S+/g) ?? []).slice(0, budget).join('').trim()}`;
    case 'p':
      return inlineMd(b.inlines, sources, budget).md;
    case 'ul':
    case 'ol': {
      let left = budget;
      const lines: string[] = [];
      b.items.forEach((item, n) => {
        if (left <= 0) return;
        const r = inlineMd(item, sources, left);
        left -= r.used;
        lines.push(`${b.type === 'ul' ? '-' : `${n + 1}.`} ${r.md}`);
      });
      return lines.join('\n');
    }
    case 'code':
      return `\`\`\`${b.lang}\n${b.code.split('\n').slice(0, budget).join('\n')}\n\`\`\``;
    case 'nested':
      return answerMarkdown(b.blocks, sources, budget);
  }
}

/** The first `tokens` tokens of an answer as Markdown (citations as [n]). */
export function answerMarkdown(blocks: Block[], sources: Source[], tokens: number): string {
  const out: string[] = [];
  let left = tokens;
  for (const b of blocks) {
    if (left <= 0) break;
    out.push(blockMd(b, sources, left));
    left -= blockTokens(b);
  }
  return out.join('\n\n');
}

// ── entries ───────────────────────────────────────────────────────────────────────────────────

const iso = (ms: number) => new Date(ms).toISOString();

const KIND_OF: Record<InteractionEvent['kind'], string> = {
  ask_user_question: 'ASK_USER_QUESTION',
  confirm_action: 'CONFIRM_ACTION',
  auth_required: 'CONNECTOR_AUTH',
};

function interactionItem(turn: TurnData, ev: InteractionEvent, answered: boolean, clarifying: boolean) {
  const id = ev.id ?? `${turn.uuid}-interaction`;
  const reply = answered ? replyFor(turn, ev) : undefined;
  const questions = ev.questions ?? (ev.kind === 'ask_user_question' ? [{ id: `${id}-q`, text: ev.prompt, options: ev.options }] : undefined);
  const pausedAt = turn.startedAt + ev.t;
  return {
    type: 'WORKFLOW_ITEM_USER_RESPONSE',
    uuid: id,
    user_response_payload: {
      kind: clarifying ? 'CLARIFYING_QUESTIONS' : KIND_OF[ev.kind],
      answer_submission_uuid: id,
      prompt: ev.prompt,
      requires_user_response: !ev.optional,
      ...(questions
        ? {
            questions: questions.map((q) => ({
              id: q.id,
              text: q.text,
              options: (q.options ?? []).map((label) => ({ label })),
              multi_select: Boolean(q.multiple),
            })),
          }
        : {}),
      ...(ev.connector
        ? {
            connector: {
              id: ev.connector.id,
              display_name: ev.connector.name,
              auth_url: ev.connector.authUrl,
              title: ev.connector.title ?? null,
              description: ev.connector.description ?? null,
            },
          }
        : {}),
      expires_at: ev.expiresInMs !== undefined ? iso(pausedAt + ev.expiresInMs) : null,
      responses: reply ? [{ kind: reply.kind.toUpperCase(), submitted_at: reply.at ? iso(reply.at) : null }] : [],
    },
  };
}

function blockItem(turn: TurnData, block: BlockSpec) {
  const kind = block.kind === 'two_factor_required' ? 'TWO_FACTOR' : 'FORM';
  const id = blockId(turn, block);
  return {
    type: 'WORKFLOW_ITEM_USER_RESPONSE',
    uuid: id,
    user_response_payload: {
      kind,
      answer_submission_uuid: id,
      prompt: block.text,
      requires_user_response: true,
      ...(block.kind === 'interaction_required' ? { form: { title: block.title ?? 'Form', url: block.url ?? '' } } : {}),
      expires_at: null,
      responses: [],
    },
  };
}

const text = (variant: string, value: string) => ({ type: 'WORKFLOW_ITEM_TEXT', text_payload: { variant, text: value } });

function entryJson(thread: ThreadData, turn: TurnData, now: number, origin: string) {
  const st = turnStateAt(turn, now);
  const computer = turn.mode === 'computer';
  const clarifying = turn.scenario === 'research-clarify';
  const answer = st.tokens > 0 ? answerMarkdown(turn.script.answer, turn.script.sources, st.tokens) : '';
  const running = st.phase === 'working' || st.phase === 'paused' || st.phase === 'sleeping';
  const workflowStatus = {
    working: 'WORKFLOW_IN_PROGRESS',
    paused: 'WORKFLOW_AWAITING_NEXT_STEPS',
    sleeping: 'WORKFLOW_AWAITING_NEXT_STEPS',
    blocked: 'WORKFLOW_AWAITING_NEXT_STEPS',
    finished: 'WORKFLOW_COMPLETED',
    stopped: 'WORKFLOW_CANCELED',
    error: 'WORKFLOW_ERROR',
  }[st.phase];
  const steps: unknown[] = st.steps.map((s, i) => ({
    uuid: `${turn.uuid}-step-${i}`,
    status: i === st.steps.length - 1 && st.phase === 'working' ? 'IN_PROGRESS' : 'DONE',
    items: [text('progress', s)],
  }));
  const interactions = [
    ...st.answered.map(({ event }) => interactionItem(turn, event, true, clarifying)),
    ...st.optional.map((event) => interactionItem(turn, event, false, false)),
    ...st.pending.map((event) => interactionItem(turn, event, false, clarifying)),
    ...(st.block && (st.block.kind === 'two_factor_required' || st.block.kind === 'interaction_required') ? [blockItem(turn, st.block)] : []),
  ];
  if (interactions.length) steps.push({ uuid: `${turn.uuid}-ask`, status: st.pending.length ? 'IN_PROGRESS' : 'DONE', items: interactions });
  if (computer && answer) steps.push({ uuid: `${turn.uuid}-answer`, status: st.phase === 'finished' ? 'DONE' : 'IN_PROGRESS', items: [text('answer', answer)] });

  const blocks: unknown[] = [];
  if (st.plan.length) {
    blocks.push({
      intended_usage: 'plan_block',
      plan_block: { goals: st.plan.map((g) => ({ description: g.text, status: g.done ? 'DONE' : 'IN_PROGRESS' })) },
    });
  }
  blocks.push({
    intended_usage: 'workflow_root',
    workflow_block: {
      status: workflowStatus,
      ...(st.wakeAt !== undefined ? { wake_at: iso(st.wakeAt) } : {}),
      ...(st.block?.kind === 'waiting' ? { waiting_reason: st.block.text } : {}),
      ...(st.error ? { error_message: st.error } : {}),
      steps,
    },
  });
  if (!computer) {
    blocks.push({
      intended_usage: 'ask_text',
      markdown_block: { progress: st.phase === 'finished' ? 'DONE' : 'IN_PROGRESS', answer, chunks: answer ? [answer] : [] },
    });
  }
  if (st.tokens > 0 && turn.script.sources.length) {
    blocks.push({
      intended_usage: 'web_results',
      web_result_block: { web_results: turn.script.sources.map((s) => ({ name: s.title, url: s.url ?? null, snippet: s.snippet ?? null })) },
    });
  }
  if (st.assets.length) {
    const expires = Math.floor(now / 1000) + ASSET_URL_TTL_S;
    blocks.push({
      intended_usage: 'assets_answer_mode',
      assets_mode_block: {
        assets: st.assets.map((a) => ({
          uuid: a.id,
          asset_type: 'FILE',
          is_primary: a.primary,
          root_asset_uuid: a.rootId ?? null,
          parent_asset_uuid: a.parentId ?? null,
          created_at: Math.floor(turn.startedAt / 1000),
          download_info: [
            {
              url: `${origin}${assetPathOf(thread.id, a)}?expires=${expires}&signature=sim`,
              filename: a.filename,
              size: assetBytes(a).length,
              media_type: a.mediaType,
              expires_at: expires,
            },
          ],
        })),
      },
    });
  }
  return {
    uuid: turn.uuid,
    backend_uuid: turn.uuid,
    context_uuid: thread.id,
    query_str: turn.query,
    mode: computer ? 'AGENTIC' : turn.mode === 'deep-research' ? 'RESEARCH' : 'COPILOT',
    status: running ? 'PENDING' : st.phase === 'error' ? 'FAILED' : 'COMPLETED',
    created_datetime: iso(turn.startedAt),
    attachments: (turn.attachments ?? []).map((a) => ({ filename: a.filename, size: a.size, media_type: a.mimeType })),
    ...(turn.settings ? { computer_settings: turn.settings } : {}),
    blocks,
  };
}

/** Why the account cannot run the thread's latest turn, if a credits / access block says so. */
function locked(thread: ThreadData, now: number) {
  const last = thread.turns.at(-1);
  const block = last ? turnStateAt(last, now).block : undefined;
  if (block?.kind === 'insufficient_credits') {
    return { locked_reason: block.reason ?? 'insufficient_credits', billing_url: block.url ?? null, quota_reset_date: block.quotaResetDate ?? null };
  }
  if (block?.kind === 'access_denied') return { locked_reason: 'access_denied', billing_url: null, quota_reset_date: null };
  return { locked_reason: null };
}

export interface ThreadJsonQuery {
  cursor: string | null;
  limit: number;
  /** The app's headers were sent: without them, lists come back empty. */
  authorized: boolean;
}

export function threadJson(thread: ThreadData, now: number, origin: string, q: ThreadJsonQuery): unknown {
  const offset = Math.max(0, Number.parseInt(q.cursor ?? '0', 10) || 0);
  const turns = q.authorized ? thread.turns.slice(offset, offset + q.limit) : [];
  const more = q.authorized && offset + q.limit < thread.turns.length;
  return {
    status: 'success',
    thread_metadata: {
      uuid: thread.id,
      slug: thread.slug,
      title: thread.title,
      mode_type: thread.kind === 'computer' ? 'computer' : 'search',
      created_datetime: iso(thread.createdAt),
      updated_datetime: iso(thread.updatedAt),
      entry_count: thread.turns.length,
      project_uuid: thread.projectUuid ?? null,
      project_visibility: thread.projectVisibility ?? null,
      ...locked(thread, now),
    },
    entries: turns.map((t) => entryJson(thread, t, now, origin)),
    background_entries: [],
    has_next_page: more,
    next_cursor: more ? String(offset + q.limit) : null,
  };
}

/** The same data after a redesign moved the lists (a reader must notice and fall back). */
export function movedJson(value: unknown): unknown {
  const v = value as { entries?: unknown; thread_metadata?: unknown; next_cursor?: unknown };
  return { status: 'success', data: { thread: v.thread_metadata, turns: v.entries, cursor: v.next_cursor ?? null } };
}

/**
 * A thread JSON reader that knows the `moved` shape: what a person (or a maintainer) would write
 * and install with `comet-relay selectors add` once the real page moved like that. Built from the
 * built-in reader, with the thread-level paths moved; entries read as before.
 */
export function movedShapeReader(name = 'thread-json-2027-01'): ThreadJsonReader {
  const r = threadJson2026;
  return {
    ...r,
    name,
    checked: '2026-12-01 (the simulated site, jsonMode "moved")',
    thread: {
      entries: ['data.turns'],
      nextCursor: ['data.cursor'],
      title: ['data.thread.title'],
      uuid: ['data.thread.uuid'],
      slug: ['data.thread.slug'],
      modeType: ['data.thread.mode_type'],
      lockedReason: ['data.thread.locked_reason'],
      billingUrl: ['data.thread.billing_url'],
      quotaResetDate: ['data.thread.quota_reset_date'],
    },
  };
}

export function listRecentJson(threads: ThreadData[], now: number, authorized: boolean): unknown {
  return {
    threads: authorized
      ? threads.slice(0, 20).map((t) => {
          const last = t.turns.at(-1);
          const phase = last ? turnStateAt(last, now).phase : 'finished';
          return {
            uuid: t.id,
            slug: t.slug,
            title: t.title,
            mode_type: t.kind === 'computer' ? 'computer' : 'search',
            status: phase === 'working' || phase === 'paused' || phase === 'sleeping' ? 'PENDING' : 'COMPLETED',
            updated_datetime: iso(t.updatedAt),
          };
        })
      : [],
  };
}
