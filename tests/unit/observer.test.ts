// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { askThrough } from '../../lib/page/kits/ask-kit';
import { createPageDriver } from '../../lib/page/driver';
import { type PageEvent, PageWatcher } from '../../lib/page/answer/observer';
import { RelayError } from '../../lib/protocol/errors';
import { chooseSelectorSet } from '../../lib/selectors';
import { loadFixture, setUrl } from '../fixtures/reader/load';

/** Counts MutationObservers that are observing right now, to prove none is left behind. */
let live = 0;
const Native = window.MutationObserver;
class CountingObserver extends Native {
  private on = false;
  override observe(target: Node, options?: MutationObserverInit): void {
    if (!this.on) live++;
    this.on = true;
    super.observe(target, options);
  }
  override disconnect(): void {
    if (this.on) live--;
    this.on = false;
    super.disconnect();
  }
}
beforeEach(() => {
  live = 0;
  window.MutationObserver = CountingObserver as typeof MutationObserver;
});
afterEach(() => {
  window.MutationObserver = Native;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function thread(): HTMLElement {
  return document.querySelector('.max-w-threadContentWidth') as HTMLElement;
}

/** Appends turn n the way the site does after a round trip: question, steps, stop button. */
function addWorkingTurn(n: number, question: string): HTMLElement {
  const turn = document.createElement('div');
  turn.setAttribute('data-workflow-entry', String(n));
  turn.innerHTML = `<div class="group/query"><div class="select-text">${question}</div></div>
    <div class="contents"><div>Preparing to assist…</div></div>
    <div data-workflow-final-text><div class="prose" data-renderer="lm"></div></div>
    <button aria-label="Stop">■</button>`;
  thread().append(turn);
  return turn;
}

function addStep(turn: HTMLElement, text: string): void {
  const row = document.createElement('div');
  row.textContent = text;
  turn.querySelector('.contents')?.append(row);
}

function stream(turn: HTMLElement, html: string): void {
  (turn.querySelector('.prose') as HTMLElement).innerHTML = html;
}

function finish(turn: HTMLElement, steps: number): void {
  turn.querySelector('button[aria-label="Stop"]')?.remove();
  const header = document.createElement('div');
  header.textContent = `Finished ${steps} steps`;
  turn.querySelector('.contents')?.prepend(header);
}

describe('PageWatcher', () => {
  it('observes only while someone listens', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    expect(w.active).toBe(false);
    const off = w.subscribe(() => {});
    expect([w.active, live]).toEqual([true, 1]);
    off();
    expect([w.active, live]).toEqual([false, 0]);
  });

  it('answer-finished fires promptly after the stop button is removed, and not before', async () => {
    loadFixture('B-thread-streaming.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    const events: Array<PageEvent & { at: number }> = [];
    const off = w.subscribe((evs) => events.push(...evs.map((e) => ({ ...e, at: performance.now() }))));
    document.querySelector('.animate-spin')?.remove();
    await sleep(10);
    expect(events.some((e) => e.type === 'answer-finished')).toBe(false); // the stop button is still up
    (document.querySelector('[data-workflow-entry="1"] .prose') as HTMLElement).innerHTML += '<p>more</p>';
    await sleep(5);
    const removedAt = performance.now();
    document.querySelector('button[aria-label^="Stop"]')?.remove();
    await sleep(20);
    off();
    const done = events.find((e) => e.type === 'answer-finished');
    expect(done).toBeDefined();
    expect(done?.at ?? -Infinity).toBeGreaterThanOrEqual(removedAt); // pushed on the removal itself (latency: npm run bench)
    expect(events.map((e) => e.type)).toContain('answer-grew');
    expect(live).toBe(0);
  });

  it('emits navigated on a URL change seen through the DOM or popstate', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    const events: PageEvent[] = [];
    const off = w.subscribe((evs) => events.push(...evs));
    setUrl('https://www.perplexity.ai/search/other');
    window.dispatchEvent(new PopStateEvent('popstate'));
    await sleep(5);
    off();
    expect(events).toContainEqual({ type: 'navigated', url: 'https://www.perplexity.ai/search/other', from: 'https://www.perplexity.ai/search/x' });
  });
});

describe('PageWatcher.follow: a turn asked with nobody waiting', () => {
  const lastIndex = () => document.querySelectorAll('[data-workflow-entry]').length - 1;

  it('sees steps that show and are folded away before anyone reads, and stops observing when the turn ends', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    const turn = addWorkingTurn(lastIndex() + 2, 'Asked, then left alone');
    w.follow(lastIndex());
    expect(live).toBe(1);
    for (const step of ['Searching the web', 'Reading sources']) {
      addStep(turn, step);
      await sleep(1);
    }
    // The site folds the rows away as it finishes.
    for (const row of Array.from(turn.querySelectorAll('.contents > div'))) row.remove();
    stream(turn, '<p>The answer.</p>');
    finish(turn, 3);
    await sleep(5);
    expect(live).toBe(0);
    expect(w.snapshot().steps).toEqual(['Preparing to assist…', 'Searching the web', 'Reading sources']);
  });

  it('with the stop control in Submit\'s place and "Stop dictation" beside it (Sep 2026), every step is seen, the last one too', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    const stopIcon = '<svg><use xlink:href="#pplx-icon-player-stop-filled"></use></svg>';
    const box = document.querySelector('form > div') as HTMLElement;
    box.setAttribute('data-ask-input-container', 'true');
    const submit = `<button aria-label="Submit" disabled><svg><use xlink:href="#pplx-icon-arrow-up"></use></svg></button>`;
    box.insertAdjacentHTML('beforeend', `<div><button aria-label="Stop dictation">${stopIcon}</button></div><span class="slot">${submit}</span>`);
    const slot = box.querySelector('.slot') as HTMLElement;
    const turn = addWorkingTurn(lastIndex() + 2, 'Asked, then left alone');
    turn.querySelector('button[aria-label="Stop"]')?.remove();
    slot.innerHTML = `<button aria-label="Stop response">${stopIcon}</button>`;
    w.follow(lastIndex());
    const steps = ['Searching the web', 'Reviewing sources', 'Reading example.com', 'Found 4 sources'];
    for (const step of steps) {
      addStep(turn, step);
      await sleep(1);
      expect(w.snapshot().hasStopButton).toBe(true);
    }
    // One task: the rows folded away, the answer drawn, Submit back in the stop control's place.
    for (const row of Array.from(turn.querySelectorAll('.contents > div'))) row.remove();
    stream(turn, '<p>The answer.</p>');
    slot.innerHTML = submit;
    await sleep(5);
    expect(live).toBe(0);
    const done = w.snapshot();
    expect(done.steps).toEqual(['Preparing to assist…', ...steps]);
    expect(done.hasStopButton).toBe(false);
  });

  it('ends after its bound on a turn that never ends, and a newer ask takes the place of an older one', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const w = new PageWatcher(window, () => set);
    addWorkingTurn(lastIndex() + 2, 'First');
    w.follow(lastIndex(), 60_000);
    addWorkingTurn(lastIndex() + 2, 'Second');
    w.follow(lastIndex(), 30);
    expect(live).toBe(1);
    await sleep(60);
    expect(live).toBe(0);
  });

  it('a wait takes over: cancelled, nothing is left watching; timed out with the asked turn going on, it is followed again', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const turn = addWorkingTurn(lastIndex() + 2, 'Watched by a wait');
    driver.watcher.follow(lastIndex());
    const controller = new AbortController();
    const cancelled = driver.wait({ afterTurn: lastIndex(), timeoutMs: 5000 }, { signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(live).toBe(0);
    driver.watcher.follow(lastIndex());
    const timedOut = await driver.wait({ afterTurn: lastIndex(), timeoutMs: 20 });
    expect(timedOut.status).toBe('timeout');
    expect(live).toBe(1);
    stream(turn, '<p>done</p>');
    finish(turn, 1);
    await sleep(5);
    expect(live).toBe(0);
  });
});

