import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from '@playwright/test';
import type { RelayError } from '../../lib/protocol/errors';
import { RelayClient } from '../../lib/relay/client';
import { textOf } from '../support/harness';
import { type SimWorld, startSimWorld } from '../support/sim-harness';
import { startTunnel, type Tunnel } from '../support/tunnel';

/**
 * The library through the whole chain in real Chromium (issue 29): the simulated site's library
 * (tests/sim/json/library.ts, built from the real shapes) searched, paged and filtered by Space by the
 * site itself through comet_list_conversations; a 25-turn thread over three JSON pages read whole
 * by comet_export_thread and by resources/read; 404, 401 and an unknown body each a named error;
 * the person's tab never moves; the public door sees none of it by default. One browser for all.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(120_000);

const LONG = 'long-thread-Lg25tn';
let world: SimWorld;
let personUrl: string;

test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'B', speed: 4, library: { threads: 30, longTurns: 25 } });
  expect(world.connected.isError, world.connected.text).toBe(false);
  // The person reads a thread of their own in the driven tab.
  await world.page.goto('https://www.perplexity.ai/search/the-persons-own-thread');
  personUrl = world.page.url();
});
test.afterAll(async () => world?.harness.close());

/** Nothing moved: the person's tab shows what it showed, and no tab was opened. */
async function tabsUnmoved(count: number) {
  expect(world.page.url()).toBe(personUrl);
  expect(world.harness.context.pages().length).toBe(count);
}

test('the library is searched, paged and filtered by Space by the site itself', async () => {
  const tabs = world.harness.context.pages().length;
  const first = await world.call('comet_list_conversations', { limit: 10 });
  expect(first.isError, first.text).toBe(false);
  const lib = world.site.library;
  expect(first.text).toContain(`1. ${lib.threads[0]?.title}\n   https://www.perplexity.ai/search/${lib.threads[0]?.slug}\n   last activity 2026-12-01T12:00:00.000Z`);
  expect(first.text).toMatch(/\n\n1–10 of 30; next offset 10$/);
  const third = await world.call('comet_list_conversations', { limit: 10, offset: 20 });
  expect(third.text).toMatch(/^Library:\n\n21\. /);
  expect(third.text).toMatch(/\n\n21–30 of 30; no more$/);
  const search = await world.call('comet_list_conversations', { query: 'sourdough' });
  // The site searches titles and questions: the long thread's questions name it too.
  expect(search.text).toMatch(/^Library matching “sourdough”:\n\n1\. A long conversation about tide pools\n[\s\S]*\n\n2\. How to fix sourdough starter 12\n/);
  expect(search.text).toMatch(/of 3; no more$/);
  const space = await world.call('comet_list_conversations', { space: 'Garden Notes', limit: 4 });
  expect(space.text).toMatch(/^Library in Space “Garden Notes”:/);
  expect(space.text).toMatch(/\n\n1–4 of 6; next offset 4$/);
  const none = await world.call('comet_list_conversations', { space: 'Taxes' });
  expect(none.text).toMatch(/^\[INVALID_PARAMS\] No Space is named .*"Taxes".*"Garden Notes"/);
  expect(lib.count('/rest/thread/list_ask_threads')).toBeGreaterThanOrEqual(3);
  await tabsUnmoved(tabs);
});

test('a 25-turn thread over three JSON pages is read whole by the tool and by the resource', async () => {
  const tabs = world.harness.context.pages().length;
  const lib = world.site.library;
  const before = lib.count(`/rest/thread/${LONG}`);
  const md = await world.call('comet_export_thread', { thread: `https://www.perplexity.ai/search/${LONG}` });
  expect(md.isError, md.text).toBe(false);
  expect(lib.count(`/rest/thread/${LONG}`) - before).toBe(3);
  expect(md.text.startsWith(`# A long conversation about tide pools\n\n- URL: https://www.perplexity.ai/search/${LONG}\n`)).toBe(true);
  const data = lib.thread(LONG);
  for (const [i, turn] of (data?.turns ?? []).entries()) {
    expect(md.text).toContain(`## ${i + 1}. ${turn.question}`);
    // Under its turn's `##`, an answer's own headings are one level down (review 15e, F7); its words are as written.
    expect(md.text).toContain(turn.answer.replace(/^## /gm, '### '));
  }
  expect(md.text).toContain(`2. [Notes \\[25\\] on`);

  const json = JSON.parse((await world.call('comet_export_thread', { thread: LONG, format: 'json' })).text) as { turns: unknown[]; pages: number };
  expect(json).toMatchObject({ pages: 3 });
  expect(json.turns).toHaveLength(25);

  const { resources, nextCursor } = await world.client.listResources();
  expect(resources.map((r) => r.uri)).toContain(`perplexity://thread/${LONG}`);
  expect(resources.find((r) => r.uri.endsWith(LONG))).toMatchObject({ title: 'A long conversation about tide pools', mimeType: 'text/markdown' });
  expect(nextCursor).toBeUndefined();
  const read = await world.client.readResource({ uri: `perplexity://thread/${LONG}` });
  expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: md.text });
  await tabsUnmoved(tabs);
});

