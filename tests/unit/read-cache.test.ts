// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { cutContent, wholePageContent } from '../../lib/page/answer/content';
import { createPageDriver, type PageDriver } from '../../lib/page/driver';
import { ReadCache } from '../../lib/page/answer/read-cache';
import { poll } from '../../lib/page/answer/reader';
import { rng } from '../support/fuzz';
import { fixtureHtml, flush, loadHtml } from '../fixtures/reader/load';
import { pageContent } from '../support/page-content';

/**
 * comet_poll and comet_get_page_content serve their last whole read while the page holds still
 * (lib/page/answer/read-cache.ts). Whatever the page does in between, a served read must be byte for
 * byte what a fresh read returns at that moment.
 */

function load(name: string): PageDriver {
  const html = fixtureHtml(name, 'pages');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  // No page script runs here to unfold folded steps: every poll would wait a second for them.
  for (const toggle of Array.from(document.querySelectorAll('[aria-expanded="false"]'))) toggle.setAttribute('aria-expanded', 'true');
  return createPageDriver(window);
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** Every element of the thread, for mutations to land anywhere (answer, steps, sidebar, buttons). */
const elements = () => Array.from(document.body.querySelectorAll('*'));

/** One thing a page does between reads; some change the DOM, some only what the DOM means. */
const CHANGES: readonly [string, (random: Random) => void][] = [
  ['append text to an answer paragraph', (random) => pick(random, Array.from(document.querySelectorAll('.prose p, .prose li')) as Element[])?.append(` more ${Math.floor(random() * 1000)}`)],
  ['rewrite a text node', (random) => {
    const texts: Text[] = [];
    const walk = document.createTreeWalker(document.body, 4);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) texts.push(n as Text);
    const text = pick(random, texts);
    if (text) text.data = `changed ${Math.floor(random() * 1000)}`;
  }],
  ['hide an element', (random) => pick(random, elements())?.setAttribute('hidden', '')],
  ['unhide everything', () => {
    for (const el of Array.from(document.querySelectorAll('[hidden]'))) el.removeAttribute('hidden');
  }],
  ['style an element invisible', (random) => {
    const el = pick(random, elements()) as HTMLElement | undefined;
    if (el) el.style.display = 'none';
  }],
  // Inside answers only: a turn stripped of its question and answer reads as a virtualized
  // placeholder, which a read waits 3 s to see rendered (lib/page/answer/reader.ts readTurn).
  ['remove part of an answer', (random) => pick(random, Array.from(document.querySelectorAll('.prose *')))?.remove()],
  ['add a paragraph to the last answer', (random) => {
    const prose = Array.from(document.querySelectorAll('.prose')).at(-1);
    const p = document.createElement('p');
    p.textContent = `new paragraph ${Math.floor(random() * 1000)}`;
    prose?.append(p);
  }],
  ['copy the last turn (a new turn)', () => {
    const turns = Array.from(document.querySelectorAll('[data-workflow-entry], [data-turn], .turn'));
    const last = turns.at(-1);
    if (last && turns.length < 6) last.after(last.cloneNode(true));
  }],
  ['set a data attribute', (random) => pick(random, elements())?.setAttribute('data-state', random() < 0.5 ? 'open' : 'closed')],
  ['change the class of an element', (random) => pick(random, elements())?.setAttribute('class', `c${Math.floor(random() * 5)}`)],
  ['change the title', (random) => {
    document.title = `Title ${Math.floor(random() * 1000)}`;
  }],
  ['move to another URL without touching the DOM', (random) => history.pushState({}, '', `/search/other-${Math.floor(random() * 1000)}`)],
  ['point at something', (random) => pick(random, elements())?.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }))],
  ['nothing', () => {}],
];

/** Byte for byte; on a difference, says where (the texts are long). */
function same(got: unknown, fresh: unknown, step: number): void {
  const a = JSON.stringify(got);
  const b = JSON.stringify(fresh);
  if (a === b) return;
  let i = 0;
  while (a[i] === b[i]) i++;
  expect(`step ${step}: …${a.slice(Math.max(0, i - 80), i + 80)}…`).toBe(`step ${step}: …${b.slice(Math.max(0, i - 80), i + 80)}…`);
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('served reads are byte-identical to fresh reads', () => {
  for (const page of ['B-thread-short.html', 'B-thread-streaming.html', 'A-thread-error.html']) {
    it(`${page}: 150 random steps of page changes and reads`, { timeout: 60_000 }, async () => {
      const random = rng(page.length * 7919);
      const driver = load(page);
      let served = 0;
      let previousPoll: unknown;
      let previousContent: unknown;
      for (let step = 0; step < 150; step++) {
        const changes = Math.floor(random() * 3) === 0 ? 0 : 1 + Math.floor(random() * 2);
        for (let c = 0; c < changes; c++) pick(random, CHANGES)[1](random);
        // Half the time the page's own microtasks (and our observer) run before the read comes.
        if (random() < 0.5) await flush(1);
        const maxLength = random() < 0.5 ? undefined : 1 + Math.floor(random() * 400);
        if (random() < 0.5) {
          const got = await driver.poll({ maxLength });
          const fresh = await poll(driver.context(), { maxLength });
          same(got, fresh, step);
          if (maxLength === undefined && got === previousPoll) served += 1;
          if (maxLength === undefined) previousPoll = got;
        } else {
          const length = maxLength ?? 10_000;
          const got = await pageContent(driver, length);
          const fresh = cutContent(wholePageContent(driver.context()), length);
          same(got, fresh, step);
          if (JSON.stringify(got) === JSON.stringify(previousContent)) served += 1;
          previousContent = got;
        }
      }
      // The cache did serve reads (the page held still often enough), not only read afresh.
      expect(served).toBeGreaterThan(10);
    });
  }
});

describe('the read cache', () => {
  it('serves a kept read until the first change, and keeps nothing it saw change during the read', async () => {
    loadHtml('<main><p id="a">one</p></main>');
    const cache = new ReadCache(window, 60_000);
    let reads = 0;
    const read = () => cache.read('k', 'basis', () => `${++reads}:${document.getElementById('a')?.textContent}`);
    expect(await read()).toBe('1:one');
    expect(await read()).toBe('1:one');
    (document.getElementById('a') as HTMLElement).textContent = 'two'; // same task: still queued for the observer
    expect(await read()).toBe('2:two');
    expect(await cache.read('k', 'another set', () => 'read again')).toBe('read again');
    const changing = await cache.read('j', 'basis', () => {
      document.body.append('x');
      return 'during';
    });
    expect(changing).toBe('during');
    expect(await cache.read('j', 'basis', () => 'fresh')).toBe('fresh');
    cache.clear();
  });

  it('leaves nothing in the page once nobody reads: the observer and its listeners go after the idle time', async () => {
    loadHtml('<main><p>still</p></main>');
    const cache = new ReadCache(window, 30);
    await cache.read('k', null, () => 'v');
    expect(cache.watching).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(cache.watching).toBe(false);
    expect(await cache.read('k', null, () => 'read afresh')).toBe('read afresh');
    cache.clear();
    expect(cache.watching).toBe(false);
  });

  it('a change stops the observer at once: it runs at most once per kept read', async () => {
    loadHtml('<main><p>busy</p></main>');
    const cache = new ReadCache(window, 60_000);
    await cache.read('k', null, () => 'v');
    document.body.append('a');
    await flush(1);
    expect(cache.watching).toBe(false);
    cache.clear();
  });
});