describe('waitForAnswer', () => {
  it('a wait right after ask ignores the previous answer and binds to the new turn', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const progress: string[] = [];
    const waiting = driver.wait({ afterTurn: 2, timeoutMs: 5000 }, { onProgress: (p) => progress.push(p.message) });
    await sleep(30); // the server round trip: the old answer is still the last one
    const turn = addWorkingTurn(2, 'What about Zig?');
    await sleep(5);
    addStep(turn, 'Searching zig');
    stream(turn, '<p>Zig is</p>');
    await sleep(5);
    stream(turn, '<p>Zig is a language.</p><ul><li>small</li></ul>');
    await sleep(5);
    finish(turn, 2);
    const r = await waiting;
    expect(r.status).toBe('completed');
    expect(r.turnIndex).toBe(2);
    expect(r.response).toBe('Zig is a language.\n\n- small');
    expect(r.steps).toEqual(['Preparing to assist…', 'Searching zig']);
    expect(r.questionText).toBe('What about Zig?');
    expect(progress).toEqual(['Preparing to assist…', 'Searching zig']);
    expect(live).toBe(0);
  });

  it('resolves on the page\'s own mutation, with no polling timer', async () => {
    loadFixture('A-thread.html');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const driver = createPageDriver(window);
    const waiting = driver.wait({ afterTurn: 2, timeoutMs: 5000 });
    const turn = addWorkingTurn(2, 'q');
    stream(turn, '<p>done</p>');
    await sleep(50);
    finish(turn, 1);
    const r = await waiting;
    expect(r.status).toBe('completed');
    expect(intervals).not.toHaveBeenCalled();
    intervals.mockRestore();
  });

  it('ask then wait: the handle from ask binds the wait without passing afterTurn', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      composer.textContent = '';
      setTimeout(() => {
        const turn = addWorkingTurn(2, 'follow-up');
        setTimeout(() => {
          stream(turn, '<p>new answer</p>');
          finish(turn, 1);
        }, 10);
      }, 20);
    });
    const handle = await askThrough(driver, { prompt: 'follow-up' });
    expect(handle.afterTurn).toBe(2);
    const r = await driver.wait({ timeoutMs: 5000 });
    expect(r).toMatchObject({ status: 'completed', response: 'new answer', turnIndex: 2 });
  });

  it('comet_wait with nothing asked and the answer already done returns at once', async () => {
    loadFixture('A-thread.html');
    const r = await createPageDriver(window).wait({ timeoutMs: 5000 });
    expect(r).toMatchObject({ status: 'completed', turnIndex: 1 });
    expect(r.response).toContain('## Overview');
  });

  it('a slow stream that pauses while the stop button is up is not finished and not stalled', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const waiting = driver.wait({ afterTurn: 2, timeoutMs: 5000, stallMs: 40 });
    const turn = addWorkingTurn(2, 'slow');
    stream(turn, '<p>part one</p>');
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    await sleep(150); // pause far longer than stallMs, stop button still visible
    expect(settled).toBe(false);
    stream(turn, '<p>part one</p><p>part two</p>');
    finish(turn, 1);
    const r = await waiting;
    expect(r).toMatchObject({ status: 'completed', response: 'part one\n\npart two' });
  });

  it('stalled: no change in the page for stallMs and no stop button', async () => {
    loadFixture('A-thread.html');
    const t0 = performance.now();
    const r = await createPageDriver(window).wait({ afterTurn: 2, timeoutMs: 5000, stallMs: 60 });
    const took = performance.now() - t0;
    expect(r.status).toBe('stalled');
    expect(r.response).toBe('');
    expect(took).toBeGreaterThanOrEqual(55);
    expect(live).toBe(0);
  });

  it('timeout: still working at the deadline gives the partial response and steps', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const turn = addWorkingTurn(2, 'long');
    addStep(turn, 'Reading a lot');
    stream(turn, '<p>partial</p>');
    const r = await driver.wait({ afterTurn: 2, timeoutMs: 60 });
    expect(r).toMatchObject({ status: 'timeout', response: 'partial', steps: ['Preparing to assist…', 'Reading a lot'], hasStopButton: true });
    expect(r.currentStep).toBe('Reading a lot');
    expect(live).toBe(0);
  });

  it('abort rejects with CANCELLED and leaves nothing observing', async () => {
    loadFixture('A-thread.html');
    const ac = new AbortController();
    const waiting = createPageDriver(window).wait({ afterTurn: 2, timeoutMs: 5000 }, { signal: ac.signal });
    await sleep(5);
    expect(live).toBe(1);
    ac.abort();
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).code).toBe('CANCELLED');
    expect(live).toBe(0);
  });

  it('an error in the new turn ends the wait with status error', async () => {
    loadFixture('A-thread.html');
    const waiting = createPageDriver(window).wait({ afterTurn: 2, timeoutMs: 5000 });
    const turn = addWorkingTurn(2, 'q');
    await sleep(5);
    turn.querySelector('button')?.remove();
    turn.insertAdjacentHTML('beforeend', '<div role="alert">Something went wrong</div>');
    const r = await waiting;
    expect(r).toMatchObject({ status: 'error', error: 'Something went wrong' });
  });

  it('stop during a wait ends it as stopped, with the partial answer', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const turn = addWorkingTurn(2, 'q');
    stream(turn, '<p>half</p>');
    (turn.querySelector('button') as HTMLElement).addEventListener('click', (e) => (e.currentTarget as HTMLElement).remove());
    const waiting = driver.wait({ afterTurn: 2, timeoutMs: 5000 });
    await sleep(5);
    expect(await driver.stop()).toMatchObject({ stopped: true, confirmed: true });
    const r = await waiting;
    expect(r).toMatchObject({ status: 'stopped', response: 'half' });
    expect(live).toBe(0);
  });

  it('a new conversation (URL changed since the ask) counts from turn zero', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    const driver = createPageDriver(window);
    const waiting = driver.wait({ afterTurn: 3, baselineUrl: 'https://www.perplexity.ai/search/old', timeoutMs: 5000 });
    setUrl('https://www.perplexity.ai/search/new-thread');
    document.querySelector('main')!.innerHTML = '<div class="max-w-threadContentWidth"></div>';
    const turn = addWorkingTurn(0, 'first');
    stream(turn, '<p>fresh</p>');
    finish(turn, 1);
    expect(await waiting).toMatchObject({ status: 'completed', response: 'fresh', turnIndex: 0 });
  });
});

