import type { CDPSession } from 'playwright-core';
import type { SimWorld } from '../support/sim-harness';
import { answerFinishedAt } from './sim-events';
import { sleep } from './stats';

/**
 * The baseline: the existing CDP-based MCP Comet server's comet_wait, re-implemented from its tool
 * reference and the page facts in lib/selectors/README.md, run from the bench over a DevTools session on the
 * same tab our extension drives. Nothing of ours is used to read the page; comet_ask (ours) only
 * submits the question.
 *
 * Its status (getAgentStatus, one Runtime.evaluate in the page's main world):
 *   working   if the page text contains "Reading" / "Searching" / "Thinking" / "Preparing"
 *             (its words, even in an answer), or a stop button exists — where any button
 *             holding an `svg rect` counts as one (Expand pane too) — or an `animate-spin` / `animate-pulse`
 *             spinner exists anywhere;
 *   completed if not working and the last `.prose` has text; idle otherwise.
 *   response  = innerText of the last `.prose`.
 *
 * Its wait loop (comet_wait):
 *   - poll at once, then every COMET_POLL_INTERVAL = 1000 ms (sleep after each evaluation, as a
 *     setTimeout loop does);
 *   - stall: if the response length has not grown for 10 consecutive polls, break out and return
 *     what it has (we return at once, no settle: the kindest reading for the baseline);
 *   - when the status is idle/completed and the response is a new one (comet_ask captured the prose
 *     count and last prose text before sending; "new" = more prose elements or a different last
 *     text — without this check it would return the previous answer at once),
 *     it settles: up to 5 settle polls 1 s apart, stopping early as soon as a settle poll reads the
 *     same text as the reading before it.
 *   Reading of the settle rule: the reference says "performs up to 5 settle polls (1 second apart)
 *   to ensure the response has finished rendering". We compare each settle poll with the previous
 *   reading, the first one with the poll that saw idle, so a finished answer costs one settle poll
 *   (+1 s) and a still-changing one up to five (+5 s). That is the most favourable reading that still
 *   does what the text says, and matches the "1–6 s" that design implies (1 s poll + up to 5 settle polls).
 *
 * Two detectors run on the same stream of readings (one evaluation per tick feeds both; ticks are
 * 1 s apart in both the poll and the settle phase, so sharing them changes nothing):
 *   - `as-shipped`: every rule above. The simulated topbar's "Expand pane" button has an svg rect,
 *     as the real one does, so this one sees "working" forever.
 *   - `no-rect`:   the same without the svg-rect rule (stop = `button[aria-label="Stop"|"Cancel"]`, but not the
 *     sim's read-aloud "Stop" in a finished answer's action row, a decoy that also reads as working forever),
 *     i.e. the stop-button mistakes fixed, to time the poll-and-settle rule itself on an answer
 *     without the trigger words, and to show the trigger-word mistake on one with them.
 */

export type Detector = 'as-shipped' | 'no-rect';

export interface Reading {
  words: boolean;
  rectButton: boolean;
  stopButton: boolean;
  /** A Stop/Cancel button outside a finished answer's action row (where the sim's playing read-aloud control is). */
  stopOutsideRow: boolean;
  spinner: boolean;
  proseCount: number;
  response: string;
}

const READ_EXPRESSION = `(() => {
  const text = document.body ? document.body.innerText : '';
  const words = ['Reading', 'Searching', 'Thinking', 'Preparing'].some((w) => text.includes(w));
  const rectButton = Array.from(document.querySelectorAll('button')).some((b) => b.querySelector('svg rect'));
  const stops = Array.from(document.querySelectorAll('button[aria-label="Stop"], button[aria-label="Cancel"]'));
  const stopButton = stops.length > 0;
  const stopOutsideRow = stops.some((b) => !b.closest('[data-workflow-text-footer]'));
  const spinner = !!document.querySelector('.animate-spin, .animate-pulse');
  const prose = document.querySelectorAll('.prose');
  const last = prose[prose.length - 1];
  return { words, rectButton, stopButton, stopOutsideRow, spinner, proseCount: prose.length, response: last ? last.innerText : '' };
})()`;

