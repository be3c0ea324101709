import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ThreadTranscript } from '../../lib/protocol/threads/threads';
import { fakeThreadCalls } from '../support/fake-tabs';

/**
 * read_thread through the thread JSON (no tab shows the thread: the worker fetches it through any Perplexity tab).
 * The seed: web_state is "the thread state shown in Perplexity: thread_status, wake_at, …"; the captured bodies carry
 * it (`thread_metadata.thread_status`). web_state.thread_status is that word, and read_thread's status for a turn the
 * reader could not classify is too, never "running" guessed from a missing answer (review 14b, F2). Captures read
 * from COMET_REAL_PERPLEXITY, never copied.
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));

async function readThread(capture: string, change?: (body: Record<string, unknown>) => void): Promise<ThreadTranscript> {
  let body = readFileSync(join(folder, capture), 'utf8');
  if (change) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    change(parsed);
    body = JSON.stringify(parsed);
  }
  const { calls } = fakeThreadCalls(
    async (_tab, method) => {
      if (method === 'threads.fetch') return { status: 200, body, path: '/rest/thread/x' };
      throw new Error(`unexpected ${method}: the JSON answered, no tab should be asked`);
    },
    // The person's home tab, with our page script: reads go through it.
    { initial: [{ id: 5, url: 'https://www.perplexity.ai/' }], connected: () => [5] },
  );
  return (await calls.call('threads.read', { threadId: 'some-thread', maxChars: 100_000, tabCap: 6 }, new AbortController().signal, () => {})) as ThreadTranscript;
}

describe.skipIf(!present)('read_thread says the state Perplexity shows, not one guessed from what is missing', () => {
  it('a Computer task the JSON calls completed (thread_status completed, entry COMPLETED, WORKFLOW_COMPLETED) is not reported as "running"', async () => {
    const got = await readThread('SIMULATED-computer-thread-json-user-questions-pplx-tools.json');
    expect(got.webState?.source).toBe('json');
    expect(got.status).toBe('completed');
    expect(got.webState?.thread_status).toBe('completed');
    // The turn itself stays unclassified (its answer is not where the reader looks): the task's event is not made up.
    expect(got.text).toMatch(/\(no answer yet\)/);
  });

  it("web_state.thread_status is Perplexity's own thread_status of the real body ('completed'), not a word of ours", async () => {
    const got = await readThread('thread-json-perplexity-client-multiturn-2026-08-01.json');
    expect(got.webState?.thread_status).toBe('completed');
    // A turn classified keeps the seed's words for read_thread's status.
    expect(got.status).toBe('idle');
  });

  it('a turn the JSON says still runs reads "running", whatever the thread\'s own word (it may lag a new turn)', async () => {
    const got = await readThread('thread-json-perplexity-client-multiturn-2026-08-01.json', (body) => {
      const entries = body.entries as Record<string, unknown>[];
      const last = entries.at(-1) as Record<string, unknown>;
      last.status = 'PENDING';
      last.blocks = [];
    });
    expect(got.webState?.thread_status).toBe('completed');
    expect(got.status).toBe('running');
  });
});
