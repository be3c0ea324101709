// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { threadIdProblem as mcpThreadIdProblem } from '../../lib/mcp/threads/rules';
import { methods } from '../../lib/protocol/methods';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
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
