import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointResult } from '../../lib/mcp/threads/result';
import { threadStatus } from '../../lib/page/checkpoints/thread-model';
import { EVENT_TABLE, panelStatusOf, taskStatusOf } from '../../lib/protocol/threads/thread-events';
import { THREAD_EVENTS, type ThreadEvent } from '../../lib/protocol/threads/threads';
import { ThreadBook } from '../../lib/worker/panel/threads';
import { checkpoint, question } from '../support/thread-fixtures';

/**
 * The seed "Perplexity Computer MCP Server", table "Events and MCP Tasks states", row by row as it
 * states them (MCP Tasks state → events), and every layer held to the one table in
 * lib/protocol/threads/thread-events.ts.
 */
const SEED_ROWS: [string, ThreadEvent[]][] = [
  ['completed', ['complete']],
  ['failed', ['error', 'access_denied']],
  ['cancelled', ['cancelled']],
  ['input_required', ['ask_user_question', 'confirm_action', 'auth_required', 'interaction_required', 'two_factor_required', 'insufficient_credits']],
  ['working', ['sleep', 'waiting', 'timeout']],
];

/**
 * The same rows read from the specification documents themselves, when COMET_SEEDS names a folder
 * of them (plain text files; the one that matters is the Perplexity Computer MCP server's, whose
 * "MCP Tasks state<TAB>Events" table lists one state a line). `.ci/run` sets it when such a folder
 * sits beside the checkout; without it this check says so and skips, and the copy above stands.
 */
const seeds = process.env.COMET_SEEDS;
const seedsPresent = Boolean(seeds && existsSync(seeds));

/** The rows of the seed's "MCP Tasks state → Events" table: one line per state, tab-separated, names in backticks. */
function seedTable(folder: string): [string, string[]][] {
  for (const name of readdirSync(folder).sort()) {
    const lines = readFileSync(join(folder, name), 'utf8').split(/\r?\n/);
    const head = lines.findIndex((line) => /^MCP Tasks state\tEvents\s*$/.test(line));
    if (head < 0) continue;
    const rows: [string, string[]][] = [];
    for (const line of lines.slice(head + 1)) {
      const [state, events] = line.split('\t');
      if (!state?.trim() || events === undefined) break;
      rows.push([state.replaceAll('`', '').trim(), events.split(',').map((e) => e.replaceAll('`', '').trim())]);
    }
    return rows;
  }
  throw new Error(`no seed document in ${folder} has the "MCP Tasks state<TAB>Events" table`);
}

describe.skipIf(!seedsPresent)(
  seedsPresent ? `the seed's own table, read from ${seeds}` : "the seed's own table — skipped: COMET_SEEDS names no folder (set it to the seeds folder to run this)",
  () => {
    it('holds the same rows as the copy every layer is tested against', () => {
      expect(seedTable(seeds as string)).toEqual(SEED_ROWS);
    });
  },
);

describe('events → task_status, one table', () => {
  it('covers every event exactly once, as the seed lists them', () => {
    expect(SEED_ROWS.flatMap(([, events]) => events).sort()).toEqual([...THREAD_EVENTS].sort());
    expect(Object.keys(EVENT_TABLE).sort()).toEqual([...THREAD_EVENTS].sort());
  });

  for (const [state, events] of SEED_ROWS) {
    it(`${state}: ${events.join(', ')}`, () => {
      for (const event of events) {
        expect(EVENT_TABLE[event].taskStatus, event).toBe(state);
        expect(taskStatusOf(event === 'timeout' ? null : event), event).toBe(state);
        expect(checkpointResult(checkpoint({ event: event === 'timeout' ? null : event })).task_status, event).toBe(state);
      }
    });
  }

  it('"A complete result whose answer is waiting on the user reports input_required" — in the result and the side panel', () => {
    expect(taskStatusOf('complete', true)).toBe('input_required');
    expect(checkpointResult(checkpoint({ event: 'complete', interactions: [question()] })).task_status).toBe('input_required');
    expect(panelStatusOf('complete', true)).toBe('waiting');
  });

  it('the side panel lists a complete answer that still waits on the person as waiting, not done', () => {
    const book = new ThreadBook();
    const request = { kind: 'request' as const, id: 's1', method: 'threads.start', params: { message: 'Report' }, origin: { clientId: 'c', clientName: 'codex', tool: 'call_perplexity_computer', summary: '' } };
    const url = 'https://www.perplexity.ai/computer/tasks/t-1';
    book.onCall({ phase: 'start', request, at: 1 });
    book.onCall({ phase: 'end', request, at: 2, ok: true, result: { threadId: 't-1', url, turn: 0 } });
    book.onCheckpoint({ ...checkpoint({ event: 'complete', interactions: [question()] }), threadId: 't-1', url }, 3);
    expect(book.list()[0]).toMatchObject({ threadId: 't-1', status: 'waiting' });
  });

  it('the side panel and read_thread derive from the same table', () => {
    for (const [state, events] of SEED_ROWS) {
      for (const event of events) {
        const panel = panelStatusOf(event === 'timeout' ? null : event);
        expect(panel, event).toBe({ completed: 'done', cancelled: 'done', failed: 'error', input_required: 'waiting', working: 'working' }[state]);
        if (event === 'timeout') continue;
        const turn = { event } as Parameters<typeof threadStatus>[0];
        expect(threadStatus(turn), event).toBe(EVENT_TABLE[event].threadStatus);
      }
    }
  });
});
