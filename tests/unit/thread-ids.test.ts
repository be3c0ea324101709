// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { threadIdProblem as mcpThreadIdProblem } from '../../lib/mcp/threads/rules';
import { methods } from '../../lib/protocol/methods';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { sameThreadId, showsThread, taskIdOf } from '../../lib/protocol/threads/thread-ids';
import { DoorThreads } from '../../lib/worker/threads/door-threads';
import { ThreadTabs } from '../../lib/worker/threads/thread-tabs';
import { setUrl } from '../fixtures/reader/load';
import { fakeTabs } from '../support/fake-tabs';

/**
 * One rule for thread ids, held at every layer's door: what the MCP tools accept, what the worker
 * finds a tab by, what the router's schema parses, and what the page says it shows must agree.
 */
const GOOD = ['7d8b35e7-c3b9-4bc4-82c6-c343d20e0288', 'rust-vs-go-Xq7', 'rust-vs-go~2', 'a.b_c', 'Abc123XYZabc123XYZabc1'];
const BAD = ['../account', 'a/b', '%2e%2e', 'a b', '-lead', 'x'.repeat(201), 'a..b'];

function pageSays(url: string): string | undefined {
  setUrl(url);
  const driver = createPageDriver(window);
  return new ThreadSession({ ctx: () => driver.context(), watcher: driver.watcher, json: () => threadJson2026, page: () => threadPage2026 }).threadId;
}

async function workerFinds(url: string, threadId: string): Promise<boolean> {
  const browser = fakeTabs([{ id: 1, url }]);
  return (await new ThreadTabs(browser.api).showing(threadId)).length === 1;
}

describe('the thread-id rule is the same at every layer', () => {
  for (const id of GOOD) {
    it(`accepts ${id} everywhere`, async () => {
      const url = `https://www.perplexity.ai/computer/tasks/${encodeURIComponent(id)}`;
      expect(mcpThreadIdProblem(id), 'MCP tools').toBeUndefined();
      expect(methods['threads.read'].params.safeParse({ threadId: id }).success, 'router schema').toBe(true);
      expect(await workerFinds(url, id), 'worker').toBe(true);
      expect(pageSays(url), 'page').toBe(id);
    });
  }
  for (const id of BAD) {
    it(`refuses ${JSON.stringify(id.slice(0, 20))} everywhere`, async () => {
      const url = `https://www.perplexity.ai/search/${encodeURIComponent(id)}`;
      expect(mcpThreadIdProblem(id), 'MCP tools').toMatch(/thread_id ".*" is not a Perplexity id/);
      expect(methods['threads.read'].params.safeParse({ threadId: id }).success, 'router schema').toBe(false);
      expect(await workerFinds(url, id), 'worker').toBe(false);
      expect(pageSays(url), 'page').toBeUndefined();
    });
  }
});

/**
 * A Computer task's address is /computer/tasks/<slug>-<id>; the slug is renamed or re-summarized after a run, the
 * last 22 characters stay (lib/selectors/README.md, "Computer task pages"). Every layer takes the task under its new
 * slug for the thread asked (review 14b, F1); a search thread's address is its id, whole.
 */
describe("a Computer task is the same thread under another slug (review 14b, F1)", () => {
  const ID = 'AbCdEfGhIjKlMnOp-rSt_v';
  const [before, after] = [`plan-my-week-${ID}`, `weekly-plan-for-the-team-${ID}`];
  const task = (segment: string) => `https://www.perplexity.ai/computer/tasks/${segment}`;

  it('the worker finds its tab, the page says it shows it, one queue serialises both', async () => {
    expect(await workerFinds(task(after), before)).toBe(true);
    expect(await workerFinds(task(after), ID)).toBe(true);
    expect(showsThread(task(before), after)).toBe(true);
    const tabs = new ThreadTabs(fakeTabs([]).api);
    const log: string[] = [];
    let release = () => {};
    const first = tabs.serialise(before, true, () => new Promise<void>((r) => (release = r)).then(() => log.push('first')));
    const second = tabs.serialise(after, true, async () => log.push('second'));
    await new Promise((r) => setTimeout(r, 5));
    expect(log).toEqual([]);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['first', 'second']);
  });

  it('another task, a search thread at the same id, or a slug without its "-" are other threads', async () => {
    expect(showsThread(task(`plan-my-week-${'Z'.repeat(22)}`), before)).toBe(false);
    expect(showsThread(`https://www.perplexity.ai/search/${after}`, before)).toBe(false);
    expect(showsThread(task(`x${ID}`), `y${ID}`)).toBe(false);
    expect(taskIdOf('short')).toBeUndefined();
    expect(sameThreadId(before, after)).toBe(true);
    expect(sameThreadId(before, `plan-my-week-${'Z'.repeat(22)}`)).toBe(false);
    const door = new DoorThreads();
    door.add(before);
    expect(door.has(after)).toBe(true);
    expect(door.has(`plan-my-week-${'Z'.repeat(22)}`)).toBe(false);
    // A uuid (a search thread's id) is its own whole id: two sharing their last groups are two threads (review 14d, 4).
    door.add('d236db28-526f-49a1-9a21-faa33c3ad928');
    expect(door.has('00000000-0000-49a1-9a21-faa33c3ad928')).toBe(false);
    expect(sameThreadId('d236db28-526f-49a1-9a21-faa33c3ad928', '00000000-0000-49a1-9a21-faa33c3ad928')).toBe(false);
  });
});
