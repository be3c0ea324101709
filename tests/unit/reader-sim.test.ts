// @vitest-environment happy-dom
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { modeControl } from '../../lib/page/kits/mode-kit';
import { sourcesThrough } from '../../lib/page/kits/source-reader';
import { isPlaceholder } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { generationA, live2026 } from '../../lib/selectors';
import { fixtureHtml, loadHtml } from '../fixtures/reader/load';
import { conversationsThrough } from '../../lib/page/kits/panel-kit';

/**
 * The simulated site's saved pages (tests/fixtures/pages, written by tests/sim). Static: no page
 * script runs, so these check reading, not interaction. Each generation is saved with its default layout
 * (tests/sim/save-pages.ts): A the pre-capture `turn-2026-04`, read by generation A's set; B the captured
 * `blocks-2026-08` (since 2026-12-05), which is the live site's layout and read by the live set.
 */
const dir = join(import.meta.dirname, '../fixtures/pages');
const have = existsSync(join(dir, 'B-thread-short.html'));

function load(name: string) {
  const html = fixtureHtml(name, 'pages');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  return createPageDriver(window);
}

describe.runIf(have).each(['A', 'B'] as const)('simulated site, generation %s', (g) => {
  const set = g === 'A' ? generationA : live2026;

  it('recognises its generation on home and thread pages', () => {
    for (const page of ['home', 'thread-short', 'thread-streaming']) {
      const { name, probe } = load(`${g}-${page}.html`).selectorSet();
      // Generation B's pages are the captured layout blocks-2026-08: its home page ties and the tie goes to the
      // live site's set (lib/selectors/index.ts); its thread pages are the live set's own.
      expect(name, page).toBe(set.name);
      expect(probe.confident).toBe(true);
    }
  });

  it('home is idle', async () => {
    expect(await load(`${g}-home.html`).poll()).toMatchObject({ status: 'idle', turnCount: 0, hasStopButton: false, hasLoadingSpinner: false });
  });

  it('streaming is working, with steps and the current step', async () => {
    const p = await load(`${g}-thread-streaming.html`).poll();
    expect(p).toMatchObject({ status: 'working', hasStopButton: true, hasLoadingSpinner: true });
    expect(p.steps.length).toBeGreaterThan(0);
    expect(p.currentStep).toBe(p.steps.at(-1));
    expect(p.steps.some((s) => /^(Finished|Working)/.test(s))).toBe(false);
  });

  it('a task waiting on the person before any answer: A reads the steps its set marks; B (the live set) takes no fold outside an answer block for their header', async () => {
    // B's header stands after the question, outside any answer block: no capture shows one there, and a turn's other
    // folds are not steps (review 2026-12-05, today #2). Its steps come from the thread JSON (thread-readers.test.ts).
    for (const page of ['task-question', 'task-confirm']) {
      const p = await load(`${g}-${page}.html`).poll();
      expect(p.steps.length, page).toBe(g === 'A' ? 4 : 0);
      expect(p.currentStep, page).toBe(p.steps.at(-1) ?? '');
    }
  });

  it('keyword answer and the Expand pane rect button leave a finished turn completed', async () => {
    const d = load(`${g}-thread-keywords.html`);
    expect(document.querySelector('button[aria-label="Expand pane"] rect')).not.toBeNull();
    const p = await d.poll();
    expect(p.response).toMatch(/Reading/);
    expect(p.response).toMatch(/Searching/);
    expect(p).toMatchObject({ status: 'completed', hasStopButton: false, hasLoadingSpinner: false });
  });

  it('sidebar skeleton loaders are not the turn\'s spinners', async () => {
    const d = load(`${g}-thread-short.html`);
    const p = await d.poll();
    expect(p.hasLoadingSpinner).toBe(false);
    expect(p.status).toBe('completed');
  });

  it('nested .prose is read once, structure kept', async () => {
    const p = await load(`${g}-thread-deep-research.html`).poll();
    expect(p.proseCount).toBe(1);
    expect(p.response).toMatch(/^## Overview\n\n/);
    expect(p.response).toMatch(/\n1\. /);
  });

  it('error turn: the message, without its Retry button, and not "completed"', async () => {
    const p = await load(`${g}-thread-error.html`).poll();
    expect(p.error).toBe('Something went wrong. Try again.');
    expect(p.status).toBe('idle');
  });

  it('stopped turn is flagged as stopped', async () => {
    const p = await load(`${g}-thread-stopped.html`).poll();
    expect(p.stopped).toBe(true);
    expect(p.hasStopButton).toBe(false);
  });

  it('virtualized turns are recognised as placeholders (A) or left out (B); the latest reads', async () => {
    const d = load(`${g}-thread-virtualized.html`);
    const turns = turnsOf(document, set);
    const p = await d.poll();
    if (g === 'A') {
      // turn-2026-04: the turns out of view stay as empty placeholders.
      expect(turns.some((t) => isPlaceholder(t, set))).toBe(true);
      expect(p.turnCount).toBe(turns.length);
    } else {
      // blocks-2026-08: only the latest five answers are mounted; turns 0 and 1 left the DOM, and the turns
      // left keep their true index, so the count and the latest turn are told by index.
      expect(turns.map((t) => t.index)).toEqual([2, 3, 4, 5, 6]);
      expect(turns.some((t) => isPlaceholder(t, set))).toBe(false);
      expect(p).toMatchObject({ status: 'completed', turnCount: 7, lastTurnIndex: 6, questionText: 'Follow-up number 3' });
      expect(p.response).toContain('Follow-up number 3');
      // The answers shown, as the reference counts them; turnCount is what grows past five (docs/tools.md, comet_poll).
      expect(p.proseCount).toBe(5);
    }
    expect(p.response.length).toBeGreaterThan(0);
  });

  it('Links/Sources tab: full titles, external only, title-only entry kept', async () => {
    const r = await sourcesThrough(load(`${g}-thread-links-tab.html`), { expand: false });
    expect(r.fromTab).toBe(true);
    expect(r.sources.find((s) => s.url?.includes('reuters.com'))?.title).toBe('Markets wrap: stocks edge higher as investors weigh data');
    expect(r.sources.filter((s) => !s.url).map((s) => s.title)).toEqual(['Team notes, October planning (uploaded file)']);
    expect(r.sources.every((s) => !s.url || !/perplexity\.ai/.test(s.url))).toBe(true);
    expect(new Set(r.sources.map((s) => s.url)).size).toBe(r.sources.length);
  });

  it('library: conversation titles without doubles, snippets or times; absolute URLs', async () => {
    const { conversations } = await conversationsThrough(load(`${g}-library.html`));
    expect(conversations.length).toBeGreaterThan(3);
    for (const c of conversations) {
      expect(c.url).toMatch(/^https:\/\/www\.perplexity\.ai\/(search|copilot|computer\/tasks)\//);
      expect(c.title).not.toMatch(/just now|ago$/);
      expect(c.title.length).toBeLessThan(80);
    }
    expect(conversations.map((c) => c.title)).toContain('This will fail');
  });
});

describe.runIf(have)('simulated site, details', () => {
  it('a 50k-character answer comes back whole', async () => {
    const p = await load('B-thread-long.html').poll();
    expect(p.response.length).toBeGreaterThan(50_000);
    expect(p.truncated).toBe(false);
    expect(p.response.trimEnd().endsWith('END OF LONG ANSWER.')).toBe(true);
  });

  it('generation B citation URLs come from data attributes', async () => {
    const d = load('B-thread-grouped-citations.html');
    const r = await sourcesThrough(d, { expand: false, openTab: false });
    expect(r.sources.length).toBeGreaterThanOrEqual(3);
    expect(r.sources.every((s) => s.url?.startsWith('https://'))).toBe(true);
  });

  it('generation A badges: full titles from aria-label', async () => {
    const r = await sourcesThrough(load('A-thread-short.html'), { expand: false, openTab: false });
    expect(r.sources.length).toBeGreaterThan(0);
    expect(r.sources.every((s) => s.title.length > 0 && s.url)).toBe(true);
  });

  it('modes read from open menus, without typing or clicking', async () => {
    expect(await modeControl(load('A-home-mode-menu-active.html')).getMode()).toEqual({ mode: 'deep-research', source: 'typeahead' });
    expect(await modeControl(load('A-home-mode-menu.html')).getMode()).toEqual({ mode: 'standard', source: 'typeahead' });
    // The trigger names its mode and is pressed: that is read first, the open menu left as it is.
    expect(await modeControl(load('B-home-mode-menu.html')).getMode()).toEqual({ mode: 'standard', source: 'chip' });
    expect(document.querySelector('[role="menu"]')).not.toBeNull();
    expect(await modeControl(load('B-home.html')).getMode()).toEqual({ mode: 'standard', source: 'chip' });
  });
});
