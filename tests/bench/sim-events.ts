import type { Page } from 'playwright-core';

interface SimEvent {
  type: string;
  turn: number;
  at: number;
}

/**
 * When the simulated page finished the answer to an ask made at or after `since`: the `at` of the
 * last `answer-finished` in `window.__sim.events` (the page's wall clock with its fraction, right after the DOM
 * changed), or of the last `ask-stream-ended` (the page's own read of the turn's ask stream had its
 * end event whole). Read from the page's main world, where the simulator keeps its hook.
 */
export async function answerFinishedAt(page: Page, since: number, type: 'answer-finished' | 'ask-stream-ended' = 'answer-finished'): Promise<number | undefined> {
  const events = await page.evaluate(() => (window as unknown as { __sim?: { events: SimEvent[] } }).__sim?.events ?? []);
  const finished = events.filter((e) => e.type === type && e.at >= since);
  return finished.at(-1)?.at;
}
