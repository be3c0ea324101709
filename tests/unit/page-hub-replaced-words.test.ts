import type { Runtime } from 'webextension-polyfill';
import { describe, expect, it } from 'vitest';
import { PageHub } from '../../lib/worker/calls/pages';
import type { PageAccessWords } from '../../lib/protocol/page-access';
import { FakePort } from '../support/fake-port';

/**
 * whenReplaced once the page it left is gone: it waits for the next page as any wait does, waking when the old page
 * goes, so its words give the time waited and a settled cause (site access off) is said at once (review 10, router
 * round 4).
 */
const X = 'https://www.perplexity.ai/search/thread-X';

function setup(diagnose?: (tabId: number, waitedMs: number) => Promise<PageAccessWords>) {
  const hub = new PageHub(() => {}, undefined, diagnose);
  const port = new FakePort({ name: 'comet-relay/page', sender: { tab: { id: 7 } } });
  hub.accept(port as unknown as Runtime.Port);
  port.deliver({ kind: 'event', event: 'page.ready', data: { url: X, title: 'T', kits: [] } });
  return { hub, port };
}

describe('whenReplaced once the page it left is gone', () => {
  it('no diagnosis at hand: the words give the time waited, not "1 ms"', async () => {
    const { hub, port } = setup();
    const wait = hub.whenReplaced(7, port, 300);
    port.drop(); // the old document is gone; nothing connects
    const error = (await wait.catch((e: Error) => e)) as Error;
    // Before (0f2ea95): "… did not load its comet-relay script within 1 ms", after the whole wait.
    expect(error.message).not.toMatch(/within 1 ms/);
  });

  it('the browser says why at once (site access off, settled): said at once, not after the whole wait, and with the time waited', async () => {
    const calls: number[] = [];
    const words = (waitedMs: number): PageAccessWords => ({
      state: 'site-access-off',
      code: 'SITE_ACCESS_OFF',
      title: 'Site access to www.perplexity.ai is off',
      message: `site access is off (asked after ${waitedMs} ms)`,
      fix: 'turn it on',
      settled: true,
      tabId: '7',
    });
    const { hub, port } = setup(async (_tab, waitedMs) => {
      calls.push(waitedMs);
      return words(waitedMs);
    });
    const started = Date.now();
    const wait = hub.whenReplaced(7, port, 1_500);
    port.drop();
    const error = (await wait.catch((e: Error) => e)) as Error;
    expect(error).toMatchObject({ code: 'SITE_ACCESS_OFF' });
    // Before (0f2ea95): the whole 1.5 s passed first, then whenReady(…, 1 ms) asked.
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
