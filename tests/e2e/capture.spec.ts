import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CLI } from '../support/harness';
import { type SimWorld, startSimWorld } from '../support/sim-harness';

/**
 * The bug-report loop, first half: `doctor --page` on a page that is understood, then
 * `comet-relay capture` saves it sanitized. The second half, a unit test of the reader on the captured
 * fixture, is tests/unit/capture.test.ts; `UPDATE_FIXTURES=1` refreshes the committed fixture from here.
 */
test.describe.configure({ mode: 'serial' });

const QUESTION = 'Which sources cover browser agents? #scenario:grouped-citations';
const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'captures', 'B-grouped-citations.html');

let world: SimWorld;
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: world.harness.env, encoding: 'utf8', cwd: world.harness.home });

test.beforeAll(async () => {
  // The sim's pre-capture layout, whose set (gen-b-2026-10) and probe names the checks below spell out;
  // the live layouts' probes are held against the real captures in tests/unit/real-captures.test.ts.
  world = await startSimWorld({ generation: 'B', layout: 'turn-2026-04', clientName: 'e2e-capture' });
  await world.call('comet_ask', { prompt: QUESTION });
  expect((await world.call('comet_wait')).isError).toBe(false);
});
test.afterAll(async () => world?.harness.close());

test('doctor --page: every probe of the set in use, with its count, on a page it understands', () => {
  const run = cli('doctor', '--page', '--user-data-dir', world.harness.userDataDir, '--home', world.harness.home);
  expect(run.stdout).toMatch(/Page probes on https:\/\/www\.perplexity\.ai\/search\//);
  expect(run.stdout).toContain('Selector set gen-b-2026-10 (built-in)');
  expect(run.stdout).toMatch(/✔ composer — 1 element \(#ask-input\)/);
  expect(run.stdout).toMatch(/✔ turn — 1 element \(\[data-workflow-entry\]\)/);
  expect(run.stdout).toMatch(/✔ citationInline — \d+ elements/);
  expect(run.stdout).not.toMatch(/^✘/m);
  expect(run.status, run.stdout).toBe(0);
});

test('capture saves the tab sanitized: structure and hooks kept, texts replaced, URLs cut to their host, nothing executable', async () => {
  const out = path.join(world.harness.home, 'report.html');
  const run = cli('capture', '--out', out);
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^Saved the Perplexity tab \(https:\/\/www\.perplexity\.ai\/search\/[^)]+\) to .*report\.html, \d+ kB\./);
  expect(run.stdout).toContain('Selector set in use: gen-b-2026-10 (built-in).');
  const html = fs.readFileSync(out, 'utf8');
  const page = await world.page.content();

  // Hooks the reader relies on survive.
  for (const hook of ['id="ask-input"', 'data-workflow-entry="0"', 'data-workflow-final-text', 'data-renderer="lm"', 'data-pplx-citation', 'group/user-bubble', '#pplx-icon-']) {
    expect(html, hook).toContain(hook);
  }
  // The person's text and the answer's text do not; URLs keep only their host.
  expect(html).not.toContain('Which sources cover');
  const answerSentence = /<p[^>]*>([^<]{40,})/.exec(await world.page.locator('[data-workflow-final-text] .prose').innerHTML())?.[1]?.trim().slice(0, 30);
  expect(answerSentence).toBeTruthy();
  expect(html).not.toContain(answerSentence as string);
  expect(page).toContain('https://www.reuters.com/markets/');
  expect(html).not.toContain('https://www.reuters.com/markets/');
  expect(html).toContain('data-pplx-citation-url="https://www.reuters.com/"');
  expect(html).toMatch(/href="\/search\/[A-Za-z-]+"/); // the page kind stays, the slug does not
  // Nothing that runs, no form values.
  expect(html).not.toMatch(/<script|<style|\son[a-z]+=|\svalue=/i);
  // The words the sets look for are left as they are.
  expect(html).toMatch(/>Finished \d+ steps</);
  expect(html).toContain('>Links<');

  // As many citations as the page shows, each with its host.
  const citations = await world.page.locator('[data-pplx-citation-url]').count();
  expect(html.match(/data-pplx-citation-url="https:\/\/[^/"]+\/"/g)).toHaveLength(citations);

  // What the reader saw on the live page, for the unit test that reads the fixture.
  const live = JSON.parse((await world.call('comet_poll')).text);
  const expected = {
    status: live.status,
    turnCount: live.turnCount,
    proseCount: live.proseCount,
    responseLength: live.totalLength,
    questionLength: live.questionText.length,
    citationHosts: [...new Set([...html.matchAll(/data-pplx-citation-url="https:\/\/([^/"]+)\/"/g)].map((m) => m[1]))],
  };
  expect(expected).toMatchObject({ status: 'completed', turnCount: 1, questionLength: QUESTION.length });
  if (process.env.UPDATE_FIXTURES) {
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.copyFileSync(out, FIXTURE);
    fs.writeFileSync(FIXTURE.replace(/\.html$/, '.expected.json'), `${JSON.stringify(expected, null, 2)}\n`);
  }
  // capture never overwrites a file.
  const again = cli('capture', '--out', out);
  expect(again.status).toBe(1);
  expect(again.stderr).toContain('already exists; pass another name with --out FILE');
});
