// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromInlineCitations } from '../../lib/page/answer/sources';
import { all, outermost } from '../../lib/page/dom/dom';
import { renderText } from '../../lib/page/dom/text';
import { live2026 } from '../../lib/selectors';
import { blockHtml, chipLabel, trustedSource } from '../sim/answer';
import type { Block, Source, ThreadLayout } from '../sim/types';

/**
 * The simulated site's answer markup beside the real captures' structure (review 2026-12-05, sim #6 and #8): what
 * a capture shows is found in it with plain structural queries, never copied; the sim's own markup is held against
 * it, and the live selector set reads both. Without the captures folder (COMET_REAL_PERPLEXITY) only the sim's side runs.
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('sim-capture-markup: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; the comparisons with them are skipped.');

const capture = (name: string) => new DOMParser().parseFromString(readFileSync(join(folder, name), 'utf8'), 'text/html');
const FEB_DEEP_RESEARCH = 'deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html';
const SEP_SEVERAL_TURNS = 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';

const SOURCES: Source[] = [
  { title: 'First source, in full', name: 'alpha', url: 'https://alpha.example/1' },
  { title: 'Second source, in full', name: 'beta', url: 'https://beta.example/2' },
  { title: 'Third source, in full', name: 'gamma', url: 'https://gamma.example/3' },
];
const ANSWER: Block[] = [
  { type: 'p', inlines: ['Before the card.'] },
  { type: 'nested', title: 'Card', blocks: [{ type: 'p', inlines: ['Inside the card, one.', { cite: [0] }] }, { type: 'p', inlines: ['Inside, two.', { cite: [1, 2] }] }] },
  { type: 'p', inlines: ['After the card.', { cite: [0, 1, 2] }] },
];

/** The answer as a page of the layout mounts it: the outer `.prose` (client/thread.ts `mountFinal`) holding the blocks. */
function mount(layout: ThreadLayout): Element {
  const outer = layout === 'markdown-2026-02' ? '<div class="prose">' : '<div class="prose" data-renderer="lm">';
  const html = ANSWER.map((b) => blockHtml(b, Number.POSITIVE_INFINITY, { generation: 'B', layout, sources: SOURCES })).join('');
  document.body.innerHTML = `<main><div class="answer">${outer}${html}</div></div></main>`;
  return document.querySelector('.answer') as Element;
}

const read = (roots: Element[]) => renderText(roots, { skip: live2026.answerChrome, citation: live2026.citationInline, markdown: true });

afterEach(() => {
  document.body.innerHTML = '';
});

describe('markdown-2026-02: the nested card’s .prose (review 2026-12-05, sim #6)', () => {
  it.skipIf(!present)('the February capture nests .prose in .prose, and no .prose of it carries data-renderer', () => {
    const doc = capture(FEB_DEEP_RESEARCH);
    expect(doc.querySelectorAll('.prose .prose').length).toBeGreaterThan(0);
    expect(doc.querySelectorAll('.prose[data-renderer]').length).toBe(0);
  });

  it('the sim’s February card carries no data-renderer; the other layouts keep it', () => {
    mount('markdown-2026-02');
    expect(document.querySelectorAll('.prose .prose').length).toBe(1);
    expect(document.querySelectorAll('[data-renderer]').length).toBe(0);
    for (const layout of ['blocks-2026-08', 'sessions-2026-09'] as const) {
      mount(layout);
      expect(document.querySelector('.prose .prose')?.getAttribute('data-renderer'), layout).toBe('lm');
    }
  });

  it('the live set’s prose is the outer one there, so the whole answer reads, the card included', () => {
    const root = mount('markdown-2026-02');
    const roots = outermost(all(root, live2026.prose));
    expect(roots).toEqual([root.firstElementChild]);
    const text = read(roots);
    expect(text).toMatch(/^Before the card\./);
    expect(text).toContain('Inside the card, one. [alpha]');
    expect(text).toContain('After the card. [alpha +2]');
  });
});

