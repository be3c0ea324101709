import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MANIFEST_NAME } from '../../lib/cli/export/manifest';
import { CLI } from '../support/harness';
import { type SimWorld, startSimWorld } from '../support/sim-harness';

/**
 * `comet-relay export` through the whole chain in real Chromium: the CLI → host → worker → a
 * Perplexity tab's fetch → the simulated site's library (tests/sim/json/library.ts). One browser for
 * every case: 200 threads with 429s on the way, a 25-turn thread over three pages read whole, a
 * resume that fetches nothing, a bumped thread alone rewritten, a 404 named with exit 1; and the side
 * panel's *Export as Markdown* saving the thread in view as a download. The person's tab never moves.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
let out: string;

/** The CLI as a person runs it, without blocking this process (it serves the simulated site's requests). */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: world.harness.env, cwd: world.harness.home });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const exported = () => fs.readdirSync(out).filter((f) => f.endsWith('.md'));
const threadRequests = () => [...world.site.library.requests].filter(([p]) => /^\/rest\/thread\/(?!list_ask_threads)/.test(p)).reduce((n, [, c]) => n + c, 0);

test.beforeAll(async () => {
  world = await startSimWorld({ clientName: 'e2e-export', library: { threads: 200, longTurns: 25 } });
  out = path.join(world.harness.home, 'export');
});
test.afterAll(async () => world?.harness.close());

test('export --all writes every thread once through 429s, the 25-turn thread whole; the tab never moves', async () => {
  test.setTimeout(180_000);
  const tabUrl = world.page.url();
  world.site.library.rateLimit = { every: 45, retryAfter: '1' };
  const run = await cli('export', '--all', '--out', out);
  world.site.library.rateLimit = null;
  expect(run.stderr).toBe('');
  expect(run.code, run.stdout).toBe(0);
  expect(run.stdout).toContain('Perplexity asked to slow down (429): waiting 1 s as it said, then going on.');
  expect(run.stdout).toMatch(new RegExp(`200 threads in ${out} \\(200 written, 0 unchanged\\) in `));
  expect(exported()).toHaveLength(200);
  expect(fs.readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([MANIFEST_NAME]);

  const long = exported().find((f) => f.includes('a-long-conversation-about-tide-pools')) as string;
  const text = fs.readFileSync(path.join(out, long), 'utf8');
  expect(text).toMatch(/^---\ntitle: "A long conversation about tide pools"\nurl: "https:\/\/www\.perplexity\.ai\/search\/long-thread-Lg25tn"\n/);
  expect(text).toContain('\nturns: 25\n---\n');
  expect(text.match(/^## \d+\. /gm)).toHaveLength(25);
  expect(text).toContain('## 25. Follow-up 25 on');
  expect(world.site.library.count('/rest/thread/long-thread-Lg25tn')).toBe(3);
  expect(world.page.url()).toBe(tabUrl);
});

test('a second run fetches nothing; a bumped thread alone is fetched and rewritten', async () => {
  const before = threadRequests();
  const again = await cli('export', '--all', '--out', out);
  expect(again.code, again.stdout).toBe(0);
  expect(again.stdout).toContain('(0 written, 200 unchanged)');
  expect(threadRequests()).toBe(before);

  const slug = world.site.library.threads[120]?.slug as string;
  const mtimes = new Map(exported().map((f) => [f, fs.statSync(path.join(out, f)).mtimeMs]));
  world.site.library.bump(slug);
  const third = await cli('export', '--all', '--out', out);
  expect(third.code, third.stdout).toBe(0);
  expect(third.stdout).toContain('(1 written, 199 unchanged)');
  const changed = exported().filter((f) => fs.statSync(path.join(out, f)).mtimeMs !== mtimes.get(f));
  expect(changed).toHaveLength(1);
  expect(fs.readFileSync(path.join(out, changed[0] as string), 'utf8')).toContain('Bumped at');
  expect(exported()).toEqual([...mtimes.keys()]);
});

test('a thread the site no longer has is named with why, every other one written, exit 1', async () => {
  const [gone, kept] = world.site.library.threads.slice(10, 12).map((t) => t.slug) as [string, string];
  world.site.library.bump(gone);
  world.site.library.bump(kept);
  world.site.library.failNext(`/rest/thread/${gone}`, 404);
  const run = await cli('export', '--all', '--out', out);
  expect(run.code, run.stdout).toBe(1);
  expect(run.stdout).toContain('(1 written, 198 unchanged)');
  expect(run.stdout).toMatch(new RegExp(`1 failed:\\n  ${gone} \\([^)]+\\): \\[THREAD_NOT_FOUND\\] `));
  expect(run.stdout).toContain('Run the same command again to go on');
});

test("--space and --format json: only that Space's threads, each as the JSON the browser returned", async () => {
  const garden = path.join(world.harness.home, 'garden');
  const expected = world.site.library.threads.filter((t) => t.space === 'garden-notes-Qm1xk2').length;
  const run = await cli('export', '--space', 'Garden Notes', '--format', 'json', '--out', garden);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const files = fs.readdirSync(garden).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  expect(files).toHaveLength(expected);
  for (const file of files.slice(0, 5)) expect(JSON.parse(fs.readFileSync(path.join(garden, file), 'utf8'))).toMatchObject({ space: 'Garden Notes', pages: 1 });
  const unknown = await cli('export', '--space', 'Nonesuch', '--out', garden);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/^comet-relay: \[INVALID_PARAMS\] No Space is named or has the slug "Nonesuch"/);
});

test('the side panel saves the thread in view as Markdown, every turn, without moving the tab', async () => {
  const url = 'https://www.perplexity.ai/search/long-thread-Lg25tn';
  await world.page.goto(url);
  const panel = await world.harness.openPanel();
  try {
    const button = panel.getByTestId('export-thread');
    await expect(button).toHaveText('Export as Markdown');
    const [download] = await Promise.all([panel.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^\d{4}-\d{2}-\d{2}-a-long-conversation-about-tide-pools\.md$/);
    const text = fs.readFileSync(await download.path(), 'utf8');
    expect(text).toMatch(/^---\ntitle: "A long conversation about tide pools"\n/);
    expect(text.match(/^## \d+\. /gm)).toHaveLength(25);
    expect(world.page.url()).toBe(url);
  } finally {
    await panel.close();
  }
});
