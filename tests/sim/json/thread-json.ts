/**
 * The web app's own thread data, as the simulated perplexity.ai serves it:
 *
 *   GET /rest/thread/{uuid or slug}?with_schematized_response=true&version=2.18&source=default[&cursor=N][&limit=N]
 *   GET /rest/thread/list_recent
 *
 * Shaped like the bodies captured from the live site (lib/selectors/README.md, "The web app's
 * JSON"), in our own words: `thread_metadata` (`title`, `mode` "2" / "4", `wake_at`,
 * `locked_reason`, Computer's `workflow_snapshots.SHARED_FILES`), entries with `search_mode`,
 * `query_str`, `status` PENDING / COMPLETED and blocks by `intended_usage`: `plan`, `workflow_root`
 * (step titles, questions as `WORKFLOW_ITEM_USER_QUESTIONS` with their answer items, the answer
 * as a `WORKFLOW_ITEM_TEXT` of variant "answer"; Deep Research keeps the older `ask_text` block),
 * `web_results`. Without `with_schematized_response=true` entries come back with no `blocks`, as
 * on the real site. Both requests need the headers `x-app-apiclient: default` and
 * `x-app-apiversion: 2.18`; without them lists come back empty. Too many requests in a window get
 * empty bodies (rate limiting). Our guesses, kept in this one file and marked where they are
 * made: the non-question kinds (`WORKFLOW_ITEM_USER_INPUT`), question ids, expiry,
 * `waiting_reason`, `error_message`, FAILED, the per-entry assets block, the page size and cursor.
 */
import { threadJson2026 } from '../../../lib/selectors/thread-json';
import type { ThreadJsonReader } from '../../../lib/selectors/thread-schema';
import { blockTokens, sourceTrust } from '../answer';
import { ASSET_URL_TTL_S, assetBytes } from '../files';
import { assetPathOf, blockId } from '../tasks/task-paths';
import type { BlockSpec } from '../tasks/task-types';
import { replyFor, turnStateAt } from '../tasks/task-state';
import type { Block, InteractionEvent, Inline, Source, ThreadData, TurnData } from '../types';

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
/** The site's times with no zone (`updated_datetime`, `last_query_datetime`). */
const siteTime = (ms: number) => iso(ms).replace(/Z$/, '');

const DEFAULT_MODEL: Record<string, string> = { computer: 'pplx_asi', 'deep-research': 'pplx_alpha' };
function displayModel(turn: TurnData): string {
  return turn.settings?.model ?? DEFAULT_MODEL[turn.mode ?? ''] ?? 'pplx_pro';
}

/**
 * One source as the live site's `web_results` carry it (the streams of 2026-07-31 and 2026-08-04, the thread JSON of
 * 2026-08-01, in our own words): the page's title as `name`, a snippet of a few sentences (~260 characters), a day as
 * `timestamp`, `meta_data` with the client that found it, the `is_*` kinds (all false there; we say an uploaded file,
 * a source with no URL, is an attachment: our guess) and `trust`, always an object `{level, name, description}` as in
 * every result of the thread JSON of 2026-07-31 and 2026-08-01 (answer.ts `sourceTrust` says which). Its row in the Sources tab
 * (`sources_answer_mode`) carries it whole, as the thread JSON of 2026-08-01 does (the stream of 2026-08-04 sends its
 * rows with an empty snippet and no `meta_data`; one entry serves both here).
 */
function webResultOf(s: Source, i: number) {
  return {
    name: s.title,
    snippet: s.snippet ?? `${s.title}. ${SNIPPET_FILLER}`,
    timestamp: `2026-0${(i % 9) + 1}-1${i % 10}T00:00:00`,
    url: s.url ?? null,
    meta_data: { citation_domain_name: null, client: 'web', images: [] },
    is_attachment: s.url === undefined,
    ...Object.fromEntries(RESULT_KINDS.map((k) => [k, false])),
    trust: sourceTrust(i),
  };
}
const SNIPPET_FILLER =
  'The simulated site gives every source a snippet of a few sentences, as the live one does, so that the frames and the ' +
  'thread JSON weigh what theirs weigh; the words themselves are ours.';
const RESULT_KINDS = ['is_image', 'is_code_interpreter', 'is_knowledge_card', 'is_navigational', 'is_widget', 'is_focused_web', 'is_client_context', 'is_memory', 'is_conversation_history', 'is_conversation_summary'];

