// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { respondInThread } from '../../lib/page/threads/thread-answers';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadHtml } from '../fixtures/reader/load';

/**
 * Approve, Deny and "I've connected" by the thread JSON's id (the one read_thread gives): the page's boxes are
 * read, then the thread JSON fetched to find the box the id is for, and the page may redraw the box meanwhile. A
 * page that listens at its root (React) takes no click on the box it dropped: until 2026-12-06 the call timed out
 * after 8 s saying the page "did not take the reply". The button is clicked in the box the page shows now
 * (lib/page/threads/thread-answers.ts `liveRootOf`).
 */
const dir = join(import.meta.dirname, '../fixtures/threads');
const removers: (() => void)[] = [];
afterEach(() => {
  for (const r of removers.splice(0)) r();
  document.body.innerHTML = '';
});

describe('a box redrawn while the thread JSON is fetched', () => {
  it.each([
    ['control: no redraw', false],
    ['Approve is clicked in the box the page shows after the fetch', true],
  ])('%s', async (_name, redraw) => {
    const name = 'B-computer-confirm';
    const html = readFileSync(join(dir, `${name}.html`), 'utf8');
    const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
    loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
    const saved = (JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { body: unknown }).body;
    const PAGE_ID = document.querySelector('[data-followup-uuid]')?.getAttribute('data-followup-uuid') ?? '';
    expect(PAGE_ID).not.toBe('');
    // The JSON knows the prompt by another id than the page (the existing test 'a reply by the JSON's id ...').
    const jsonBody = JSON.stringify(saved).replaceAll(PAGE_ID, 'J-1');
    const box = () => document.querySelector(`[data-followup-uuid="${PAGE_ID}"]`) as HTMLElement | null;
    box()?.setAttribute('data-followup-uuid', 'P-1');
    const live = () => document.querySelector('[data-followup-uuid="P-1"]');
    // While the JSON travels, the task page re-renders the waiting box (new elements, same id and words).
    let redrawn = 0;
    const fetch = async () => {
      const b = live();
      if (b && redraw) {
        b.replaceWith(b.cloneNode(true));
        redrawn++;
      }
      await new Promise((r) => setTimeout(r, 10));
      return { status: 200, text: async () => jsonBody } as Response;
    };
    Object.defineProperty(window, 'fetch', { value: fetch, configurable: true });
    // Like React: one listener at the root; an approval removes the box.
    const approved: string[] = [];
    const onClick = (e: Event) => {
      const button = (e.target as Element).closest?.('button[aria-label="Approve"]');
      const b = button?.closest('[data-followup-uuid]');
      if (!b) return;
      approved.push(b.getAttribute('data-followup-uuid') ?? '');
      b.remove();
    };
    document.addEventListener('click', onClick);
    removers.push(() => document.removeEventListener('click', onClick));
    const driver = createPageDriver(window);
    let now = 1_000_000;
    const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026, now: () => now++ });
    const outcome = await respondInThread(driver.context(), session, threadPage2026, { followupUuid: 'J-1', reply: { kind: 'approve', reason: '' } }).then(
      () => 'answered',
      (error: { code?: string; message?: string }) => `[${error.code}] ${error.message}`,
    );
    expect(redrawn).toBe(redraw ? 1 : 0);
    expect(outcome).toBe('answered');
    expect(approved).toEqual(['P-1']);
    expect(live()).toBeNull();
  }, 15_000);
});