describe('sessions-2026-09: the citation chip (review 2026-12-05, sim #8)', () => {
  /** A chip's structure, found without the selector sets: the icon, the name's span and the count's, and their order. */
  function chipShape(chip: Element) {
    const icon = chip.querySelector('[data-testid="trusted-citation-check"]');
    const spans = [...chip.querySelectorAll('span')].filter((s) => s.children.length === 0 && (s.textContent ?? '').trim() !== '');
    const count = spans.find((s) => /^\+\d+$/.test((s.textContent ?? '').trim()));
    const name = spans.find((s) => s !== count);
    // The name's span and the count's hang from one parent, the count after the name.
    const shared = name && count ? [...(name.parentElement?.children ?? [])].find((c) => c.contains(count)) : undefined;
    return {
      icon: icon ? { role: icon.getAttribute('role'), labelled: (icon.getAttribute('aria-label') ?? '') !== '', beforeName: name ? (icon.compareDocumentPosition(name) & 4) !== 0 : false } : null,
      name: (name?.textContent ?? '').trim(),
      count: count ? (count.textContent ?? '').trim() : null,
      siblings: shared ? (name?.compareDocumentPosition(shared) ?? 0) & 4 ? 'name, then count' : 'count first' : null,
      anchors: chip.querySelectorAll('a').length,
    };
  }

  it.skipIf(!present)('the Sep 2026 capture: a trusted icon (role img, labelled, test id) before the name, "+N" in a sibling span, no <a>', () => {
    const chips = [...capture(SEP_SEVERAL_TURNS).querySelectorAll('[data-pplx-citation-url]')];
    const shapes = chips.map(chipShape);
    const grouped = shapes.filter((s) => s.count !== null);
    expect(grouped.length).toBeGreaterThan(0);
    expect(grouped.every((s) => s.siblings === 'name, then count' && s.anchors === 0)).toBe(true);
    const trusted = shapes.filter((s) => s.icon);
    expect(trusted.length).toBeGreaterThan(0);
    expect(trusted.every((s) => s.icon?.role === 'img' && s.icon.labelled && s.icon.beforeName)).toBe(true);
  });

  it('the sim’s chip has that shape: the icon on the sources it trusts, name and +N in sibling spans', () => {
    const root = mount('sessions-2026-09');
    const chips = [...root.querySelectorAll('[data-pplx-citation-url]')];
    const shapes = chips.map(chipShape);
    expect(shapes.map((s) => [s.name, s.count])).toEqual([
      ['alpha', null],
      ['beta', '+1'],
      ['alpha', '+2'],
    ]);
    expect(shapes.map((s) => s.icon !== null)).toEqual([trustedSource(0), trustedSource(1), trustedSource(0)]);
    expect(shapes.filter((s) => s.icon).every((s) => s.icon?.role === 'img' && s.icon.labelled && s.icon.beforeName)).toBe(true);
    expect(shapes.filter((s) => s.count).every((s) => s.siblings === 'name, then count')).toBe(true);
    expect(shapes.every((s) => s.anchors === 0)).toBe(true);
  });

  it.skipIf(!present)('the Aug 2026 capture titles its chip in an aria-label on the span around the name; the sim’s Aug chip does too', () => {
    const chip = capture('answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html').querySelector('[data-pplx-citation-url]') as Element;
    const titled = [...chip.querySelectorAll('[aria-label]')].filter((e) => e.getAttribute('role') !== 'img');
    expect(titled.map((e) => e.hasAttribute('data-state') && (e.getAttribute('aria-label') ?? '').length > (chip.textContent ?? '').trim().length)).toEqual([true]);
    const sim = mount('blocks-2026-08').querySelector('[data-pplx-citation-url]') as Element;
    expect([...sim.querySelectorAll('[aria-label]')].map((e) => [e.hasAttribute('data-state'), e.getAttribute('aria-label')])).toEqual([[true, SOURCES[0]?.title]]);
  });

  it('the reader reads it as before: the chip as [name +N], the source titled by its name (by its aria-label on the Aug chip)', () => {
    const sep = mount('sessions-2026-09');
    const sepText = read(outermost(all(sep, live2026.prose)));
    const sepSources = fromInlineCitations(sep, live2026, 'https://www.perplexity.ai/search/x');
    const aug = mount('blocks-2026-08');
    const augText = read(outermost(all(aug, live2026.prose)));
    const augSources = fromInlineCitations(aug, live2026, 'https://www.perplexity.ai/search/x');
    expect(sepText).toBe(augText);
    expect(sepText).toContain(`Inside, two. [${chipLabel([1, 2], SOURCES)}]`);
    expect(sepText).toContain('After the card. [alpha +2]');
    expect(sepSources.map((s) => s.url)).toEqual(augSources.map((s) => s.url));
    expect(sepSources.map((s) => s.title)).toEqual(['alpha', 'beta', 'alpha']);
    expect(augSources.map((s) => s.title)).toEqual(['First source, in full', 'Second source, in full', 'First source, in full']);
  });

  it.skipIf(!present)('the reader reads the capture’s chips the same way ([name +N], titled by the name)', () => {
    const doc = capture(SEP_SEVERAL_TURNS);
    const chip = [...doc.querySelectorAll('[data-pplx-citation-url]')].find((c) => c.querySelector('[data-testid="trusted-citation-check"]') && /\+\d/.test(c.textContent ?? ''));
    document.body.innerHTML = `<div class="prose" data-renderer="lm"><p>Text.${chip?.outerHTML ?? ''}</p></div>`;
    expect(read([document.body.firstElementChild as Element])).toMatch(/^Text\. \[\S+ \+\d+\]$/);
    const [source] = fromInlineCitations(document.body, live2026, 'https://www.perplexity.ai/search/x');
    expect(source?.title).toMatch(/^\S+$/);
  });
});