describe('a wait follows the turn its ask created', () => {
  const here = 'https://www.perplexity.ai/search/x';
  const bound = (turnIndex: number, questionKey: string, conversationUrl = here) => ({ turnIndex, conversationUrl, questionKey, timeoutMs: 5000 });

  it('two sessions asking in one tab each get their own answer, whichever is last', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const one = addWorkingTurn(2, 'Question of session one');
    stream(one, '<p>answer one</p>');
    finish(one, 1);
    const two = addWorkingTurn(3, 'Question of session two');
    stream(two, '<p>answer two, still streaming</p>');
    const first = await driver.wait(bound(2, 'Question of session one'));
    expect(first).toMatchObject({ status: 'completed', turnIndex: 2, response: 'answer one', questionText: 'Question of session one' });
    const waiting = driver.wait(bound(3, 'Question of session two'));
    await sleep(20);
    stream(two, '<p>answer two</p>');
    finish(two, 1);
    expect(await waiting).toMatchObject({ status: 'completed', turnIndex: 3, response: 'answer two' });
    expect(live).toBe(0);
  });

  it('the tab moving to another conversation mid-wait is a clear error, never that conversation\'s answer', async () => {
    loadFixture('A-thread.html');
    const driver = createPageDriver(window);
    const mine = addWorkingTurn(2, 'Mine');
    stream(mine, '<p>my answer so far</p>');
    const waiting = driver.wait(bound(2, 'Mine'));
    await sleep(10);
    // An SPA navigation: another conversation, whose third turn is finished.
    setUrl('https://www.perplexity.ai/search/theirs');
    thread().innerHTML = '';
    for (const [n, q] of ['a', 'b', 'Theirs'].entries()) {
      const turn = addWorkingTurn(n, q);
      stream(turn, `<p>their answer ${n}</p>`);
      finish(turn, 1);
    }
    window.dispatchEvent(new PopStateEvent('popstate'));
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).code).toBe('AGENT_ERROR');
    expect((err as RelayError).message).toMatch(/left the conversation.*search\/x.*comet_open_conversation/);
    expect(live).toBe(0);
  });

  it('a question asked on the home page is followed into the conversation the page creates for it', async () => {
    loadFixture('A-thread.html', 'https://www.perplexity.ai/');
    thread().innerHTML = '';
    const driver = createPageDriver(window);
    const waiting = driver.wait(bound(0, 'Brand new question', 'https://www.perplexity.ai/'));
    await sleep(10);
    setUrl('https://www.perplexity.ai/search/brand-new-1');
    const turn = addWorkingTurn(0, 'Brand new question');
    await sleep(10);
    stream(turn, '<p>fresh answer</p>');
    finish(turn, 1);
    expect(await waiting).toMatchObject({ status: 'completed', turnIndex: 0, response: 'fresh answer', url: 'https://www.perplexity.ai/search/brand-new-1' });
  });

  it('a bound turn that shows another question is not answered for', async () => {
    loadFixture('A-thread.html');
    const turn = addWorkingTurn(2, 'Somebody else\'s question');
    stream(turn, '<p>not yours</p>');
    finish(turn, 1);
    const err = await createPageDriver(window).wait(bound(2, 'Mine')).catch((e: unknown) => e);
    expect((err as RelayError).message).toMatch(/no longer shows your question/);
  });
});