/** One getAgentStatus-style evaluation; undefined while the page is between documents. */
export async function readPage(cdp: CDPSession): Promise<Reading | undefined> {
  try {
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression: READ_EXPRESSION, returnByValue: true });
    return exceptionDetails ? undefined : (result.value as Reading);
  } catch {
    return undefined;
  }
}

export type Outcome = { how: 'settled' | 'stalled'; at: number } | { how: 'capped' };

/** comet_wait of the CDP server as a state machine fed one reading per 1 s tick. */
export class OldWait {
  private phase: 'poll' | 'settle' = 'poll';
  private lastLength = 0;
  private stalledPolls = 0;
  private settlePolls = 0;
  private previous = '';
  outcome?: Outcome;

  constructor(
    private readonly detector: Detector,
    private readonly before: { proseCount: number; response: string },
  ) {}

  status(r: Reading): 'working' | 'completed' | 'idle' {
    const stop = this.detector === 'as-shipped' ? r.stopButton || r.rectButton : r.stopOutsideRow;
    if (r.words || stop || r.spinner) return 'working';
    return r.response ? 'completed' : 'idle';
  }

  /** Feeds the reading of one tick; sets `outcome` when comet_wait would return. */
  feed(r: Reading | undefined, now: number): void {
    if (this.outcome || !r) return;
    if (this.phase === 'settle') {
      this.settlePolls += 1;
      if (r.response === this.previous || this.settlePolls >= 5) this.outcome = { how: 'settled', at: now };
      this.previous = r.response;
      return;
    }
    const isNew = r.proseCount > this.before.proseCount || (r.response !== '' && r.response !== this.before.response);
    if (this.status(r) !== 'working' && isNew && r.response) {
      this.phase = 'settle';
      this.previous = r.response;
      return;
    }
    if (r.response.length > this.lastLength) {
      this.lastLength = r.response.length;
      this.stalledPolls = 0;
    } else if (++this.stalledPolls >= 10) {
      this.outcome = { how: 'stalled', at: now };
    }
  }
}

export interface BaselineAsk {
  /** Outcome per detector, with `latency` = returned − answer finished in the page (ms). */
  results: Partial<Record<Detector, { how: Outcome['how']; latency?: number }>>;
}

export interface BaselineOptions {
  label: string;
  tag?: string;
  newChat: boolean;
  /** Detectors to follow until they return (or the cap). */
  follow: Detector[];
  capMs: number;
}

/** One ask (submitted with our comet_ask) followed by the CDP server's comet_wait over DevTools. */
export async function baselineAsk(world: SimWorld, cdp: CDPSession, options: BaselineOptions): Promise<BaselineAsk> {
  const before = (await readPage(cdp)) ?? { proseCount: 0, response: '' };
  const since = Date.now();
  const asked = await world.call('comet_ask', { prompt: `${options.label} ${options.tag ?? ''}`.trim(), newChat: options.newChat });
  if (asked.isError) throw new Error(`comet_ask failed: ${asked.text}`);
  const waits = new Map(options.follow.map((d) => [d, new OldWait(d, before)] as const));
  const deadline = Date.now() + options.capMs;
  while (Date.now() < deadline && [...waits.values()].some((w) => !w.outcome)) {
    const reading = await readPage(cdp);
    const now = Date.now();
    for (const w of waits.values()) w.feed(reading, now);
    if ([...waits.values()].every((w) => w.outcome)) break;
    await sleep(1000);
  }
  // Let the page finish before the next ask (ours returns at once if it has).
  await world.call('comet_wait', { timeout: 30_000 });
  const finishedAt = await answerFinishedAt(world.page, since);
  const results: BaselineAsk['results'] = {};
  for (const [detector, w] of waits) {
    const outcome: Outcome = w.outcome ?? { how: 'capped' };
    results[detector] = {
      how: outcome.how,
      latency: outcome.how !== 'capped' && finishedAt !== undefined ? outcome.at - finishedAt : undefined,
    };
  }
  return { results };
}
