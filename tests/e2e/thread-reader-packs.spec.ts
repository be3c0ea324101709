import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CLI } from '../support/harness';
import { ThreadWorld } from '../support/thread-world';
import { movedShapeReader } from '../sim/json/thread-json';

/**
 * Readers kept as data, for the thread readers: the day Perplexity moves its thread JSON, survived without a
 * rebuild. The simulated site serves the JSON in a shape no built-in reader knows (`jsonMode:
 * 'moved'`); thread calls still work, answered by the page (`source: 'page'`, with the reader that
 * did not fit named); `comet-relay selectors add` installs a reader for the new shape, and the same
 * thread tab, never reloaded, answers from the JSON again. `doctor` and the side panel name the
 * reader in use and its file; removing it brings the built-in one back.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(90_000);

let world: ThreadWorld;
const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: world.harness.env, encoding: 'utf8' });

test.beforeAll(async () => {
  world = await ThreadWorld.start({ generation: 'B', jsonMode: 'moved' });
});
test.afterAll(async () => world?.close());

interface Transcript {
  web_state: { source: string };
  web_state_error?: string;
}

test('a moved thread JSON: the page answers and says why; a reader added for the shape reads the JSON again, no reload', async () => {
  const started = await world.call('call_perplexity_computer', { message: 'Summarize the top 5 stories on Hacker News right now.' });
  expect(started.result).toMatchObject({ event: 'complete', task_status: 'completed' });
  const threadId = started.result.thread_id as string;
  const before = await world.call('read_thread', { thread_id: threadId });
  expect((before.result as unknown as Transcript).web_state.source).toBe('page');
  expect((before.result as unknown as Transcript).web_state_error).toMatch(/no list of entries at entries \(reader thread-json-2026-12\)/);

  const tab = world.threadPage(threadId);
  if (!tab) throw new Error('the thread has no tab');
  await tab.evaluate(() => {
    (window as unknown as { __neverReloaded: boolean }).__neverReloaded = true;
  });

  const file = path.join(world.harness.home, 'moved-reader.json');
  fs.writeFileSync(file, JSON.stringify({ kind: 'thread-json-reader', comment: 'Perplexity moved the thread JSON', reader: movedShapeReader() }, null, 2));
  const added = cli('selectors', 'add', file);
  expect(added.status, added.stderr).toBe(0);
  expect(added.stdout).toContain('Added the thread JSON reader thread-json-2027-01');

  // The host sees the folder change, the worker checks the reader, the tab uses it from its next read
  // (the JSON is asked at most every 3 s per thread, so the first read after may still be the page's).
  await expect
    .poll(async () => ((await world.call('read_thread', { thread_id: threadId })).result as unknown as Transcript).web_state.source, { timeout: 20_000 })
    .toBe('json');
  const follow = await world.call('call_perplexity_computer', { message: 'Turn that into a PDF report #scenario:computer-files', thread_id: threadId });
  expect(follow.result).toMatchObject({ thread_id: threadId, event: 'complete' });
  expect(await tab.evaluate(() => (window as unknown as { __neverReloaded?: boolean }).__neverReloaded)).toBe(true);

  // doctor and the side panel name the reader in use and where it came from.
  const installed = path.join(world.harness.home, 'selectors', 'thread-json-reader.thread-json-2027-01.json');
  const doctor = cli('doctor', '--user-data-dir', world.harness.userDataDir, '--home', world.harness.home);
  expect(doctor.stdout).toContain(`thread JSON reader thread-json-2027-01 (from ${installed})`);
  const panel = await world.harness.openPanel();
  await expect(panel.getByTestId('readers-in-use')).toContainText(`thread JSON reader: thread-json-2027-01 from ${installed}`);
  await expect(panel.getByTestId('readers-in-use')).toContainText('thread page reader: thread-page-2026-12 built-in');

  // Removed: the built-in reader again, which does not know the shape.
  expect(cli('selectors', 'remove', 'thread-json-2027-01').status).toBe(0);
  await expect
    .poll(async () => ((await world.call('read_thread', { thread_id: threadId })).result as unknown as Transcript).web_state.source, { timeout: 20_000 })
    .toBe('page');
});

test('a reader file with a wrong field is refused naming it; the reader in use stays', () => {
  const file = path.join(world.harness.home, 'broken-reader.json');
  const reader = { ...movedShapeReader('thread-json-2027-02'), request: { ...movedShapeReader().request, minIntervalMs: 10 } };
  fs.writeFileSync(file, JSON.stringify({ kind: 'thread-json-reader', reader }));
  const added = cli('selectors', 'add', file);
  expect(added.status).not.toBe(0);
  expect(added.stderr).toContain('reader.request.minIntervalMs: Too small: expected number to be >=1000; it is 10');
  expect(fs.existsSync(path.join(world.harness.home, 'selectors', 'thread-json-reader.thread-json-2027-02.json'))).toBe(false);
  const doctor = cli('doctor', '--user-data-dir', world.harness.userDataDir, '--home', world.harness.home);
  expect(doctor.stdout).toContain('thread JSON reader thread-json-2026-12 (built-in)');
});
