// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { waitForCheckpoint } from '../../lib/page/threads/thread-wait';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { fakeThreadCalls } from '../support/fake-tabs';
import { loadHtml } from '../fixtures/reader/load';

/**
 * A Computer task's page is /computer/tasks/<slug>-<id>, and the slug is renamed or re-summarized after a run while
 * the last 22 characters stay (lib/selectors/README.md, "Computer task pages"). A wait held across that rename, and a
 * later call with the id handed out before it, follow the task (review 14b, F1: both took it for another thread).
 */
const dir = join(import.meta.dirname, '../fixtures/threads');
const ID = 'AbCdEfGhIjKlMnOpQrStUv';
const BEFORE = `plan-my-week-${ID}`;
const AFTER = `weekly-plan-for-the-team-${ID}`;
const TASK = (segment: string) => `https://www.perplexity.ai/computer/tasks/${segment}`;

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a Computer task whose slug is re-summarized stays the same thread', () => {
  it('a held wait follows the task when only its slug changes (it does not fail as "now shows another thread")', async () => {
    const running = readFileSync(join(dir, 'B-computer-running.html'), 'utf8');
    loadHtml(running, TASK(BEFORE));
    let now = 1_000_000;
    Object.defineProperty(window, 'fetch', { value: async () => ({ status: 404, text: async () => '' }) as unknown as Response, configurable: true });
    const driver = createPageDriver(window);
    const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026, now: () => now });
    expect(session.threadId).toBe(BEFORE);
    const waiting = waitForCheckpoint(session, driver.watcher, { threadId: BEFORE, timeoutMs: 3000 });
    // The run finishes and Perplexity re-summarizes the task: same task (same 22-character id), new slug.
    now += 10_000;
    loadHtml(readFileSync(join(dir, 'B-computer-complete.html'), 'utf8'), TASK(AFTER));
    const outcome = await waiting.then(
      (out) => ({ event: out.turn.event }),
      (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
    );
    expect(outcome).toEqual({ event: 'complete' });
  });

  it("the worker finds the task's open tab under its new slug and takes its reading (no new tab, no TAB_NOT_FOUND)", async () => {
    const { calls, requests } = fakeThreadCalls(
      async (_tab, method) =>
        method === 'threads.state'
          ? {
              reading: { source: 'page', threadId: AFTER, url: TASK(AFTER), turnCount: 1, turns: [] },
              turn: { index: 0, query: 'Plan my week', event: 'complete', entryStatus: 'COMPLETED', answer: 'Done', steps: [], sources: [], files: [], interactions: [], optionalAuth: [] },
            }
          : { found: false },
      { initial: [{ id: 7, url: TASK(AFTER) }] },
    );
    const result = await calls.call('threads.state', { threadId: BEFORE, tabCap: 6 }, new AbortController().signal, () => {}).then(
      (r) => r as { event: string },
      (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
    );
    expect(result).toMatchObject({ event: 'complete' });
    // Asked in the tab that shows the task; no background tab opened at the old address.
    expect(requests.map((r) => r.tabId)).toEqual([7]);
  });

  it('a read with the id handed out before is asked of the live page that shows the task now, as with its new slug (review 14d, 5)', async () => {
    const reading = { source: 'page', threadId: AFTER, url: TASK(AFTER), turnCount: 1, turns: [] };
    const page = async (_tab: number, method: string) => (method === 'threads.read' ? { reading } : method === 'threads.locate' ? { found: true } : { status: 404, text: '' });
    const read = async (threadId: string) => {
      const { calls, requests } = fakeThreadCalls(page, { initial: [{ id: 7, url: TASK(AFTER) }], connected: () => [7] });
      await calls.call('threads.read', { threadId, tabCap: 6 }, new AbortController().signal, () => {});
      return requests.map((r) => r.method);
    };
    expect(await read(BEFORE)).toEqual(['threads.read']);
    expect(await read(AFTER)).toEqual(['threads.read']);
  });
});
