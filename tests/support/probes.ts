import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/**
 * Looks into the browser over the DevTools protocol, for proofs no public API gives: how many
 * MutationObservers our content script holds in a tab (so "nothing keeps running in the page" is
 * checked, not assumed), and stopping the extension's service worker the way Chromium does when
 * it idles it out.
 */
export interface ObserverProbe {
  /** Live MutationObservers in the content script's isolated world, after a garbage collection. */
  count(): Promise<number>;
  /** Polls until the count is `wanted` (or throws after `timeoutMs`). */
  until(wanted: number | ((n: number) => boolean), timeoutMs?: number): Promise<number>;
}

export async function observerProbe(context: BrowserContext, page: Page, worldName = 'comet-relay'): Promise<ObserverProbe> {
  const cdp = await context.newCDPSession(page);
  const contexts = new Map<number, { name: string; type?: string }>();
  cdp.on('Runtime.executionContextCreated', ({ context: c }) => contexts.set(c.id, { name: c.name, type: (c.auxData as { type?: string } | undefined)?.type }));
  cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => contexts.delete(executionContextId));
  cdp.on('Runtime.executionContextsCleared', () => contexts.clear());
  await cdp.send('Runtime.enable');
  const count = async () => {
    const ours = [...contexts].find(([, c]) => c.type === 'isolated' && c.name === worldName)?.[0];
    if (ours === undefined) throw new Error(`no "${worldName}" content script world in ${page.url()}`);
    return countObservers(cdp, ours);
  };
  return {
    count,
    async until(wanted, timeoutMs = 10_000) {
      const matches = typeof wanted === 'number' ? (n: number) => n === wanted : wanted;
      const deadline = Date.now() + timeoutMs;
      let last = -1;
      while (Date.now() < deadline) {
        last = await count().catch(() => -1);
        if (matches(last)) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the content script still holds ${last} MutationObserver(s) after ${timeoutMs} ms`);
    },
  };
}

async function countObservers(cdp: CDPSession, contextId: number): Promise<number> {
  const group = 'comet-relay-probe';
  try {
    const proto = await cdp.send('Runtime.evaluate', { expression: 'MutationObserver.prototype', contextId, objectGroup: group });
    await cdp.send('HeapProfiler.collectGarbage');
    const found = await cdp.send('Runtime.queryObjects', { prototypeObjectId: proto.result.objectId as string, objectGroup: group });
    const length = await cdp.send('Runtime.callFunctionOn', {
      objectId: found.objects.objectId as string,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    return Number(length.result.value);
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => {});
  }
}

/** Stops the extension's service worker, as Chromium does to an idle one (or a crash would). */
export async function stopServiceWorker(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const versions: { versionId: string; scriptURL: string; runningStatus: string }[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => versions.push(...(event.versions as typeof versions)));
  await cdp.send('ServiceWorker.enable');
  const deadline = Date.now() + 5000;
  let ours: (typeof versions)[number] | undefined;
  while (!ours && Date.now() < deadline) {
    ours = versions.find((v) => v.scriptURL.startsWith('chrome-extension://') && v.runningStatus === 'running');
    if (!ours) await new Promise((r) => setTimeout(r, 50));
  }
  if (!ours) throw new Error('no running extension service worker to stop');
  await cdp.send('ServiceWorker.stopWorker', { versionId: ours.versionId });
  await cdp.detach().catch(() => {});
}

/** The OS process of a stdio MCP client's `comet-relay mcp`, to kill it as a crash would. */
export function mcpProcessId(client: Client): number {
  const pid = (client.transport as StdioClientTransport | undefined)?.pid;
  if (!pid) throw new Error('this client has no child process');
  return pid;
}
