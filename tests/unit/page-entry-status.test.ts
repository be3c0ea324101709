// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { webStateOf } from '../../lib/page/checkpoints/thread-model';
import { pageEntryStatus } from '../../lib/protocol/threads/thread-events';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadHtml } from '../fixtures/reader/load';

/**
 * web_state.entries[].status is "each entry's status" as Perplexity shows it (seed), and read_thread's description
 * sends the agent there. Read from the page it comes from the event table (lib/protocol/threads/thread-events.ts
 * `entry`), in the thread JSON's words: a failed task's turn read COMPLETED before (review 14b, F3), where the same
 * thread's JSON says FAILED.
 */
const dir = join(import.meta.dirname, '../fixtures/threads');

function pageWebState(name: string) {
  const html = readFileSync(join(dir, `${name}.html`), 'utf8');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  const driver = createPageDriver(window);
  const session = new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026 });
  const reading = session.pageReading();
  return { reading, web: webStateOf(reading) };
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe("a turn's status read from the page says what the page shows", () => {
  it('a failed Computer task (its JSON: entry FAILED, WORKFLOW_ERROR) does not read as an entry COMPLETED', () => {
    const { reading, web } = pageWebState('B-computer-error');
    expect(reading.turns.at(-1)?.event).toBe('error');
    expect(web.entries.at(-1)?.status).toBe('FAILED');
  });

  it('in the JSON\'s words: a finished turn and a cancelled one COMPLETED (the captured canceled body), one at work or waiting PENDING', () => {
    expect(pageEntryStatus('complete', false)).toBe('COMPLETED');
    expect(pageEntryStatus('cancelled', false)).toBe('COMPLETED');
    expect(pageEntryStatus('error', false)).toBe('FAILED');
    expect(pageEntryStatus(null, false)).toBe('PENDING');
    expect(pageEntryStatus('complete', true)).toBe('PENDING');
  });
});