/** Kinds other than questions: their item and payload are our guess (nothing public shows them). */
const KIND_OF: Record<Exclude<InteractionEvent['kind'], 'ask_user_question'>, string> = {
  confirm_action: 'CONFIRM_ACTION',
  auth_required: 'CONNECTOR_AUTH',
};

/** The person's reply as the answer item holds it: one `{ question, answer }` per question answered. */
function responsesOf(reply: ReturnType<typeof replyFor>, questions: { id: string; text: string }[]): unknown[] {
  if (!reply || reply.kind === 'skip') return [];
  if (reply.kind === 'answers') return questions.filter((q) => q.id in reply.answers).map((q) => ({ question: q.text, answer: reply.answers[q.id] }));
  if (reply.kind === 'answer') return [{ question: questions[0]?.text ?? '', answer: reply.text }];
  return [{ question: '', answer: reply.kind.toUpperCase() }];
}

/**
 * One thing the agent asks the person, as two items sharing an id: what it asks (questions as
 * `WORKFLOW_ITEM_USER_QUESTIONS`, the real shape; anything else as our guessed
 * `WORKFLOW_ITEM_USER_INPUT`) and what the person answered (`WORKFLOW_ITEM_USER_RESPONSE`, empty
 * until then and left empty when the question times out).
 */
function interactionItems(turn: TurnData, ev: InteractionEvent, answered: boolean, clarifying: boolean): unknown[] {
  const id = ev.id ?? `${turn.uuid}-interaction`;
  const itemId = `${id}:item:0`;
  const reply = answered ? replyFor(turn, ev) : undefined;
  const questions = ev.questions ?? (ev.kind === 'ask_user_question' ? [{ id: `${id}-q`, text: ev.prompt, options: ev.options }] : []);
  const pausedAt = turn.startedAt + ev.t;
  const expiresAt = ev.expiresInMs !== undefined ? iso(pausedAt + ev.expiresInMs) : null;
  const asked =
    ev.kind === 'ask_user_question'
      ? {
          id: itemId,
          type: 'WORKFLOW_ITEM_USER_QUESTIONS',
          payload: {
            user_questions_payload: {
              title: ev.prompt,
              ...(ev.expiresInMs !== undefined ? { timeout_seconds: Math.round(ev.expiresInMs / 1000), expires_at: expiresAt } : {}),
              fields: questions.map((q) => ({
                // Our guess: the real fields are known by their text alone; the sim's page names them by id.
                field_id: q.id,
                field_name: q.text,
                options: [
                  ...(q.options ?? []).map((title) => ({ title, description: '', is_free_text_selection: false })),
                  { is_free_text_selection: true, title_type: 'OTHER' },
                ],
                allow_multichoice: Boolean(q.multiple),
                allow_free_text: true,
              })),
              answer_submission_uuid: id,
              response_endpoint: clarifying ? 'handle_perplexity_research_clarifying_answers' : 'handle_asi_answers',
            },
          },
        }
      : {
          id: itemId,
          type: 'WORKFLOW_ITEM_USER_INPUT',
          payload: {
            user_input_payload: {
              kind: KIND_OF[ev.kind],
              answer_submission_uuid: id,
              prompt: ev.prompt,
              requires_user_response: !ev.optional,
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
              expires_at: expiresAt,
            },
          },
        };
  const response = {
    id: itemId,
    type: 'WORKFLOW_ITEM_USER_RESPONSE',
    payload: { user_response_payload: { title: ev.prompt, responses: responsesOf(reply, questions) } },
  };
  return [asked, response];
}

/** A two-factor prompt or a form only the page can take (our guess, like the other non-question kinds). */
function blockItems(turn: TurnData, block: BlockSpec): unknown[] {
  const id = blockId(turn, block);
  const itemId = `${id}:item:0`;
  return [
    {
      id: itemId,
      type: 'WORKFLOW_ITEM_USER_INPUT',
      payload: {
        user_input_payload: {
          kind: block.kind === 'two_factor_required' ? 'TWO_FACTOR' : 'FORM',
          answer_submission_uuid: id,
          prompt: block.text,
          requires_user_response: true,
          ...(block.kind === 'interaction_required' ? { form: { title: block.title ?? 'Form', url: block.url ?? '' } } : {}),
          expires_at: null,
        },
      },
    },
    { id: itemId, type: 'WORKFLOW_ITEM_USER_RESPONSE', payload: { user_response_payload: { title: block.text, responses: [] } } },
  ];
}

