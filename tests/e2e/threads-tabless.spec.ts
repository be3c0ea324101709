import { expect, test } from '@playwright/test';
import { ThreadWorld } from '../support/thread-world';

/**
 * Reads without a tab, through the real chain: read_thread on 20 threads whose tabs are closed
 * reads each thread's JSON through the person's Perplexity tab, opening none; an acting call on
 * one of them still gets a background tab of its own.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(240_000);

let world: ThreadWorld;
test.beforeAll(async () => {
  world = await ThreadWorld.start({ generation: 'A' });
});
test.afterAll(async () => world?.close());

test('20 read_thread calls on 20 threads open no tab; a follow-up on one still gets its tab', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 20; i += 4) {
    const batch = await Promise.all([0, 1, 2, 3].map((j) => world.call('call_perplexity_computer', { message: `Tabless task ${i + j} #scenario:computer-complete` })));
    for (const b of batch) {
      expect(b.result.event, b.text).toBe('complete');
      ids.push(b.result.thread_id as string);
    }
  }
  for (const p of world.harness.context.pages()) if (p !== world.page && ids.some((id) => p.url().includes(id))) await p.close();
  const before = world.harness.context.pages().map((p) => p.url());

  const reads = await Promise.all(ids.map((thread_id) => world.call('read_thread', { thread_id })));
  for (const [i, r] of reads.entries()) {
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain(`Tabless task ${i}`);
    expect(r.result.thread_id).toBe(ids[i]);
  }
  expect(world.harness.context.pages().map((p) => p.url())).toEqual(before);

  const follow = await world.call('call_perplexity_computer', { thread_id: ids[3], message: 'And a summary #scenario:computer-complete' });
  expect(follow.result.event, follow.text).toBe('complete');
  expect(world.threadPage(ids[3] as string)).toBeDefined();
});
