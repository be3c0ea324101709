import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { BUILT_IN_SOURCES, type SelectorSet } from '../../lib/selectors';
import { CLI } from '../support/harness';
import { type SimWorld, startSimWorld } from '../support/sim-harness';

/**
 * The day Perplexity ships markup no built-in selector set knows, survived without a rebuild: the
 * simulated site renames its composer and mode chip hooks; every call that needs them fails naming
 * the probe; `comet-relay selectors add` installs a set that knows the new hooks, and the same page,
 * never reloaded, works from the next call. Removing the set brings the failure back, live too.
 */
test.describe.configure({ mode: 'serial' });

// What a person writes on that day: the live site's set, with the hooks that were renamed renamed.
const live = BUILT_IN_SOURCES.find((s) => s.name === 'gen-b-2026-10-live') as SelectorSet;
const box = (selectors: readonly string[] = []) => selectors.map((s) => s.replaceAll('[data-ask-input-container]', '[data-query-box]'));
const rescue: SelectorSet = {
  ...live,
  name: 'gen-b-2026-12',
  composer: ['#query-composer', ...box(live.composer)],
  modeChip: ['[data-testid="query-mode-switcher"] button[data-state]'],
  stopButton: box(live.stopButton),
  stopControls: box(live.stopControls),
  signature: { present: ['#query-composer', '[data-testid="query-mode-switcher"]'], absent: live.signature.absent },
};

let world: SimWorld;
let panel: Page;
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: world.harness.env, encoding: 'utf8' });
const doctor = (...args: string[]) => cli('doctor', '--user-data-dir', world.harness.userDataDir, '--home', world.harness.home, ...args);

test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'B', hooks: 'renamed', clientName: 'e2e-rescue' });
  // Survives only as long as the page is never reloaded.
  await world.page.evaluate(() => {
    (window as unknown as { __neverReloaded: boolean }).__neverReloaded = true;
  });
  panel = await world.harness.openPanel();
});
test.afterAll(async () => world?.harness.close());

test('no built-in set knows the page: comet_ask fails naming the probe, its selectors, the page and the set; the panel shows it', async () => {
  const { text, isError } = await world.call('comet_ask', { prompt: 'What is the capital of France?' });
  expect(isError).toBe(true);
  expect(text).toMatch(
    /^\[SELECTOR_MISS\] composer: none of `#ask-input`, `\[data-ask-input-container\] \[data-lexical-editor="true"\]`, `textarea\[placeholder\*="Ask"\], .*` matched on https:\/\/www\.perplexity\.ai\/ — open a Perplexity home or thread page \(selector set gen-[ab]-\d{4}-\d{2}(?:-live)?, built-in\)\. If that is the right page, Perplexity may have redrawn it: the person can check it with `[^`]*doctor --page[^`]*`, save it with `[^`]*capture[^`]*`, and add a selector set that reads it \(`[^`]*selectors add FILE[^`]*`\)\.$/,
  );
  await expect(panel.getByTestId('page-problem')).toHaveAttribute('data-probe', 'composer');
  await expect(panel.getByTestId('page-problem')).toContainText('composer: none of `#ask-input`');
});