/**
 * The answer as the 2026-08-04 stream holds it: a text item of variant "answer" in the workflow, shown expanded
 * (`display_mode`, `variant` beside the payload, as there).
 */
const answerItem = (turn: TurnData, value: string, streaming: boolean) => ({
  id: `${turn.uuid}-answer-item`,
  type: 'WORKFLOW_ITEM_TEXT',
  payload: { text_payload: { text: value, chunks: value ? [value] : [], variant: 'answer', is_streaming: streaming } },
  display_mode: 'WORKFLOW_ITEM_ALWAYS_EXPAND',
  variant: 'answer',
});

/** Step icons of the sim's scripts (timeline.ts `I`) that stand for a web search. */
const SEARCH_ICONS = new Set(['pplx-icon-search', 'pplx-icon-world-search']);

/**
 * What the search step found, as the captures' "Searching the web" step lists it before the answer's step (the thread
 * JSON of 2026-07-31 and 2026-08-01, the stream of 2026-08-04): the queries it ran (`WORKFLOW_ITEM_QUERIES`) and, once
 * the answer is under way, the sources (`WORKFLOW_ITEM_SOURCES`). Neither is the answer: they are what the reader's
 * `type=WORKFLOW_ITEM_TEXT` filter leaves out. The queries are the turn's own question (our choice).
 */
function searchItems(turn: TurnData, stepId: string, withSources: boolean): unknown[] {
  return [
    { id: `${stepId}:item:0`, type: 'WORKFLOW_ITEM_QUERIES', payload: { queries_payload: { queries: [turn.query] } } },
    ...(withSources
      ? [
          {
            id: `${stepId}:item:1`,
            type: 'WORKFLOW_ITEM_SOURCES',
            payload: {
              sources_payload: {
                sources: turn.script.sources.map((s, i) => {
                  const r = webResultOf(s, i);
                  return { name: r.name, snippet: '', url: r.url, meta_data: { client: 'web' }, is_attachment: r.is_attachment, is_navigational: false, trust: r.trust };
                }),
              },
            },
          },
        ]
      : []),
  ];
}

/**
 * A step's times. Search and research: `""` both, started or not, done or not (every step of the real thread JSON of
 * 2026-07-31 and 2026-08-01 and of the streams of 2026-07-31 and 2026-08-04). Computer: ISO times with a `+0000` zone
 * (the bodies marked SIMULATED by pplx-tools, the only record of Computer's), `""` until known.
 */
function stepTimes(computer: boolean, turn: TurnData, started: number | undefined, completed: number | undefined) {
  const at = (t: number | undefined) => (computer && t !== undefined ? new Date(turn.startedAt + t).toISOString().replace(/Z$/, '+0000') : '');
  return { started_at: at(started), completed_at: at(completed) };
}

const SEARCH_MODE: Record<string, string> = { computer: 'ASI', 'deep-research': 'RESEARCH' };

