import type { CDPSession } from 'playwright-core';
import { sleep } from './stats';

/**
 * (f) The page at rest: nothing asked, an answer finished. Over `windowMs`:
 *   - Performance.getMetrics deltas of the renderer's main thread (TaskDuration, ScriptDuration,
 *     layouts, style recalcs), which cover the page and every isolated world, ours included;
 *   - a V8 CPU profile (the isolate is shared by the main world and the content script's isolated
 *     world), counting samples whose stack holds a chrome-extension:// frame: ours.
 * `control` runs the same profile while `busy` runs (e.g. comet_poll calls), to show the profiler does
 * see our content script when it works.
 */
export interface Activity {
  windowMs: number;
  taskMs: number;
  scriptMs: number;
  layouts: number;
  styleRecalcs: number;
  /** Samples with a chrome-extension:// frame on the stack, and their share of the window in ms. */
  ourSamples: number;
  ourMs: number;
  /** Samples running any JavaScript (not idle, program or GC). */
  jsSamples: number;
}

type Metrics = Record<string, number>;

async function metrics(cdp: CDPSession): Promise<Metrics> {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

type Profile = { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] };

/**
 * Of a profile's samples, ours (an extension script's frame on the stack) and their time; and all JS samples. `whose`
 * picks among ours by the nearest such frame (the sample's own, or its closest caller of ours): the tap's when the
 * tap's own code ran, not a listener of the page script's that its event called.
 */
function attribute(profile: Profile, whose: (url: string) => boolean = () => true) {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nearest = new Map<number, string>();
  /** The URL of the nearest frame of ours at or above `id`, '' when none. */
  const oursAt = (id: number): string => {
    const seen = nearest.get(id);
    if (seen !== undefined) return seen;
    const url = byId.get(id)?.callFrame.url ?? '';
    const up = parent.get(id);
    const value = url.startsWith('chrome-extension://') ? url : up !== undefined ? oursAt(up) : '';
    nearest.set(id, value);
    return value;
  };
  const isOurs = (id: number): boolean => {
    const url = oursAt(id);
    return url !== '' && whose(url);
  };
  const notJs = new Set(['(idle)', '(program)', '(root)', '(garbage collector)']);
  let ourSamples = 0;
  let ourMicros = 0;
  let jsSamples = 0;
  const samples = profile.samples ?? [];
  samples.forEach((id, i) => {
    const delta = profile.timeDeltas?.[i + 1] ?? 0;
    if (!notJs.has(byId.get(id)?.callFrame.functionName ?? '')) jsSamples += 1;
    if (isOurs(id)) {
      ourSamples += 1;
      ourMicros += delta;
    }
  });
  return { ourSamples, ourMs: ourMicros / 1000, jsSamples };
}

/**
 * (f) What reading the page's ask stream costs the page (issue 30): a V8 CPU profile at 50 µs while `run` has the
 * page stream answers, split between the main-world tap (its own code, the nearest frame of ours on the stack) and the
 * rest of ours (the page script's channel and the ask kit's reader, which the tap's events call in the same task).
 * What the browser does for the tap's clone of the response (its tee, off the JavaScript stack) is in neither.
 */
export async function measureStreamReading(cdp: CDPSession, run: () => Promise<void>): Promise<{ tapMs: number; restMs: number; samples: number }> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  await cdp.send('Profiler.start');
  let profile: unknown;
  try {
    await run();
  } finally {
    profile = (await cdp.send('Profiler.stop')).profile;
    await cdp.send('Profiler.disable');
  }
  const tap = attribute(profile as unknown as Profile, (url) => url.includes('perplexity-tap'));
  const all = attribute(profile as unknown as Profile);
  return { tapMs: tap.ourMs, restMs: all.ourMs - tap.ourMs, samples: tap.ourSamples };
}

export async function measureActivity(cdp: CDPSession, windowMs: number, busy?: () => Promise<void>): Promise<Activity> {
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  const before = await metrics(cdp);
  await cdp.send('Profiler.start');
  const started = Date.now();
  if (busy) await busy();
  const left = windowMs - (Date.now() - started);
  if (left > 0) await sleep(left);
  const { profile } = await cdp.send('Profiler.stop');
  const after = await metrics(cdp);
  const window = Date.now() - started;
  await cdp.send('Profiler.disable');
  await cdp.send('Performance.disable');
  const d = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  return {
    windowMs: window,
    taskMs: d('TaskDuration') * 1000,
    scriptMs: d('ScriptDuration') * 1000,
    layouts: d('LayoutCount'),
    styleRecalcs: d('RecalcStyleCount'),
    ...attribute(profile as unknown as Profile),
  };
}