test('doctor --page shows which probes miss, and exits non-zero', () => {
  const run = doctor('--page');
  expect(run.status, run.stdout).toBe(1);
  expect(run.stdout).toMatch(/NOT recognised: no set found its signature on this page/);
  expect(run.stdout).toMatch(/✘ composer — no match: tried `#ask-input`/);
  expect(run.stdout).toMatch(/✔ conversationLink — \d+ elements? \(/);
  // Said the way this copy runs (a clone's dist/cli.js here), not as a `comet-relay` that may not be on PATH.
  expect(run.stdout).toMatch(/`node \S*dist\/cli\.js capture(?: --home \S+)?`/);
});

test('selectors add FILE: the same page, never reloaded, works from the next call', async () => {
  const file = path.join(world.harness.home, 'gen-b-2026-12.json');
  fs.writeFileSync(file, JSON.stringify({ kind: 'selector-set', comment: 'Perplexity renamed the composer', set: rescue }, null, 2));
  const added = cli('selectors', 'add', file);
  expect(added.status, added.stderr).toBe(0);
  expect(added.stdout).toContain('Added the selector set gen-b-2026-12');

  // The host sees the folder change and the page gets the set; comet_connect says which set it uses.
  await expect.poll(async () => (await world.call('comet_connect')).text, { timeout: 15_000 }).toContain('Selector set: gen-b-2026-12');
  const asked = await world.call('comet_ask', { prompt: 'What is the capital of France?' });
  expect(asked).toMatchObject({ isError: false, text: expect.stringMatching(/^Prompt submitted successfully/) });
  const waited = await world.call('comet_wait');
  expect(waited.isError).toBe(false);
  expect(waited.text).toContain('which ends the answer');
  expect((await world.call('comet_mode', { mode: 'learn' })).text).toBe('Mode switch result: switched to learn');
  expect((await world.call('comet_mode')).text).toBe('Current mode: learn');
  expect(await world.page.evaluate(() => (window as unknown as { __neverReloaded?: boolean }).__neverReloaded)).toBe(true);

  // The panel names the set and its file; the miss is gone since the same method worked.
  await expect(panel.getByTestId('selector-set')).toHaveText('gen-b-2026-12');
  await expect(panel.getByTestId('selector-source')).toContainText(path.join(world.harness.home, 'selectors', 'selector-set.gen-b-2026-12.json'));
  await expect(panel.getByTestId('page-problem')).toHaveCount(0);
  // So does doctor.
  const checked = doctor();
  expect(checked.stdout).toContain(`page layout gen-b-2026-12 (from ${path.join(world.harness.home, 'selectors', 'selector-set.gen-b-2026-12.json')})`);
  expect(checked.stdout).toMatch(/✔ selector sets — built-in, and added in .*: gen-b-2026-12/);
});

test('a bad file in the folder is skipped with its reason (panel, doctor, host log) and breaks nothing', async () => {
  fs.writeFileSync(path.join(world.harness.home, 'selectors', 'broken.json'), JSON.stringify({ kind: 'selector-set', set: { ...rescue, name: 'gen-b-2026-11', turn: [] } }));
  await expect(panel.getByTestId('skipped-sets')).toContainText('broken.json', { timeout: 15_000 });
  await expect(panel.getByTestId('skipped-sets')).toContainText('set.turn: Too small');
  expect(JSON.parse((await world.call('comet_poll')).text).status).toBe('completed');
  const checked = doctor();
  expect(checked.status).toBe(1);
  expect(checked.stdout).toMatch(/✘ selector sets — added: gen-b-2026-12 .*; skipped 1 file in .*: broken\.json: set\.turn: Too small/);
  expect(fs.readFileSync(path.join(world.harness.home, 'logs', 'host.log'), 'utf8')).toMatch(/skipped a selector set file .*broken\.json/);
  execFileSync(process.execPath, [CLI, 'selectors', 'remove', 'broken.json'], { env: world.harness.env });
  await expect(panel.getByTestId('skipped-sets')).toHaveCount(0, { timeout: 15_000 });
});

test('selectors remove NAME: the set is gone from the live page too', async () => {
  const removed = cli('selectors', 'remove', 'gen-b-2026-12');
  expect(removed.status, removed.stderr).toBe(0);
  // The thread page on screen still shows the live layout's answer blocks, so a built-in set takes
  // it again; it is the renamed composer that none of them knows.
  await expect.poll(async () => (await world.call('comet_connect')).text, { timeout: 15_000 }).toMatch(/Selector set: gen-(?:a-2026-04|b-2026-10|b-2026-10-live)(?: \(unconfirmed|$)/);
  const { text, isError } = await world.call('comet_ask', { prompt: 'And again?' });
  expect(isError).toBe(true);
  expect(text).toMatch(/^\[SELECTOR_MISS\] composer: /);
  expect(await world.page.evaluate(() => (window as unknown as { __neverReloaded?: boolean }).__neverReloaded)).toBe(true);
});