/** A turn's entry: as the thread JSON serves it, or (`live`) whole at every moment, as its ask stream carries it. */
export function entryJson(thread: ThreadData, turn: TurnData, now: number, origin: string, live = false) {
  const st = turnStateAt(turn, now);
  const computer = turn.mode === 'computer';
  const clarifying = turn.scenario === 'research-clarify';
  // Deep Research entries keep the answer where the 2026-07-31 bodies had it (an ask_text block);
  // the others where the 2026-08-04 stream put it (a workflow text item). Both are real shapes.
  const legacyAnswer = turn.mode === 'deep-research';
  const answer = st.tokens > 0 ? answerMarkdown(turn.script.answer, turn.script.sources, st.tokens) : '';
  const running = st.phase === 'working' || st.phase === 'paused' || st.phase === 'sleeping';
  const asksPerson = st.phase === 'paused' || (st.phase === 'blocked' && (st.block?.kind === 'two_factor_required' || st.block?.kind === 'interaction_required'));
  const workflowStatus = asksPerson
    ? 'WORKFLOW_AWAITING_USER'
    : {
        // The live progression (the ask streams of 2026-08-04 and 2026-07-31): waiting for its first step, then
        // executing them; a step under way is PENDING. AWAITING_NEXT_STEPS alone is a turn at work, not a wait.
        working: st.steps.length === 0 ? 'WORKFLOW_AWAITING_NEXT_STEPS' : 'WORKFLOW_EXECUTING_STEPS',
        paused: 'WORKFLOW_AWAITING_USER',
        sleeping: 'WORKFLOW_AWAITING_NEXT_STEPS',
        blocked: 'WORKFLOW_AWAITING_NEXT_STEPS',
        finished: 'WORKFLOW_COMPLETED',
        stopped: 'WORKFLOW_CANCELED',
        error: 'WORKFLOW_ERROR',
      }[st.phase];
  const stepStatus = (last: boolean) => (last && st.phase === 'working' ? 'WORKFLOW_PENDING' : last && asksPerson ? 'WORKFLOW_AWAITING_USER' : 'WORKFLOW_COMPLETED');
  // A step is done when the next one starts, the answer starts or the turn ends (its script time; Computer says it).
  const doneAt = (i: number) => st.stepEvents[i + 1]?.t ?? st.answerAt ?? st.finishedAt;
  const firstSearch = computer ? -1 : st.stepEvents.findIndex((e) => SEARCH_ICONS.has(e.icon));
  const steps: unknown[] = st.steps.map((title, i) => {
    const id = `${turn.uuid}-step-${i}`;
    const search = SEARCH_ICONS.has(st.stepEvents[i]?.icon ?? '');
    return {
      id,
      status: stepStatus(i === st.steps.length - 1),
      title,
      items: i === firstSearch ? searchItems(turn, id, st.tokens > 0) : [],
      ...stepTimes(computer, turn, st.stepEvents[i]?.t, doneAt(i)),
      // Search and research steps name an icon ("search" with the tool `search_web`, else "default": the captures of
      // 2026-07-31, 2026-08-01 and 2026-08-04); Computer's steps name none (the SIMULATED bodies).
      ...(computer ? {} : search ? { icon: 'search', tool_name: 'search_web' } : { icon: 'default' }),
    };
  });
  const interactions = [
    ...st.answered.flatMap(({ event }) => interactionItems(turn, event, true, clarifying)),
    ...st.optional.flatMap((event) => interactionItems(turn, event, false, false)),
    ...st.pending.flatMap((event) => interactionItems(turn, event, false, clarifying)),
    ...(st.block && (st.block.kind === 'two_factor_required' || st.block.kind === 'interaction_required') ? blockItems(turn, st.block) : []),
  ];
  if (interactions.length) {
    const asked = [...st.answered.map((a) => a.event), ...st.optional, ...st.pending][0];
    steps.push({
      id: `${turn.uuid}-ask`,
      status: st.pending.length ? 'WORKFLOW_AWAITING_USER' : 'WORKFLOW_COMPLETED',
      title: '',
      tool_name: computer ? 'ask_user_question' : 'clarifying_questions',
      // The research's questions step names the icon "default" (thread JSON of 2026-07-31); Computer's names none.
      ...(computer ? {} : { icon: 'default' }),
      ...stepTimes(computer, turn, asked?.t, st.pending.length ? undefined : (st.answerAt ?? st.finishedAt)),
      items: interactions,
    });
  }
  if (answer && !legacyAnswer) {
    // The answer's step: no title, no icon, no tool, its items shown unnested (the stream of 2026-08-04).
    steps.push({
      id: `${turn.uuid}-answer`,
      status: st.phase === 'finished' ? 'WORKFLOW_COMPLETED' : 'WORKFLOW_PENDING',
      title: '',
      items: [answerItem(turn, answer, st.phase !== 'finished')],
      ...stepTimes(computer, turn, st.answerAt, st.finishedAt),
      unnest_items: true,
    });
  }

  // Every entry of the real bodies carries the answer's tabs and the follow-ups it waits on (thread JSON of 2026-07-31
  // and 2026-08-01); a search or research turn at work carries nothing else (NOTES §B: "a running entry has almost
  // nothing: PENDING → answer_tabs, pending_followups — no plan, no workflow"; its live state is in the ask stream).
  // Computer's running bodies (the SIMULATED captures) and a turn waiting on the person keep their workflow.
  const tabs = [
    { intended_usage: 'answer_tabs', answer_tabs_block: { modes: [{ answer_mode_type: 'ANSWER' }, { answer_mode_type: 'SOURCES' }], reformulated_queries: [turn.query] } },
    { intended_usage: 'pending_followups', pending_followups_block: { followups: [] } },
  ];
  const blocks: unknown[] = [...tabs];
  if (!computer && st.phase === 'working' && !live) return entryOf(thread, turn, running, blocks);
  if (st.plan.length) {
    blocks.push({
      intended_usage: 'plan',
      plan_block: {
        progress: st.phase === 'finished' ? 'DONE' : 'IN_PROGRESS',
        goals: st.plan.map((g, i) => ({ id: String(i), description: g.text, final: g.done, todo_task_status: g.done ? 'COMPLETE' : 'INCOMPLETE' })),
      },
    });
  }
  if (legacyAnswer) {
    blocks.push({
      intended_usage: 'ask_text',
      markdown_block: { progress: st.phase === 'finished' ? 'DONE' : 'IN_PROGRESS', chunks: answer ? [answer] : [], chunk_starting_offset: 0, answer },
    });
  }
  blocks.push({
    intended_usage: 'workflow_root',
    workflow_block: {
      version: '1.0',
      status: workflowStatus,
      // Our guesses: why a task waits, and what an error says.
      ...(st.block?.kind === 'waiting' ? { waiting_reason: st.block.text } : {}),
      ...(st.error ? { error_message: st.error } : {}),
      steps,
    },
  });
  if (st.tokens > 0 && turn.script.sources.length) {
    const webResults = turn.script.sources.map(webResultOf);
    blocks.push({ intended_usage: 'web_results', web_result_block: { progress: 'DONE', web_results: webResults } });
    // The same sources again, as the Sources tab lists them, beside web_results in every capture that has an answer (thread JSON
    // 2026-07-31 and 2026-08-01, streams 2026-07-31 and 2026-08-04): `sources_mode_block` with the results and a row each.
    blocks.push({
      intended_usage: 'sources_answer_mode',
      sources_mode_block: {
        answer_mode_type: 'SOURCES',
        progress: 'DONE',
        web_results: webResults,
        result_count: webResults.length,
        rows: webResults.map((web_result, i) => ({ web_result, status: 'UNSORTED', citation: i + 1 })),
      },
    });
  }
  if (st.assets.length) blocks.push({ intended_usage: 'assets_answer_mode', assets_mode_block: { assets: st.assets.map((a) => assetJson(thread, turn, a, now, origin)) } });
  return entryOf(thread, turn, running, blocks, st.phase === 'error');
}

