// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { readThreadDom } from '../../lib/page/threads/thread-dom-reader';
import { parseThreadBody, readThreadJson } from '../../lib/page/threads/thread-json-reader';
import { checkpointOf, type ThreadReading } from '../../lib/page/checkpoints/thread-model';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadHtml } from '../fixtures/reader/load';
import { generationA, generationB } from '../../lib/selectors';
import { SelectorCatalog } from '../../lib/selectors/catalog';

/**
 * Both thread readers on what the simulated site shows at each checkpoint (saved by
 * `npm run sim:save-threads`): the page's DOM and the thread JSON of the same moment must each
 * classify every event of the Computer server's table, and agree.
 */
const dir = join(import.meta.dirname, '../fixtures/threads');

function fromPage(name: string): ThreadReading {
  const html = readFileSync(join(dir, `${name}.html`), 'utf8');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  // Generation A's fixtures are pages of the sim's pre-capture layout (turn-2026-04), read with that layout's
  // sets: a tie on a task page would go to the live site's set, which does not know that layout's steps block.
  // Generation B's are the captured layout blocks-2026-08 (since 2026-12-05): the built-in catalog, whose live
  // set reads that layout (the pre-capture generationB set does not tell its finished turns from running ones).
  const catalog = name.startsWith('A-') ? new SelectorCatalog([generationB, generationA]) : new SelectorCatalog();
  const ctx = createPageDriver(window, catalog).context();
  return readThreadDom(ctx, threadPage2026, { threadId: path.split('/').pop() ?? '', stopped: () => false });
}

function fromJson(name: string): ThreadReading {
  const saved = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { url: string; body: unknown };
  const parsed = parseThreadBody(200, JSON.stringify(saved.body), threadJson2026);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return readThreadJson([parsed.value], threadJson2026, { threadId: saved.url.split('/').pop() ?? '', url: saved.url });
}

function checkpoints(name: string) {
  return [fromJson(name), fromPage(name)].map((reading) => {
    const turn = reading.turns.at(-1);
    if (!turn) throw new Error(`${name}: no turn read from ${reading.source}`);
    return checkpointOf(reading, turn);
  });
}

const have = existsSync(join(dir, 'B-computer-complete.json'));

