import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { TRACE_META } from '../../lib/mcp/server';
import { THREAD_JSON_READERS } from '../../lib/selectors/thread-json';
import type { ThreadJsonReader } from '../../lib/selectors/thread-schema';
import type { Harness } from '../support/harness';

/**
 * (g) a thread checkpoint appearing in the page → its held call returned in this process, and
 * (h) four threads at once against the same four one after another. The clock is Date.now() on
 * both sides (same machine); the page's side is the simulator's `window.__sim.events` in the
 * thread's own background tab.
 */
export interface ThreadBenchWorld {
  harness: Harness;
  client: Client;
}
interface SimEvent {
  type: string;
  turn: number;
  at: number;
}

type Structured = { thread_id?: string; event?: string };

async function callThreadTool(world: ThreadBenchWorld, name: string, args: Record<string, unknown>): Promise<{ result: Structured; returnedAt: number }> {
  const raw = await world.client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 });
  const returnedAt = Date.now();
  if (raw.isError) throw new Error(`${name} failed: ${JSON.stringify(raw.content).slice(0, 300)}`);
  return { result: raw.structuredContent as Structured, returnedAt };
}

function threadPage(world: ThreadBenchWorld, threadId: string): Page {
  const page = world.harness.context.pages().find((p) => p.url().includes(threadId));
  if (!page) throw new Error(`no tab shows thread ${threadId}`);
  return page;
}

/** The `at` of the first event of `type` at or after `since` in the thread's tab. */
async function eventAt(page: Page, type: string, since: number): Promise<number> {
  const events = await page.evaluate(() => (window as unknown as { __sim?: { events: SimEvent[] } }).__sim?.events ?? []);
  const hit = events.find((e) => e.type === type && e.at >= since);
  if (!hit) throw new Error(`no ${type} event in ${page.url()} since ${since}`);
  return hit.at;
}

export interface CheckpointLatencies {
  question: number[];
  complete: number[];
}

/**
 * Each round on one thread: a computer-question turn (held until the question shows: `waiting`),
 * then answer_question (held until the answer finishes: `answer-finished`).
 */
export async function measureCheckpointLatency(world: ThreadBenchWorld, rounds: number): Promise<CheckpointLatencies> {
  const out: CheckpointLatencies = { question: [], complete: [] };
  let threadId: string | undefined;
  for (let i = 0; i < rounds; i++) {
    let since = Date.now();
    const message = `Bench thread round ${i + 1} #scenario:computer-question`;
    const asked = await callThreadTool(world, 'call_perplexity_computer', { message, ...(threadId ? { thread_id: threadId } : {}) });
    if (asked.result.event !== 'ask_user_question') throw new Error(`expected ask_user_question, got ${asked.result.event}`);
    threadId = asked.result.thread_id as string;
    const page = threadPage(world, threadId);
    out.question.push(asked.returnedAt - (await eventAt(page, 'waiting', since)));

    since = Date.now();
    const answered = await callThreadTool(world, 'answer_question', { thread_id: threadId, answers: { answer: 'PDF' } });
    if (answered.result.event !== 'complete') throw new Error(`expected complete, got ${answered.result.event}`);
    out.complete.push(answered.returnedAt - (await eventAt(page, 'answer-finished', since)));
  }
  return out;
}

export interface ParallelThreads {
  parallelMs: number;
  sequentialMs: number;
}

/** Four computer-complete tasks, each in its own new thread: all at once, then one after another. */
export async function parallelThreads(world: ThreadBenchWorld): Promise<ParallelThreads> {
  const run = (label: string, i: number) => callThreadTool(world, 'call_perplexity_computer', { message: `Bench ${label} ${i} #scenario:computer-complete` });
  const t0 = Date.now();
  await Promise.all([1, 2, 3, 4].map((i) => run('parallel', i)));
  const parallelMs = Date.now() - t0;
  const t1 = Date.now();
  for (const i of [1, 2, 3, 4]) await run('sequential', i);
  return { parallelMs, sequentialMs: Date.now() - t1 };
}