/**
 * A question asked on the home page and stopped there, before the page gave the new thread its address: the page then
 * moves to the address and mounts the turn anew, so neither the address nor the element the stop was marked by is the
 * same (review 12a, #8). The same question at the same place, in the conversation the tab went to, is that turn.
 */
describe('a turn stopped before its new thread had an address', () => {
  const home = 'https://www.perplexity.ai/';
  const stoppedAtHome = async (question: string) => {
    loadFixture('A-thread.html', home);
    thread().innerHTML = '';
    const driver = createPageDriver(window);
    const turn = addWorkingTurn(0, question);
    stream(turn, '<p>half</p>');
    (turn.querySelector('button') as HTMLElement).addEventListener('click', (e) => (e.currentTarget as HTMLElement).remove());
    expect(await driver.stop()).toMatchObject({ stopped: true, confirmed: true });
    return driver;
  };
  /** The page at the new address, the turn drawn anew: the stopped answer, no stop control, no header. */
  const moved = (question: string) => {
    setUrl('https://www.perplexity.ai/search/brand-new-1');
    thread().innerHTML = '';
    const turn = addWorkingTurn(0, question);
    stream(turn, '<p>half</p>');
    turn.querySelector('button[aria-label="Stop"]')?.remove();
    window.dispatchEvent(new PopStateEvent('popstate'));
  };

  it('still reads stopped, in a poll and in a wait', async () => {
    const driver = await stoppedAtHome('Brand new question');
    moved('Brand new question');
    expect(await driver.poll()).toMatchObject({ status: 'completed', stopped: true });
    expect(await driver.wait({ turnIndex: 0, conversationUrl: home, questionKey: 'Brand new question', timeoutMs: 2000 })).toMatchObject({ status: 'stopped', response: 'half' });
  });

  it('another question at that place is not the stopped turn', async () => {
    const driver = await stoppedAtHome('Brand new question');
    moved('Another question');
    expect((await driver.poll()).stopped).toBeUndefined();
  });

  it('the same prompt asked again in a new thread is another turn: at work there, then done, never "stopped" (review 13d, 1)', async () => {
    const driver = await stoppedAtHome('Brand new question');
    setUrl('https://www.perplexity.ai/search/second-thread-2');
    thread().innerHTML = '';
    const again = addWorkingTurn(0, 'Brand new question');
    stream(again, '<p>the whole answer</p>');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect((await driver.poll()).status).toBe('working');
    finish(again, 1);
    const done = await driver.poll();
    expect(done.status).toBe('completed');
    expect(done.stopped).toBeUndefined();
  });

  it('an ask through us after the stop ends the mark by question', async () => {
    const driver = await stoppedAtHome('Brand new question');
    driver.asked({ afterTurn: 0, baselineUrl: home, turnIndex: -1, conversationUrl: home, questionKey: 'Brand new question', previousAnswerKey: '', submittedAt: 1, via: 'button' });
    moved('Brand new question');
    expect((await driver.poll()).stopped).toBeUndefined();
  });
});
