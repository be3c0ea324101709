import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { PAGE_KIT_HOOK } from '../../lib/protocol/page/page-kits';
import { listHosts } from '../../lib/relay/discovery';
import { evaluateInContentScript } from '../support/content-world';
import { textOf } from '../support/harness';
import { spawnClient, ThreadWorld, uploadTo } from '../support/thread-world';

/**
 * The thread family's flows through the real chain: the seed's first walkthrough (a follow-up on
 * the same thread_id brings a file), assets out, an attachment in (over stdio and over serve),
 * elicitation inside the call, a call run as an MCP task, four threads at once from two clients,
 * and a thread read again after the client reconnected and after the host was killed.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(120_000);

let world: ThreadWorld;
let walkthroughThread = '';
test.beforeAll(async () => {
  world = await ThreadWorld.start({ generation: 'A' });
});
test.afterAll(async () => world?.close());

test('walkthrough: "Summarize the top 5 stories…", then "Turn that into a PDF report" on the same thread_id brings a file', async () => {
  const first = await world.call('call_perplexity_computer', { message: 'Summarize the top 5 stories on Hacker News right now.' });
  expect(first.result).toMatchObject({ event: 'complete', task_status: 'completed' });
  walkthroughThread = first.result.thread_id as string;
  expect(first.progress.find((m) => m.startsWith('thread_id'))).toContain(`thread_id ${walkthroughThread}`);

  // The tag picks the simulated site's file-producing task for this turn.
  const second = await world.call('call_perplexity_computer', { message: 'Turn that into a PDF report #scenario:computer-files', thread_id: walkthroughThread });
  expect(second.result).toMatchObject({ thread_id: walkthroughThread, event: 'complete' });
  const files = second.result.files as { filename: string; media_type: string | null; url: string }[];
  expect(files.some((f) => f.filename.endsWith('.pdf') && f.url.startsWith('https://'))).toBe(true);
});

test('a model with an effort, a mode on a follow-up, and a start inside a Project reach the page', async () => {
  const models = (await world.call('models_list')).result as { models: { id: string; efforts: string[] }[] };
  const model = models.models.find((m) => m.efforts.length > 1) ?? (models.models[0] as { id: string; efforts: string[] });
  const effort = model.efforts.at(-1) as string;
  const first = await world.call('call_perplexity_computer', { message: 'Review this contract', model: model.id, effort });
  expect(first.result.event).toBe('complete');
  const follow = await world.call('call_perplexity_computer', { message: 'Now quickly', thread_id: first.result.thread_id, mode: 'light' });
  expect(follow.result.event).toBe('complete');
  const turns = world.site.thread(first.result.thread_id as string)?.turns ?? [];
  expect(turns.map((t) => t.settings)).toEqual([expect.objectContaining({ model: model.id, effort }), expect.objectContaining({ mode: 'light' })]);

  const projects = (await world.call('projects_list')).result as { projects: { project_uuid: string }[] };
  const project = projects.projects[0]?.project_uuid as string;
  const inProject = await world.call('call_perplexity_computer', { message: 'Plan the offsite', project_uuid: project, project_visibility: 'project' });
  expect(inProject.result.event).toBe('complete');
  expect(world.site.thread(inProject.result.thread_id as string)).toMatchObject({ projectUuid: project, projectVisibility: 'project' });
});

test('assets out: list_thread_assets pages the files, create_asset_download gives a fresh URL', async () => {
  const assets: { asset_id: string; filename: string | null }[] = [];
  let cursor: string | null | undefined;
  do {
    const page = (await world.call('list_thread_assets', { thread_id: walkthroughThread, ...(cursor ? { cursor } : {}) })).result as {
      assets: { asset_id: string; filename: string | null }[];
      next_cursor: string | null;
    };
    assets.push(...page.assets);
    cursor = page.next_cursor;
  } while (cursor);
  const pdf = assets.find((a) => a.filename?.endsWith('.pdf'));
  expect(pdf).toBeTruthy();
  const download = (await world.call('create_asset_download', { thread_id: walkthroughThread, asset_id: pdf?.asset_id })).result;
  expect(download).toMatchObject({ asset_id: pdf?.asset_id, url: expect.stringMatching(/^https:\/\//) });
  expect(download.expires_in_seconds === null || Number(download.expires_in_seconds) > 0).toBe(true);
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('an attachment in: envelope over stdio, multipart upload, attachment_urls puts it in the turn', async () => {
  const bytes = 'Risk 1: the moon is cheese.';
  const envelope = (await world.call('create_attachment_upload', { filename: 'risks.txt', mime_type: 'text/plain', size_bytes: 27 })).result as {
    attachment_url: string;
    upload_url: string;
    upload_fields: Record<string, string>;
  };
  expect(envelope.upload_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/attachments\/upload$/);
  expect(await uploadTo(envelope, bytes, 'risks.txt')).toBe(204);
  expect(await uploadTo(envelope, 'again', 'risks.txt')).toBe(409);
  const { result } = await world.call('call_perplexity_computer', { message: 'Summarize this file and pull out the key risks.', attachment_urls: [envelope.attachment_url] });
  expect(result.event).toBe('complete');
  // The page's composer uploaded exactly these bytes with the turn.
  const turn = world.site.thread(result.thread_id as string)?.turns.at(-1);
  expect(turn?.attachments).toEqual([expect.objectContaining({ filename: 'risks.txt', mimeType: 'text/plain', size: bytes.length, sha256: sha256(bytes) })]);
});

test('an attachment in over serve: the envelope is served beside /mcp and usable from another client', async () => {
  const serve = await world.harness.startServe();
  const http = await world.harness.httpClient(serve.url, serve.token, 'threads-http');
  const raw = await http.callTool({ name: 'create_attachment_upload', arguments: { filename: 'notes.md', mime_type: 'text/markdown', size_bytes: 12 } });
  const envelope = raw.structuredContent as { attachment_url: string; upload_url: string; upload_fields: Record<string, string> };
  expect(envelope.upload_url).toBe(serve.url.replace(/\/mcp$/, '/attachments/upload'));
  expect(await uploadTo(envelope, '# Notes here', 'notes.md')).toBe(204);
  const { result } = await world.call('call_perplexity_computer', { message: 'Read my notes.', attachment_urls: [envelope.attachment_url] });
  expect(result.event).toBe('complete');
  expect(world.site.thread(result.thread_id as string)?.turns.at(-1)?.attachments?.[0]).toMatchObject({ filename: 'notes.md', sha256: sha256('# Notes here') });
});

test('elicitation: a client that declared it answers the question inside the call, which goes on to complete', async () => {
  const asked: string[] = [];
  const client = await spawnClient(world.harness, 'eliciting-agent', { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { answer_1: 'Lyon' } };
  });
  const { result } = await world.call('call_perplexity_computer', { message: 'Plan a trip #scenario:computer-question' }, client);
  expect(asked).toHaveLength(1);
  expect(result).toMatchObject({ event: 'complete', task_status: 'completed' });
  expect(String(result.text)).toContain('Lyon');
});

test('a call run as an MCP task: a task at once, the result through tasks/result', async () => {
  await world.client.listTools();
  const stream = world.client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Quick task' } }, undefined, {
    task: { ttl: 300_000 },
    timeout: 120_000,
  });
  const kinds: string[] = [];
  let result: { structuredContent?: Record<string, unknown> } | undefined;
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === 'result') result = message.result as typeof result;
    if (message.type === 'error') throw message.error;
  }
  expect(kinds[0]).toBe('taskCreated');
  expect(result?.structuredContent).toMatchObject({ event: 'complete', task_status: 'completed' });
});

test('four threads at once from two clients, each on its own thread', async () => {
  const serve = await world.harness.startServe();
  const http = await world.harness.httpClient(serve.url, serve.token, 'threads-parallel-http');
  const calls = [0, 1, 2, 3].map((i) => {
    const args = { name: 'call_perplexity_computer', arguments: { message: `Parallel task ${i} #scenario:computer-complete` } };
    return i % 2 ? http.callTool(args, undefined, { timeout: 120_000 }) : world.client.callTool(args, undefined, { timeout: 120_000 });
  });
  const results = (await Promise.all(calls)).map((r) => r.structuredContent as { thread_id: string; event: string; text: string });
  expect(results.map((r) => r.event)).toEqual(['complete', 'complete', 'complete', 'complete']);
  expect(new Set(results.map((r) => r.thread_id)).size).toBe(4);
  for (const [i, r] of results.entries()) {
    const transcript = textOf(await world.client.callTool({ name: 'read_thread', arguments: { thread_id: r.thread_id } }));
    expect(transcript).toContain(`Parallel task ${i}`);
  }
});

test('a thread is read again by a new client, and after the host was killed', async () => {
  const fresh = await spawnClient(world.harness, 'reconnected-agent');
  const again = await fresh.callTool({ name: 'read_thread', arguments: { thread_id: walkthroughThread } });
  expect(again.isError).toBeFalsy();
  expect(textOf(again)).toContain('Hacker News');

  const old = listHosts(world.harness.home)[0];
  if (!old) throw new Error('no host');
  process.kill(old.pid, 'SIGKILL');
  await world.harness.waitForHost(15_000, old.pid);
  const after = await fresh.callTool({ name: 'read_thread', arguments: { thread_id: walkthroughThread } });
  expect(after.isError, textOf(after)).toBeFalsy();
  expect((after.structuredContent as { thread_id: string }).thread_id).toBe(walkthroughThread);
  const assets = await fresh.callTool({ name: 'list_thread_assets', arguments: { thread_id: walkthroughThread } });
  expect(JSON.stringify(assets.structuredContent)).toContain('.pdf');
});

test('thread code goes only into thread tabs, and comes back into a thread tab that was reloaded', async () => {
  const kitsIn = (page: Page) => evaluateInContentScript<string[]>(page, `globalThis.${PAGE_KIT_HOOK}.loaded()`);
  // The person's own Perplexity tab answered account reads (models_list) but never a thread call.
  expect(await kitsIn(world.page)).not.toContain('threads');
  // Reads open no tab, so the cap may have closed this thread's since it last acted: a follow-up gets it one again.
  if (!world.threadPage(walkthroughThread)) {
    const more = await world.call('call_perplexity_computer', { thread_id: walkthroughThread, message: 'Add one line on Hacker News #scenario:computer-complete' });
    expect(more.result.event, more.text).toBe('complete');
  }
  const tab = world.threadPage(walkthroughThread);
  if (!tab) throw new Error('the walkthrough thread has no tab');
  expect(await kitsIn(tab)).toContain('threads');
  await tab.reload();
  await expect.poll(() => kitsIn(tab).catch(() => ['not yet']), { timeout: 15_000 }).toEqual([]);
  const again = await world.call('read_thread', { thread_id: walkthroughThread });
  expect(again.isError, again.text).toBe(false);
  expect(again.text).toContain('Hacker News');
  expect(await kitsIn(tab)).toEqual(['threads']);
});