export interface TablessReads {
  /** Tabs the browser had before and after the reads. */
  tabsBefore: number;
  tabsAfter: number;
  /** Each read_thread call's time, and beside each the same thread's JSON fetched by a Perplexity tab. */
  readMs: number[];
  jsonFetchMs: number[];
  text: string[];
  /** Each read's trace (lib/mcp/server.ts TRACE_META): what every hop held it, on its own clock. */
  traces: Record<string, number>[];
}

/** One `GET /rest/thread/{id}` as the thread JSON reader asks it (same query and headers), timed in `page`. */
async function timedJsonFetch(page: Page, id: string): Promise<number> {
  const { path, query, headers } = (THREAD_JSON_READERS[0] as ThreadJsonReader).request;
  const url = `${path.replace('{id}', encodeURIComponent(id))}?${new URLSearchParams(query)}`;
  return page.evaluate(
    async ([href, h]) => {
      const t0 = performance.now();
      await (await fetch(href, { headers: h, credentials: 'include', cache: 'no-store' })).text();
      return performance.now() - t0;
    },
    [url, headers] as const,
  );
}

/**
 * (p) `threads` threads started one after another (each in a background tab), their tabs closed,
 * then read_thread on each, one after another, each followed by the same thread's JSON fetched by a
 * Perplexity tab (the reference: what a read costs at the least). The reads go through a Perplexity
 * tab already open (a same-origin fetch of the thread JSON), so no tab opens.
 *
 * `noPerplexityTab`: every Perplexity tab is closed first, the person's too; the reads then share
 * one background tab of ours at home, opened by the first (its time is in `readMs[0]`).
 */
export async function readsWithoutTabs(world: ThreadBenchWorld & { page: Page }, ids: string[], options: { noPerplexityTab?: boolean } = {}): Promise<TablessReads> {
  const context = world.harness.context;
  const perplexity = (p: Page) => /^https:\/\/(www\.)?perplexity\.ai\//.test(p.url());
  for (const p of context.pages()) if (options.noPerplexityTab ? perplexity(p) : p !== world.page && ids.some((id) => p.url().includes(id))) await p.close();
  const tabsBefore = context.pages().length;
  const readMs: number[] = [];
  const jsonFetchMs: number[] = [];
  const text: string[] = [];
  const traces: Record<string, number>[] = [];
  // One after another: each call's time is then its own, not a queue's.
  for (const id of ids) {
    const t0 = performance.now();
    const raw = await world.client.callTool({ name: 'read_thread', arguments: { thread_id: id }, _meta: { [TRACE_META]: true } }, undefined, { timeout: 60_000 });
    readMs.push(performance.now() - t0);
    traces.push({ ...((raw._meta?.[TRACE_META] as Record<string, number> | undefined) ?? {}), total: readMs.at(-1) as number });
    if (raw.isError) throw new Error(`read_thread ${id} failed: ${JSON.stringify(raw.content).slice(0, 300)}`);
    text.push(JSON.stringify(raw.structuredContent));
    const reader = options.noPerplexityTab ? context.pages().find(perplexity) : world.page;
    if (!reader) throw new Error('(p) no Perplexity tab is open after a read_thread to time the JSON fetch in');
    jsonFetchMs.push(await timedJsonFetch(reader, id));
  }
  return { tabsBefore, tabsAfter: context.pages().length, readMs, jsonFetchMs, text, traces };
}

/** (p) `count` computer-complete threads, started one after another (four at once hit the start limit on a loaded machine). */
export async function startThreads(world: ThreadBenchWorld, count: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const started = await callThreadTool(world, 'call_perplexity_computer', { message: `${label} ${i} #scenario:computer-complete` });
    ids.push(started.result.thread_id as string);
  }
  return ids;
}
