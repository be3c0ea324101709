import { describe, expect, it } from 'vitest';
import { answerText, evalPath, pick } from '../../lib/selectors/language/json-path';
import { readThreadJson } from '../../lib/page/threads/thread-json-reader';
import { assignAnswers, targetsOf } from '../../lib/page/threads/thread-answers';
import type { Box } from '../../lib/page/checkpoints/thread-boxes';
import { checkpointText, type ThreadReading, transcriptOf, type TurnReading, webStateOf } from '../../lib/page/checkpoints/thread-model';
import { THREAD_JSON_READERS, threadJson2026 } from '../../lib/selectors/thread-json';
import { THREAD_PAGE_READERS, threadPage2026 } from '../../lib/selectors/thread-page';
import { ACCOUNT_JSON_READERS, accountJson2026 } from '../../lib/selectors/account-json';
import { AccountJsonReaderSchema, ThreadJsonReaderSchema, ThreadPageReaderSchema } from '../../lib/selectors/thread-schema';
import { modeLimitsFrom, modelsFrom, pageAssets, projectsFrom, threadPathFrom } from '../../lib/worker/threads/thread-results';
import { modelsJson, projectsJson } from '../sim/json/account';

describe('thread readers as data', () => {
  it('the built-in readers validate, and survive a JSON round trip (loadable like selector sets)', () => {
    for (const r of THREAD_PAGE_READERS) expect(ThreadPageReaderSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
    for (const r of THREAD_JSON_READERS) expect(ThreadJsonReaderSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
    for (const r of ACCOUNT_JSON_READERS) expect(AccountJsonReaderSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
  });

  it('a reader from a newer build with extra keys still loads; a broken one names what is wrong', () => {
    expect(() => ThreadJsonReaderSchema.parse({ ...threadJson2026, futureField: { x: 1 } })).not.toThrow();
    const broken = ThreadJsonReaderSchema.safeParse({ ...threadJson2026, request: { ...threadJson2026.request, minIntervalMs: 10 } });
    expect(broken.success).toBe(false);
    expect(broken.error?.issues[0]?.path.join('.')).toBe('request.minIntervalMs');
    const noBoxes = ThreadPageReaderSchema.safeParse({ ...threadPage2026, boxes: { ask_user_question: ['x'] } });
    expect(noBoxes.success).toBe(false);
    expect(ThreadPageReaderSchema.safeParse({ ...threadPage2026, name: 'gen-b-2026-10' }).success).toBe(false);
  });

  it('asks the JSON with the app headers and at most every 3 s by default', () => {
    expect(threadJson2026.request.headers).toEqual({ 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' });
    expect(threadJson2026.request.query).toMatchObject({ with_schematized_response: 'true', version: '2.18', source: 'default' });
    expect(threadJson2026.request.minIntervalMs).toBeGreaterThanOrEqual(3000);
  });

  it('every JSON path of the built-in reader parses', () => {
    const paths: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && /^[a-z_[]/.test(x) && !x.startsWith('/')) paths.push(x);
      if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    walk({ thread: threadJson2026.thread, entry: threadJson2026.entry, userResponse: threadJson2026.userResponse, asset: threadJson2026.asset });
    expect(paths.length).toBeGreaterThan(40);
    for (const p of paths) expect(() => evalPath({}, p), p).not.toThrow();
  });
});

describe('the JSON path language', () => {
  const data = {
    blocks: [
      { intended_usage: 'ask_text', markdown_block: { answer: 'A', chunks: ['x', 'y'] } },
      { intended_usage: 'workflow_root', workflow_block: { steps: [{ items: [{ type: 'T', p: { variant: 'answer', text: 'W' } }, { type: 'U' }] }] } },
    ],
    list: [1, 2, 3],
    none: null,
  };

  it('fields, spreads, indexes and filters', () => {
    expect(evalPath(data, 'blocks[intended_usage=ask_text].markdown_block.answer')).toEqual(['A']);
    expect(evalPath(data, 'blocks[].markdown_block.chunks[]')).toEqual(['x', 'y']);
    expect(evalPath(data, 'blocks[].workflow_block.steps[].items[type=T].p[variant=answer].text')).toEqual(['W']);
    expect(evalPath(data, 'blocks[].workflow_block.steps[].items[type=T].p[variant=progress].text')).toEqual([]);
    expect(evalPath(data, 'list[-1]')).toEqual([3]);
    expect(evalPath(data, 'list[0]')).toEqual([1]);
    expect(evalPath(data, 'blocks[intended_usage=ask_text|workflow_root]')).toHaveLength(2);
    expect(evalPath(data, 'none.x')).toEqual([]);
    expect(evalPath([5, 6], '[]')).toEqual([5, 6]);
    expect(pick(data, ['missing.path', 'list[]'])).toEqual({ values: [1, 2, 3], path: 'list[]' });
    expect(() => evalPath(data, 'a[=x]')).toThrow(/bad filter/);
  });
});

const turn = (over: Partial<TurnReading>): TurnReading => ({
  index: 0,
  query: 'q',
  event: 'complete',
  entryStatus: 'COMPLETED',
  answer: 'The answer.',
  steps: [],
  sources: [],
  files: [],
  interactions: [],
  optionalAuth: [],
  ...over,
});

describe("an answer kept whole or in chunks (answerText, the stream's and every thread JSON reader's one rule)", () => {
  const e = threadJson2026.entry;
  const flow = (payload: Record<string, unknown>) => ({
    intended_usage: 'workflow_root',
    workflow_block: { status: 'WORKFLOW_COMPLETED', steps: [{ items: [{ type: 'WORKFLOW_ITEM_TEXT', payload: { text_payload: { variant: 'answer', ...payload } } }] }] },
  });
  const entry = (...blocks: unknown[]) => ({ uuid: 'u', query_str: 'q', status: 'COMPLETED', blocks });
  const cases: [string, unknown, string | undefined][] = [
    ['no answer anywhere', entry({ intended_usage: 'web_results' }), undefined],
    ['an empty text and no chunks', entry(flow({ text: '' })), ''],
    ['an empty text beside its chunks (an answer still written, 2026-08-04)', entry(flow({ text: '', chunks: ['The capital ', 'is Canberra.'] })), 'The capital is Canberra.'],
    ['the whole text beside its chunks', entry(flow({ text: 'Whole.', chunks: ['Who'] })), 'Whole.'],
    ['an ask_text answer beside an empty workflow text', entry(flow({ text: '' }), { intended_usage: 'ask_text', markdown_block: { answer: 'From ask_text.' } }), 'From ask_text.'],
  ];
  it.each(cases)('%s', (_name, body, expected) => {
    expect(answerText(body, e.answer, e.answerChunks)).toBe(expected);
    expect(readThreadJson([{ entries: [body] }], threadJson2026, { threadId: 't', url: 'u' }).turns[0]?.answer).toBe(expected ?? '');
  });
});

describe('checkpoints, web_state and transcripts', () => {
  it("words each event's text the way the seed shows it", () => {
    const question = turn({
      event: 'ask_user_question',
      interactions: [{ type: 'ask_user_question', followupUuid: 'f', text: 'Which format?', questions: [{ id: 'q', text: 'Which format?', options: ['PDF', 'DOCX'] }], requiresUserResponse: true }],
    });
    expect(checkpointText(question)).toBe('Which format?\n1. PDF\n2. DOCX');
    expect(checkpointText(turn({ event: 'sleep', wakeAt: '2026-12-01T10:00:00Z', answer: '' }))).toBe('Sleeping until 2026-12-01T10:00:00Z.');
    expect(checkpointText(turn({ event: 'error', errorMessage: 'Boom', answer: 'half' }))).toBe('Boom\n\nPartial answer:\n\nhalf');
  });

  it('web_state sorts what waits into interactions, auth_requests and form_links', () => {
    const reading: ThreadReading = {
      source: 'json',
      threadId: 't',
      url: 'u',
      turnCount: 1,
      turns: [
        turn({
          event: 'auth_required',
          entryId: 'e1',
          entryStatus: 'PENDING',
          interactions: [
            { type: 'auth_required', followupUuid: 'a', text: 'Connect Slack', connector: 'slack', requiresUserResponse: true },
            { type: 'interaction_required', followupUuid: 'b', text: 'Fill the form', url: 'https://www.perplexity.ai/computer/forms/x', title: 'Form', requiresUserResponse: true },
            { type: 'confirm_action', followupUuid: 'c', text: 'Send?', requiresUserResponse: true },
          ],
          optionalAuth: [{ type: 'auth_required', followupUuid: 'd', text: 'Drive', requiresUserResponse: false }],
        }),
      ],
    };
    const ws = webStateOf(reading);
    expect(ws.thread_status).toBe('waiting_for_user');
    expect(ws.entries).toEqual([{ entry_id: 'e1', status: 'PENDING' }]);
    expect(ws.interactions.map((i) => i.followupUuid)).toEqual(['c']);
    expect(ws.auth_requests.map((i) => i.followupUuid)).toEqual(['a', 'd']);
    expect(ws.form_links).toEqual([{ title: 'Form', url: 'https://www.perplexity.ai/computer/forms/x' }]);
  });

  it('a long transcript keeps the most recent turns and says it cut', () => {
    const turns = Array.from({ length: 30 }, (_, i) => turn({ index: i, query: `Question ${i}`, answer: `Answer ${i} `.repeat(40) }));
    const reading: ThreadReading = { source: 'page', threadId: 't', url: 'u', turnCount: 30, turns };
    const all = transcriptOf(reading, 1_000_000);
    expect(all.truncated).toBe(false);
    expect(all.text.startsWith('**User:** Question 0')).toBe(true);
    const cut = transcriptOf(reading, 2000);
    expect(cut.truncated).toBe(true);
    expect(cut.text).toContain('Question 29');
    expect(cut.text).not.toContain('Question 0\n');
    expect(cut.text).toMatch(/^\[\d+ earlier turn\(s\) left out\]/);
  });
});

describe('matching a reply to what waits', () => {
  const box = (interaction: Box['interaction']): Box => ({ interaction, box: {} as Element });
  const q1 = box({ type: 'ask_user_question', followupUuid: 'f1', text: 'City?', questions: [{ id: 'c', text: 'City?', options: ['Paris'] }], requiresUserResponse: true });
  const q2 = box({ type: 'ask_user_question', followupUuid: 'f2', text: 'Nights?', questions: [{ id: 'n', text: 'Nights?' }], requiresUserResponse: true });
  const confirm = box({ type: 'confirm_action', followupUuid: 'f3', text: 'Send?', requiresUserResponse: true });

  it('a single question takes a single answer under any key', () => {
    const map = assignAnswers([q1], { whatever: 'Paris' });
    expect([...map.values()]).toEqual(['Paris']);
  });

  it('several questions: by id, by text, or by followup_uuid; unknown keys are named', () => {
    const map = assignAnswers([q1, q2], { c: 'Paris', 'nights?': '2' });
    expect([...map.entries()].map(([s, v]) => [s.id, v])).toEqual([
      ['c', 'Paris'],
      ['n', '2'],
    ]);
    expect(() => assignAnswers([q1, q2], { c: 'Paris', size: 'L' })).toThrow(/"size" that match no waiting question; the questions are "c" \(City\?\), "n" \(Nights\?\)/);
    expect(() => assignAnswers([q1], {})).toThrow(/answers is empty/);
  });

  it('picks the boxes by followup_uuid or by kind, and says what to call otherwise', () => {
    expect(targetsOf([q1, confirm], { kind: 'approve', reason: '' }, undefined, 't')).toEqual([confirm]);
    expect(targetsOf([q1, q2], { kind: 'answers', answers: {} }, 'f2', 't')).toEqual([q2]);
    expect(() => targetsOf([q1], { kind: 'approve', reason: '' }, 'nope', 't')).toThrow(/followup_uuid "nope" matches nothing thread t waits on; it waits on ask_user_question \(followup_uuid f1\)/);
    expect(() => targetsOf([q1], { kind: 'approve', reason: '' }, 'f1', 't')).toThrow(/is a ask_user_question, not a confirm_action: answer it with answer_question/);
    expect(() => targetsOf([q1], { kind: 'connected', message: '' }, undefined, 't')).toThrow(/thread_id t is not waiting on a auth_required; it waits on ask_user_question \(followup_uuid f1\): answer it with answer_question/);
    expect(() => targetsOf([], { kind: 'approve', reason: '' }, undefined, 't')).toThrow(/thread "t" has nothing waiting/);
    expect(() => targetsOf([confirm, box({ ...confirm.interaction, followupUuid: 'f4' })], { kind: 'deny', reason: '' }, undefined, 't')).toThrow(/pass followup_uuid/);
  });
});

describe("the account's mode limits (GET /rest/rate-limit/status), as the worker reads them", () => {
  const entry = (available: unknown, detail: object) => ({ available, remaining_detail: detail });
  it('only what an entry says: available, and remaining where the site counts; a mode with no entry, or none readable, is left out', () => {
    const body = {
      modes: {
        research: entry(false, { kind: 'exact', remaining: 0 }),
        labs: entry(true, { kind: 'not_provided' }),
        agentic_research: entry(false, { kind: 'exact', remaining: 0 }),
      },
    };
    expect(modeLimitsFrom(body, accountJson2026)).toEqual({ modes: { 'deep-research': { available: false, remaining: 0 }, create: { available: true, remaining: null } } });
    expect(modeLimitsFrom({ modes: { research: entry('no', {}), studio: entry(true, { kind: 'exact', remaining: 3 }) } }, accountJson2026)).toEqual({ modes: { create: { available: true, remaining: 3 } } });
    expect(modeLimitsFrom({ moved: true }, accountJson2026)).toEqual({ modes: {} });
  });
});

describe("the account's JSON, as the worker reads it", () => {
  it('models_list from the web app\'s shape (modes, models with efforts, defaults)', () => {
    const list = modelsFrom(modelsJson(), accountJson2026);
    expect(list.default_mode).toBe('standard');
    expect(list.default_model).toBe('claude-sonnet-4.5');
    expect(list.modes).toContainEqual({ mode: 'ultra', model: 'claude-opus-4.1-thinking', effort: 'max' });
    expect(list.models.find((m) => m.id === 'sonar-fast')).toEqual({ id: 'sonar-fast', label: 'Sonar Fast', description: 'Quick answers', fast: true, efforts: ['none'], default_effort: 'none' });
    // The models config also lists search models (mode "search"): models_list holds Computer's only.
    expect(list.models.map((m) => m.id)).not.toContain('sim_best');
    expect(() => modelsFrom({ moved: true }, accountJson2026)).toThrow(/no list at models\{\}\[value\.mode=asi\] \(reader account-json-2026-12\)/);
  });

  it('projects_list pages 50 at a time, with absolute project URLs', () => {
    const first = projectsFrom(projectsJson(null, null), accountJson2026, 'https://www.perplexity.ai/');
    expect(first.projects).toHaveLength(50);
    expect(first.next_cursor).toBe('50');
    expect(first.projects[0]).toMatchObject({ name: 'Market research', role: 'owner', landing_category: 'pinned', knowledge_enabled: true });
    expect(first.projects[0]?.project_url).toBe(`https://www.perplexity.ai/projects/${first.projects[0]?.project_uuid}`);
    const rest = projectsFrom(projectsJson(null, '50'), accountJson2026, 'https://www.perplexity.ai/');
    expect(rest).toMatchObject({ next_cursor: null });
    expect(rest.projects).toHaveLength(5);
    expect(projectsFrom({ projects: [] }, accountJson2026, 'https://www.perplexity.ai/')).toEqual({ projects: [], next_cursor: null });
  });

  it('finds a thread\'s page from the recent threads by uuid or slug', () => {
    const recent = { threads: [{ uuid: 'u-1', slug: 'rust-vs-go-x', mode_type: 'search' }, { uuid: 'u-2', slug: 'task-y', mode_type: 'computer' }] };
    expect(threadPathFrom(recent, accountJson2026, 'rust-vs-go-x')).toBe('/search/rust-vs-go-x');
    expect(threadPathFrom(recent, accountJson2026, 'u-2')).toBe('/computer/tasks/u-2');
    expect(threadPathFrom(recent, accountJson2026, 'nope')).toBeUndefined();
  });

  it('pages assets with an offset cursor; a filtered page can be empty while more follow', () => {
    const assets = Array.from({ length: 45 }, (_, i) => ({
      asset_id: `a${i}`,
      entry_id: i < 40 ? 'e1' : 'e2',
      filename: null,
      mime_type: null,
      size_bytes: null,
      asset_type: 'file',
      created_at: 0,
      is_primary_asset: null,
      root_asset_id: null,
      parent_asset_id: null,
      published_url: null,
    }));
    const p1 = pageAssets(assets, { entryId: 'e2' });
    expect(p1).toEqual({ assets: [], next_cursor: '20' });
    expect(pageAssets(assets, { entryId: 'e2', cursor: '40' }).assets.map((a) => a.asset_id)).toEqual(['a40', 'a41', 'a42', 'a43', 'a44']);
    expect(() => pageAssets(assets, { cursor: 'x' })).toThrow(/cursor "x" is not a next_cursor/);
  });
});