function entryOf(thread: ThreadData, turn: TurnData, running: boolean, blocks: unknown[], failed = false) {
  return {
    uuid: turn.uuid,
    backend_uuid: turn.uuid,
    context_uuid: thread.id,
    thread_url_slug: thread.slug,
    thread_title: thread.title,
    query_str: turn.query,
    // The model that answered: the turn's Computer model, else the site's default for the mode (NOTES §B,
    // `/rest/models/config/v2` default_models); every entry of the real bodies and streams names one.
    display_model: displayModel(turn),
    mode: 'COPILOT',
    search_mode: SEARCH_MODE[turn.mode ?? ''] ?? 'SEARCH',
    // Our guess: a failed entry's status.
    status: running ? 'PENDING' : failed ? 'FAILED' : 'COMPLETED',
    entry_created_datetime: iso(turn.startedAt),
    // A finished entry says when the thread last changed, with no zone, as thread_metadata.updated_at does (thread JSON
    // of 2026-07-31 and 2026-08-01, the last frame of the stream of 2026-07-31); a running one says nothing yet.
    ...(running ? {} : { updated_datetime: siteTime(thread.updatedAt) }),
    attachments: (turn.attachments ?? []).map((a) => ({ filename: a.filename, size: a.size, media_type: a.mimeType })),
    ...(turn.settings ? { computer_settings: turn.settings } : {}),
    blocks,
  };
}

type SimAsset = ReturnType<typeof turnStateAt>['assets'][number];