test('a thread the site does not have, a signed-out tab and an unknown body are each a named error', async () => {
  const tabs = world.harness.context.pages().length;
  const lib = world.site.library;
  const missing = await world.call('comet_export_thread', { thread: 'no-such-thread-Zz9' });
  expect(missing.isError).toBe(true);
  expect(missing.text).toMatch(/^\[THREAD_NOT_FOUND\] perplexity\.ai has no thread "no-such-thread-Zz9"/);
  lib.signedOut = true;
  const out = await world.call('comet_list_conversations', { query: 'x' });
  lib.signedOut = false;
  expect(out.text).toMatch(/^\[SIGNED_OUT\] .*Sign in to perplexity\.ai/);
  const broken = lib.threads[3];
  if (broken) broken.shape = 'unknown';
  const shape = await world.call('comet_export_thread', { thread: broken?.slug });
  expect(shape.text).toMatch(/^\[JSON_SHAPE\] thread ".*": page 1 of its JSON has no list of entries at entries/);
  lib.failNext(`/rest/thread/${LONG}`, 429, { 'retry-after': '2' });
  const limited = await world.call('comet_export_thread', { thread: LONG });
  expect(limited.text).toMatch(/^\[RATE_LIMITED\] .*wait 2 s/);
  await expect(world.client.readResource({ uri: 'perplexity://thread/no-such-thread-Zz9' })).rejects.toThrow(/THREAD_NOT_FOUND/);

  // At the relay, as `comet-relay export` calls it: the 429's Retry-After arrives as data, through every hop.
  const relay = new RelayClient({ home: world.harness.home, client: { name: 'library-e2e' }, transport: 'stdio' });
  try {
    lib.failNext(`/rest/thread/${LONG}`, 429, { 'retry-after': '3' });
    const error = await relay.call('library.thread', { thread: LONG }).then(() => undefined, (e: RelayError) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', data: { retryAfterMs: 3000 } });
    const whole = await relay.call('library.thread', { thread: LONG });
    expect(whole.turns).toHaveLength(25);
  } finally {
    relay.close();
  }
  await tabsUnmoved(tabs);
});

test.describe('the public door', () => {
  let tunnel: Tunnel;
  test.afterAll(async () => tunnel?.close());

  test('lists the library tools but reads none of the library until the person turns it on', async () => {
    const host = 'relay.test';
    const served = await world.harness.startServe(['--public-url', `https://${host}`]);
    tunnel = await startTunnel(served.url, host);
    const token = execFileSync(process.execPath, [world.harness.cli, 'token', '--public'], { env: world.harness.env }).toString().trim();
    const transport = new StreamableHTTPClientTransport(new URL(`${tunnel.origin}/mcp`), { fetch: tunnel.fetch, requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'agent-api-e2e', version: '1.0.0' });
    await client.connect(transport);
    world.harness.clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('comet_export_thread');
    const before = world.site.library.count(`/rest/thread/${LONG}`);
    for (const [name, args] of [
      ['comet_export_thread', { thread: LONG }],
      ['comet_list_conversations', { query: 'tide' }],
      ['comet_list_conversations', {}],
    ] as const) {
      const text = textOf(await client.callTool({ name, arguments: args }));
      expect(text, name).toMatch(/^\[PERMISSION_DENIED\] .*“Let the Agent API read my library”/);
    }
    await expect(client.readResource({ uri: `perplexity://thread/${LONG}` })).rejects.toThrow(/PERMISSION_DENIED/);
    expect(world.site.library.count(`/rest/thread/${LONG}`)).toBe(before);

    // The person turns it on in the side panel: the same call reads the thread whole.
    const panel = await world.harness.openPanel();
    const box = panel.getByLabel('Let the Agent API read my library');
    await expect(box).not.toBeChecked();
    await box.check();
    await expect(box).toBeChecked();
    await panel.close();
    const opened = textOf(await client.callTool({ name: 'comet_export_thread', arguments: { thread: LONG } }));
    expect(opened).toMatch(/^# A long conversation about tide pools\n/);
    expect(opened).toContain('## 25. ');
  });
});
