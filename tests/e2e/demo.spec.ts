import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { ROOT } from '../support/harness';

/** `npm run demo` is the README's main job: keep it working. */
test('the demo drives the whole chain: an answer and its sources, then a Computer task and its follow-up with a file', async () => {
  const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
  const { stdout } = await promisify(execFile)(tsx, ['tests/demo/run.ts'], { cwd: ROOT, timeout: 90_000 });
  // Every tool listed, none cut off.
  const toolList = /tools\/list \((\d+)\)[^\n]*\n((?: {4}\S+ — [^\n]*\n)*)/.exec(stdout);
  expect(toolList, 'the tools/list block').not.toBeNull();
  expect(toolList?.[2]?.trim().split('\n')).toHaveLength(Number(toolList?.[1]));
  expect(stdout).not.toContain("the seed's walkthrough");
  expect(stdout).toMatch(/comet_connect \{\}.*\n {4}Connected to /);
  expect(stdout).toContain('Prompt submitted successfully.');
  expect(stdout).toMatch(/comet_wait \{\}.*\n {4}On “What is the Model Context Protocol\?”/);
  expect(stdout).toMatch(/Sources \(\d+\):/);
  // An agent cites by number: the answer's [n] and comet_get_sources's n-th entry are the same URL.
  const answer = stdout.slice(stdout.indexOf('comet_wait {}'), stdout.indexOf('comet_get_sources {}'));
  const list = stdout.slice(stdout.indexOf('comet_get_sources {}'), stdout.indexOf('comet_list_tabs {}'));
  const cited = new Map([...answer.matchAll(/\[(\d+)\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => [Number(m[1]), m[2]]));
  const listed = new Map([...list.matchAll(/^ {4}(\d+)\. [^\n]*\n {7}(https?:\/\/\S+)/gm)].map((m) => [Number(m[1]), m[2]]));
  const both = [...cited.keys()].filter((n) => listed.has(n));
  expect(both.length, `numbers cited and listed (cited ${[...cited.keys()]}, listed ${[...listed.keys()]})`).toBeGreaterThan(1);
  for (const n of both) expect(listed.get(n), `source [${n}]`).toBe(cited.get(n));
  expect(stdout).toMatch(/call_perplexity_computer \{"message":"Summarize the top 5 stories[^\n]*\n {4}\{\n {6}"thread_id": "[^"]+",\n {6}"event": "complete"/);
  expect(stdout).toMatch(/file: report\.pdf — https:\/\//);
  expect(stdout).toContain('Done. Every call above went');
});
