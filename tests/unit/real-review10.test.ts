// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PageWatcher } from '../../lib/page/answer/observer';
import { turnsOf } from '../../lib/page/dom/turns';
import { readSources } from '../../lib/page/kits/source-reader';
import { all } from '../../lib/page/dom/dom';
import { modeOf } from '../../lib/page/composer/mode';
import { chooseSelectorSet, live2026, SELECTOR_SETS } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';

/**
 * What review 10 (the sim against the captures) found only the captures show, held against them (read from
 * COMET_REAL_PERPLEXITY, never copied here): on a February thread of several turns every turn's Links panel carries
 * one and the same id, which the Links tab names, so the page's first panel answered for the last turn's (sim F1); in
 * the September mode menu Model council is a plain menuitem beside the radio rows, so it could not be chosen (sim F3).
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('real-review10: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; skipping.');

afterEach(() => {
  document.body.innerHTML = '';
});

describe.skipIf(!present)('the Links tab on a real February thread of three turns', () => {
  it("reads the last turn's own panel, though all three share one id", async () => {
    loadHtml(readFileSync(join(folder, 'search-thread-page-obsidian-AI-exporter-2026-02-27.html'), 'utf8'), 'https://www.perplexity.ai/search/a-captured-thread');
    const panels = [...document.querySelectorAll('[role="tabpanel"][id$="-content-sources"]')];
    expect(panels).toHaveLength(3);
    expect(new Set(panels.map((p) => p.id)).size).toBe(1);
    expect(turnsOf(document, live2026)).toHaveLength(3);
    // What the page's tabs do on the Links click: every turn's panel opens, each with its own turn's sources.
    for (const tab of document.querySelectorAll('[role="tab"][id$="-trigger-sources"]')) {
      tab.addEventListener('click', () => {
        panels.forEach((p, i) => {
          p.removeAttribute('hidden');
          p.setAttribute('data-state', 'active');
          p.innerHTML = `<a href="https://turn-${i}.example.org/only-source">Turn ${i} source</a>`;
        });
      });
    }
    const set = chooseSelectorSet(document, null, SELECTOR_SETS).set;
    const watcher = new PageWatcher(window, () => set);
    const got = await readSources({ win: window, doc: document, set, waitFor: watcher.waitFor }, { expand: false, openTab: true });
    expect(got.fromTab).toBe(true);
    const urls = got.sources.map((s) => s.url ?? '');
    expect(urls[0]).toBe('https://turn-2.example.org/only-source');
    expect(urls).not.toContain('https://turn-0.example.org/only-source');
  });
});

describe.skipIf(!present)('the mode menu of 2026-09-24', () => {
  it('offers Model council, a plain menuitem with a "Max" badge, beside the radio rows', () => {
    loadHtml(readFileSync(join(folder, 'mode-menu-open-Perplexity-Comet-MCP-jcalderonzumba-2026-09-24.html'), 'utf8'), 'https://www.perplexity.ai/');
    const set = chooseSelectorSet(document, null, SELECTOR_SETS).set;
    const menu = document.querySelector('[role="menu"]') as Element;
    expect(all(menu, set.modeMenuItem).map((item) => modeOf(item, set))).toEqual(['standard', 'deep-research', 'model-council', 'learn']);
  });
});

