// @vitest-environment happy-dom
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseSelectorSet, chromeMajorFrom, generationA, generationB, live2026, SELECTOR_SETS } from '../../lib/selectors';
import { SelectorSetSchema } from '../../lib/selectors/schema';
import { loadFixture } from '../fixtures/reader/load';

describe('selector sets', () => {
  it('every set is valid data (zod schema)', () => {
    for (const set of SELECTOR_SETS) expect(() => SelectorSetSchema.parse(set)).not.toThrow();
    expect(new Set(SELECTOR_SETS.map((s) => s.name)).size).toBe(SELECTOR_SETS.length);
  });

  it('every candidate selector parses', () => {
    for (const set of SELECTOR_SETS) {
      for (const value of Object.values(set)) {
        // Lists of selectors only (turnNumber lists attributes and patterns; stopIcons and watchAttributes are names).
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string') || value.some((v: string) => v.startsWith('#pplx-icon'))) continue;
        for (const selector of value as string[]) expect(() => document.querySelector(selector), selector).not.toThrow();
      }
    }
  });

  it('icon map: create is create, computer is computer', () => {
    for (const set of SELECTOR_SETS) {
      expect(set.modeIcons['#pplx-icon-custom-computer']).toBe('create');
      expect(set.modeIcons['#pplx-icon-click']).toBe('computer');
      expect(set.modeIcons['#pplx-icon-telescope']).toBe('deep-research');
    }
  });

  it('chooses generation A on a gen A thread, whatever Chrome says', () => {
    loadFixture('A-thread.html');
    for (const major of [null, 120, 156]) {
      const { set, probe } = chooseSelectorSet(document, major);
      expect(set.name).toBe(generationA.name);
      expect(probe.confident).toBe(true);
    }
  });

  it('chooses generation B when the mode chip is there, whatever Chrome says', () => {
    loadFixture('B-thread-streaming.html');
    for (const major of [null, 120, 156]) {
      const { set, probe } = chooseSelectorSet(document, major);
      expect(set.name).toBe(generationB.name);
      expect(probe.candidates.find((c) => c.name === generationA.name)?.conflicting.length).toBe(1);
    }
  });

  it('on a page with no distinctive element, the Chrome major orders the candidates', () => {
    loadFixture('library.html', 'https://www.perplexity.ai/library');
    // A tie goes to the first set the Chrome major allows: the live site's set on today's Chrome.
    expect(chooseSelectorSet(document, 156).set.name).toBe(live2026.name);
    expect(chooseSelectorSet(document, 130).set.name).toBe(generationA.name);
    const { probe } = chooseSelectorSet(document, 156);
    expect(probe.confident).toBe(false);
    expect(probe.url).toBe('https://www.perplexity.ai/library');
  });

  it('reads the Chrome major from a user agent', () => {
    expect(chromeMajorFrom('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7000.1 Safari/537.36')).toBe(156);
    expect(chromeMajorFrom('curl/8')).toBeNull();
  });

  it('no site selector is spelled out in reader/actions code: they read from the set', () => {
    const dir = join(import.meta.dirname, '../../lib/page');
    // repair-derive.ts composes selectors from the hooks it finds on the page (`[role="…"]` of whatever role is
    // there): it knows no site selector, it writes new ones.
    const mine = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !['agent.ts', 'handlers.ts', 'visible-text.ts', 'repair-derive.ts'].includes(basename(f)));
    for (const file of mine) {
      const code = readFileSync(join(dir, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|\s)\/\/.*$/gm, '');
      const literals = (code.match(/(['"`])(?:\\.|(?!\1)[^\\\n])*\1/g) ?? []).join('\n');
      expect(literals, file).not.toMatch(/data-testid|aria-label=|\[role=|#ask-input|pplx-icon|data-workflow|\.prose\b|animate-(spin|pulse)/);
    }
  });
});