/** A file as the simulated Computer bodies list them (`uuid`, `asset_type`, `download_info[]`, ids of its versions). */
function assetJson(thread: ThreadData, turn: TurnData, a: SimAsset, now: number, origin: string) {
  const expires = Math.floor(now / 1000) + ASSET_URL_TTL_S;
  return {
    uuid: a.id,
    asset_type: 'FILE',
    is_primary_asset: a.primary,
    root_asset_id: a.rootId ?? null,
    parent_asset_id: a.parentId ?? null,
    created_at: String(Math.floor(turn.startedAt / 1000)),
    download_info: [
      {
        url: `${origin}${assetPathOf(thread.id, a)}?expires=${expires}&signature=sim`,
        filename: a.filename,
        size: assetBytes(a).length,
        media_type: a.mediaType,
        expires_at: expires,
      },
    ],
  };
}

/**
 * Why the account cannot run the thread's latest turn, if a credits / access block says so. Credits: `locked_reason`
 * `spending_limit_exceeded` unless the block names another (the only value on record, NOTES §B: pplx-tools' findings of
 * 2026-07), with `thread_status` "blocked", a summary and `thread_status_summary_enum` "add_credits" beside it (the
 * shape NOTES §B reports of pplx-tools' simulated Computer bodies; the summary's words are ours). Otherwise the summary
 * fields are null, as in every real body (thread JSON of 2026-07-31 and 2026-08-01).
 */
function locked(thread: ThreadData, now: number) {
  const last = thread.turns.at(-1);
  const block = last ? turnStateAt(last, now).block : undefined;
  if (block?.kind === 'insufficient_credits') {
    return {
      thread_status: 'blocked',
      thread_status_summary: 'Out of credits: add some to go on',
      thread_status_summary_enum: 'add_credits',
      locked_reason: block.reason ?? 'spending_limit_exceeded',
      billing_url: block.url ?? null,
      quota_reset_date: block.quotaResetDate ?? null,
    };
  }
  const none = { thread_status_summary: null, thread_status_summary_enum: null };
  if (block?.kind === 'access_denied') return { ...none, locked_reason: 'access_denied', billing_url: null, quota_reset_date: null };
  return { ...none, locked_reason: null };
}

export interface ThreadJsonQuery {
  cursor: string | null;
  limit: number;
  /** The app's headers were sent: without them, lists come back empty. */
  authorized: boolean;
  /** `with_schematized_response=true` was asked: without it, entries come back with no `blocks` (as on the real site). */
  schematized?: boolean;
}

export function threadJson(thread: ThreadData, now: number, origin: string, q: ThreadJsonQuery): unknown {
  const offset = Math.max(0, Number.parseInt(q.cursor ?? '0', 10) || 0);
  const turns = q.authorized ? thread.turns.slice(offset, offset + q.limit) : [];
  const more = q.authorized && offset + q.limit < thread.turns.length;
  const last = thread.turns.at(-1);
  const lastState = last ? turnStateAt(last, now) : undefined;
  const computer = thread.kind === 'computer';
  return {
    status: 'success',
    thread_metadata: {
      title: thread.title,
      mode: computer ? '4' : '2',
      created_at: iso(thread.createdAt),
      updated_at: iso(thread.updatedAt),
      thread_status: lastState && (lastState.phase === 'working' || lastState.phase === 'paused') ? 'running' : lastState?.phase === 'sleeping' ? 'sleeping' : 'completed',
      wake_at: lastState?.wakeAt !== undefined ? iso(lastState.wakeAt) : null,
      // Computer's files, all of the thread's turns (the simulated bodies' shape); each entry lists its own too.
      workflow_snapshots: computer
        ? {
            SHARED_FILES: {
              type: 'SHARED_FILES',
              shared_files: { items: q.authorized ? thread.turns.flatMap((t) => turnStateAt(t, now).assets.map((a) => assetJson(thread, t, a, now, origin))) : [] },
            },
          }
        : null,
      // Our guesses: the project fields, billing_url and quota_reset_date beside locked_reason.
      project_uuid: thread.projectUuid ?? null,
      project_visibility: thread.projectVisibility ?? null,
      ...locked(thread, now),
    },
    entries: turns.map((t) => {
      const entry = entryJson(thread, t, now, origin);
      if (q.schematized !== false) return entry;
      const { blocks: _blocks, ...bare } = entry;
      return bare;
    }),
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
      wakeAt: ['data.thread.wake_at'],
      assets: ['data.thread.workflow_snapshots.SHARED_FILES.shared_files.items[]'],
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
