import fs from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { threadIdOfUrl } from '../../lib/protocol/threads/thread-ids';
import type { Harness } from '../support/harness';
import { sleep } from './stats';

/**
 * (q) The renderer memory held threads cost. A thread call held on its thread (here
 * `call_perplexity_computer` on a task that runs longer than the hold) gives that thread its own
 * background tab; N such calls at once, N tabs. For each tab, the renderer process that draws it,
 * and that process's memory from /proc/<pid>/smaps_rollup.
 *
 * Which process draws which tab comes from Chromium itself (rendererPids below). Neither
 * `SystemInfo.getProcessInfo` (pids and CPU time, no memory, no tab) nor a diff of the renderer
 * pids before and after (Chromium keeps a spare renderer ready, which the next tab takes) says
 * which tab a process draws; `performance.measureUserAgentSpecificMemory` needs a
 * cross-origin-isolated page, which perplexity.ai (and so the sim) is not.
 */
export interface RendererMemory {
  pid: number;
  url: string;
  /** Private_Clean + Private_Dirty: what this process alone holds (freed if the tab closed). */
  privateBytes: number;
  /** Resident, shared pages (Chromium's code, fonts) counted in full. */
  rssBytes: number;
  /** Proportional: shared pages divided among the processes that map them. */
  pssBytes: number;
}

export interface HeldRound {
  threads: number;
  renderers: RendererMemory[];
  /** Tabs that shared a renderer with another held tab (their process counted once). */
  sharedProcesses: number;
}

function smapsRollup(pid: number): Omit<RendererMemory, 'pid' | 'url'> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { privateBytes: kb('Private_Clean') + kb('Private_Dirty'), rssBytes: kb('Rss'), pssBytes: kb('Pss') };
}

/**
 * Each tab's renderer pid, as Chromium's own trace names it: the tab's main frame id (CDP
 * Page.getFrameTree) is the `frame` of the timer events a `setTimeout` in that tab writes while the
 * browser traces, and those events carry the pid of the process that ran them.
 */
async function rendererPids(harness: Harness, browser: Browser, tabs: readonly Page[]): Promise<Map<Page, number>> {
  const frames = new Map<string, Page>();
  for (const tab of tabs) {
    const cdp = await harness.context.newCDPSession(tab);
    frames.set((await cdp.send('Page.getFrameTree')).frameTree.frame.id, tab);
    await cdp.detach();
  }
  await browser.startTracing(undefined, { categories: ['devtools.timeline'] });
  for (const tab of tabs) await tab.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: { name: string; pid: number; args?: { data?: { frame?: string } } }[] };
  const out = new Map<Page, number>();
  for (const event of trace.traceEvents) {
    const tab = event.name === 'TimerInstall' ? frames.get(event.args?.data?.frame ?? '') : undefined;
    if (tab) out.set(tab, event.pid);
  }
  return out;
}

/**
 * For each N: N `call_perplexity_computer` calls on long tasks, each in a new thread, held at once;
 * once every thread shows in its own tab and the page has settled, each tab's renderer is measured;
 * then the calls are cancelled and their tabs closed before the next N. `client` must allow at
 * least max(N) thread tabs (COMET_THREAD_TABS).
 */
export async function heldThreadMemory(harness: Harness, client: Client, rounds: readonly number[], settleMs = 3000): Promise<HeldRound[]> {
  const browser = harness.context.browser();
  if (!browser) throw new Error('the bench browser has no Browser object to trace');
  const out: HeldRound[] = [];
  for (const threads of rounds) {
    const before = new Set(harness.context.pages());
    const cancel = new AbortController();
    const calls = Array.from({ length: threads }, (_, i) =>
      client
        .callTool({ name: 'call_perplexity_computer', arguments: { message: `Held ${threads}.${i} #scenario:computer-long` } }, undefined, { signal: cancel.signal, timeout: 300_000 })
        .then(
          (raw) => `returned before it was measured: ${JSON.stringify(raw.structuredContent ?? raw.content).slice(0, 200)}`,
          // Cancelled by us once measured: the hold ended as meant. Anything else ended it early.
          (error: Error) => (cancel.signal.aborted ? undefined : `failed before it was measured: ${error.message}`),
        ),
    );
    let early: string | undefined;
    void Promise.race(calls).then((said) => {
      early ??= said;
    });
    const held = (): Page[] => harness.context.pages().filter((p) => !before.has(p) && threadIdOfUrl(p.url()) !== undefined);
    const deadline = Date.now() + 120_000;
    while (held().length < threads) {
      if (early) throw new Error(`(q) a held call ${early}`);
      if (Date.now() > deadline) throw new Error(`(q) ${held().length} of ${threads} held threads showed in a tab within 120 s`);
      await sleep(200);
    }
    await sleep(settleMs);
    const tabs = held();
    const pids = await rendererPids(harness, browser, tabs);
    const renderers: RendererMemory[] = [];
    const seen = new Set<number>();
    let sharedProcesses = 0;
    for (const tab of tabs) {
      const pid = pids.get(tab);
      if (pid === undefined) throw new Error(`(q) Chromium's trace names no process for ${tab.url()}`);
      if (seen.has(pid)) {
        sharedProcesses += 1;
        continue;
      }
      seen.add(pid);
      const memory = smapsRollup(pid);
      if (!memory) throw new Error(`(q) /proc/${pid}/smaps_rollup could not be read (Linux only)`);
      renderers.push({ pid, url: tab.url(), ...memory });
    }
    if (early) throw new Error(`(q) a held call ${early}`);
    cancel.abort();
    await Promise.all(calls);
    for (const tab of tabs) await tab.close();
    out.push({ threads, renderers, sharedProcesses });
  }
  return out;
}