describe.runIf(have).each(['A', 'B'] as const)('thread readers on generation %s', (g) => {
  it('complete: the answer with its sources', () => {
    for (const cp of checkpoints(`${g}-computer-complete`)) {
      expect(cp.event, cp.source).toBe('complete');
      expect(cp.text, cp.source).toContain("Here are today's top stories");
      expect(cp.sources.map((s) => s.domain), cp.source).toContain('news.ycombinator.com');
      expect(cp.title, cp.source).toBe('Task for the fixtures');
    }
    // A Computer task's tool rows stay in the thread once it is done (browser-use/browser-harness notes,
    // April 2026): the page lists each by its label, as the JSON does.
    const [json, page] = checkpoints(`${g}-computer-complete`);
    expect(json?.steps).toContain('Navigating to news.ycombinator.com');
    expect(page?.steps).toContain('Navigating to news.ycombinator.com');
  });

  it('files: the PDF and the latest version of the image', () => {
    for (const cp of checkpoints(`${g}-computer-files`)) {
      expect(cp.event, cp.source).toBe('complete');
      expect(cp.files.map((f) => f.filename).sort(), cp.source).toEqual(['chart.png', 'report.pdf']);
      expect(cp.files.find((f) => f.filename === 'report.pdf')?.media_type, cp.source).toBe('application/pdf');
      for (const f of cp.files) expect(f.url, cp.source).toMatch(/^https:\/\/www\.perplexity\.ai\/_sim\/assets\//);
    }
    const json = fromJson(`${g}-computer-files`);
    expect(json.assets?.map((a) => a.filename)).toEqual(['report.pdf', 'chart.png', 'chart.png']);
    const [, v1, v2] = json.assets ?? [];
    expect(v2?.parent_asset_id).toBe(v1?.asset_id);
    expect(v2?.root_asset_id).toBe(v1?.asset_id);
    expect(json.assets?.[0]?.size_bytes).toBeGreaterThan(100);
  });

  it('a question: its id, text and options, the same id from both sources', () => {
    const [json, page] = checkpoints(`${g}-computer-question`);
    for (const cp of [json, page]) {
      expect(cp?.event).toBe('ask_user_question');
      expect(cp?.text).toBe('Which format should I use for the report?\n1. PDF\n2. DOCX');
      expect(cp?.interactions).toHaveLength(1);
      expect(cp?.interactions[0]?.questions?.[0]?.options).toEqual(['PDF', 'DOCX']);
    }
    expect(page?.interactions[0]?.followupUuid).toBe(json?.interactions[0]?.followupUuid);
    expect(page?.interactions[0]?.questions?.[0]?.id).toBe(json?.interactions[0]?.questions?.[0]?.id);
  });

  it('two questions at once: two pending interactions', () => {
    for (const cp of checkpoints(`${g}-computer-questions`)) {
      expect(cp.event, cp.source).toBe('ask_user_question');
      expect(cp.interactions.map((i) => i.questions?.[0]?.text), cp.source).toEqual(['Which city should I plan this for?', 'How many nights?']);
    }
  });

  it('a confirmation', () => {
    const [json, page] = checkpoints(`${g}-computer-confirm`);
    for (const cp of [json, page]) {
      expect(cp?.event).toBe('confirm_action');
      expect(cp?.text).toBe('Send the summary email to team@example.com?');
    }
    expect(page?.interactions[0]?.followupUuid).toBe(json?.interactions[0]?.followupUuid);
  });

  it('a connector sign-in with its URL, and an optional one not waited on', () => {
    for (const cp of checkpoints(`${g}-computer-auth`)) {
      expect(cp.event, cp.source).toBe('auth_required');
      expect(cp.interactions[0], cp.source).toMatchObject({ type: 'auth_required', connector: 'slack', displayName: 'Slack', requiresUserResponse: true });
      expect(cp.interactions[0]?.authUrl, cp.source).toMatch(/^https:\/\/www\.perplexity\.ai\/computer\/connectors\/slack\/authorize\?state=/);
      expect(cp.optionalAuth, cp.source).toHaveLength(1);
      expect(cp.optionalAuth[0], cp.source).toMatchObject({ connector: 'google-drive', requiresUserResponse: false });
    }
  });

  it('two-factor, a form only the page can take, an external wait', () => {
    const [j2, p2] = checkpoints(`${g}-computer-2fa`);
    for (const cp of [j2, p2]) {
      expect(cp?.event).toBe('two_factor_required');
      expect(cp?.text).toContain('two-factor code');
    }
    expect(p2?.interactions[0]?.followupUuid).toBe(j2?.interactions[0]?.followupUuid);
    for (const cp of checkpoints(`${g}-computer-form`)) {
      expect(cp.event, cp.source).toBe('interaction_required');
      expect(cp.interactions[0]?.url, cp.source).toMatch(/^https:\/\/www\.perplexity\.ai\/computer\/forms\//);
      expect(cp.interactions[0]?.title, cp.source).toBe('Shipping address');
    }
    for (const cp of checkpoints(`${g}-computer-waiting`)) {
      expect(cp.event, cp.source).toBe('waiting');
      expect(cp.text, cp.source).toContain('Waiting for the carrier');
    }
  });

  it('sleep: the wake time', () => {
    const [json, page] = checkpoints(`${g}-computer-sleep`);
    expect(json?.event).toBe('sleep');
    expect(page?.event).toBe('sleep');
    expect(json?.wakeAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(page?.wakeAt).toBe(json?.wakeAt);
    expect(page?.text).toContain('The sale starts later');
  });

  it('error, cancelled and still running', () => {
    for (const cp of checkpoints(`${g}-computer-error`)) {
      expect(cp.event, cp.source).toBe('error');
      expect(cp.text, cp.source).toContain('the sandbox stopped unexpectedly');
    }
    for (const cp of checkpoints(`${g}-computer-cancelled`)) expect(cp.event, cp.source).toBe('cancelled');
    for (const cp of checkpoints(`${g}-computer-running`)) {
      expect(cp.event, cp.source).toBeNull();
      expect(cp.steps.length, cp.source).toBeGreaterThan(2);
    }
  });

  it('insufficient credits with the billing URL and the quota reset date; access denied', () => {
    for (const cp of checkpoints(`${g}-computer-credits`)) {
      expect(cp.event, cp.source).toBe('insufficient_credits');
      // The sim's credits block names spending_limit_exceeded since 2026-12-05 (NOTES §B: pplx-tools found no other).
      expect(cp.account, cp.source).toMatchObject({ reason: 'spending_limit_exceeded', billingUrl: 'https://www.perplexity.ai/account/usage' });
      expect(cp.account?.quotaResetDate, cp.source).toMatch(/^\d{4}-\d\d-01T00:00:00Z$/);
    }
    for (const cp of checkpoints(`${g}-computer-denied`)) {
      expect(cp.event, cp.source).toBe('access_denied');
      expect(cp.account?.reason, cp.source).toBe('access_denied');
    }
  });

  it('research that asks first: two multiple-choice questions in one box, with an expiry', () => {
    for (const cp of checkpoints(`${g}-research-clarify`)) {
      expect(cp.event, cp.source).toBe('ask_user_question');
      expect(cp.interactions, cp.source).toHaveLength(1);
      const [scope, audience] = cp.interactions[0]?.questions ?? [];
      expect(scope?.options, cp.source).toEqual(['Last 12 months', 'Last 5 years', 'All time']);
      expect(audience?.text, cp.source).toBe('Who is the report for?');
      expect(cp.interactions[0]?.expiresAt, cp.source).toMatch(/^\d{4}-/);
    }
    // Before any answer: the JSON has the steps; the page gives the same (A, whose set marks the box) or none (B: its
    // header stands outside any answer block, where the live set takes no fold for one), never other text.
    const page = fromPage(`${g}-research-clarify`).turns.at(-1)?.steps ?? [];
    const json = fromJson(`${g}-research-clarify`).turns.at(-1)?.steps ?? [];
    expect(json.length).toBeGreaterThan(0);
    expect(page).toEqual(g === 'A' ? json : []);
  });
});

describe.runIf(have)('the thread JSON reader, when the JSON changes or fails', () => {
  const saved = () => (JSON.parse(readFileSync(join(dir, 'B-computer-complete.json'), 'utf8')) as { body: Record<string, unknown> }).body;
  const read = (body: unknown) => {
    const parsed = parseThreadBody(200, JSON.stringify(body), threadJson2026);
    if (!parsed.ok) throw new Error(parsed.problem.message);
    const reading = readThreadJson([parsed.value], threadJson2026, { threadId: 't', url: 'https://www.perplexity.ai/computer/tasks/t' });
    return reading.turns.at(-1);
  };

  it('says "later" for an empty body, "missing" for 404, and names the path when the shape moved', () => {
    expect(parseThreadBody(200, '', threadJson2026)).toMatchObject({ ok: false, problem: { kind: 'later' } });
    expect(parseThreadBody(200, '  \n', threadJson2026)).toMatchObject({ ok: false, problem: { kind: 'later' } });
    expect(parseThreadBody(404, '{}', threadJson2026)).toMatchObject({ ok: false, problem: { kind: 'missing' } });
    expect(parseThreadBody(500, 'oops', threadJson2026)).toMatchObject({ ok: false, problem: { kind: 'invalid' } });
    const bad = parseThreadBody(200, '{"entries": [ {"uuid": ', threadJson2026);
    expect(bad.ok === false && bad.problem.message).toMatch(/does not parse/);
    const moved = parseThreadBody(200, JSON.stringify({ data: { turns: [] } }), threadJson2026);
    expect(moved.ok === false && moved.problem.message).toMatch(/no list of entries at entries \(reader thread-json-2026-12\)/);
  });

  it('finds the answer in each place it has lived (workflow item, markdown_block.answer, chunks)', () => {
    const body = saved();
    const entry = (body.entries as Record<string, unknown>[])[0] as { blocks: Record<string, unknown>[] };
    const answer = read(body)?.answer;
    expect(answer).toContain("Here are today's top stories");
    // Move it: drop the workflow answer item, put it in an ask_text block.
    const workflow = entry.blocks.find((b) => b.intended_usage === 'workflow_root') as { workflow_block: { steps: { items: { text_payload?: { variant: string } }[] }[] } };
    for (const step of workflow.workflow_block.steps) step.items = step.items.filter((i) => i.text_payload?.variant !== 'answer');
    entry.blocks.push({ intended_usage: 'ask_text', markdown_block: { answer, chunks: [] } });
    expect(read(body)?.answer).toBe(answer);
    (entry.blocks.at(-1) as { markdown_block: unknown }).markdown_block = { chunks: [answer?.slice(0, 20), answer?.slice(20)] };
    expect(read(body)?.answer).toBe(answer);
  });

  it('tolerates unknown fields, and keeps a "complete" turn with no answer running (one frame early)', () => {
    const body = saved();
    body.brand_new_field = { anything: [1, 2, 3] };
    expect(read(body)?.event).toBe('complete');
    const entry = (body.entries as { blocks: Record<string, unknown>[] }[])[0];
    if (entry) entry.blocks = entry.blocks.filter((b) => b.intended_usage !== 'workflow_root' && b.intended_usage !== 'web_results');
    entry?.blocks.push({ intended_usage: 'workflow_root', workflow_block: { status: 'WORKFLOW_COMPLETED', steps: [] } });
    expect(read(body)?.event).toBeNull();
  });

  it('reads every page of a paged thread, oldest first', () => {
    const body = saved();
    const [only] = body.entries as unknown[];
    const page1 = { ...body, entries: [only], next_cursor: '1', has_next_page: true };
    const page2 = { ...body, entries: [{ ...(only as object), uuid: 'second', query_str: 'And then?' }], next_cursor: null };
    const reading = readThreadJson([page1, page2], threadJson2026, { threadId: 't', url: 'u' });
    expect(reading.turnCount).toBe(2);
    expect(reading.turns.map((t) => t.entryId)).toEqual([(only as { uuid: string }).uuid, 'second']);
    expect(reading.turns[1]?.index).toBe(1);
  });
});
