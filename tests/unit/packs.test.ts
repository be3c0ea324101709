// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { parsePack, parsePackText } from '../../lib/packs/parse';
import { applyPacks, selectorSetApplier } from '../../lib/page/packs';
import { PACKS_APPLY_EVENT } from '../../lib/protocol/ports';
import { BUILT_IN_SOURCES, chooseSelectorSet, generationB, SELECTOR_SETS, type SelectorSet } from '../../lib/selectors';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { expandLabels, expandPattern, expandSelector, modeWords } from '../../lib/selectors/labels';
import { SelectorSetSchema } from '../../lib/selectors/schema';
import { MORE_LABELS } from '../../lib/selectors/words';
import { THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../../lib/selectors/reader-shelf';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { PackStore } from '../../lib/worker/packs';
import { loadHtml } from '../fixtures/reader/load';

const sourceB = BUILT_IN_SOURCES.find((s) => s.name === 'gen-b-2026-10') as SelectorSet;

/** A copy of the built-in generation B set for a page whose composer and chip were renamed. */
function renamedSet(name = 'gen-b-2026-12'): SelectorSet {
  return {
    ...sourceB,
    name,
    composer: ['#query-composer'],
    modeChip: ['[data-testid="query-mode-switcher"] button[data-state]'],
    signature: { present: ['#query-composer', '[data-testid="query-mode-switcher"]'], absent: [] },
  };
}

const pack = (set: unknown) => ({ kind: 'selector-set', set });

describe('labels by language', () => {
  const labels = { en: { words: { submit: ['Submit'], q: ['say "hi"'] }, modes: {} }, fr: { words: { submit: ['Envoyer'] }, modes: { Recherche: 'standard' as const } } };

  it('a placeholder in a selector becomes one selector list with every language’s word, CSS-escaped', () => {
    expect(expandSelector({ labels }, 'button[aria-label="{submit}"]')).toBe('button[aria-label="Submit"], button[aria-label="Envoyer"]');
    expect(expandSelector({ labels }, '[title="{q}"]')).toBe('[title="say \\"hi\\""]');
    expect(expandSelector({ labels }, '#plain')).toBe('#plain');
    expect(expandSelector({ labels }, '[x="{nothing}"]')).toBeNull();
  });

  it('a placeholder in a pattern becomes an alternation, regex-escaped; quantifiers are not placeholders', () => {
    expect(expandPattern({ labels }, '^\\s*(?:{submit})\\d{2}')).toBe('^\\s*(?:(?:Submit|Envoyer))\\d{2}');
    expect(new RegExp(expandPattern({ labels }, '{q}')).test('say "hi"')).toBe(true);
    expect(new RegExp(expandPattern({ labels }, '{nothing}')).test('')).toBe(false);
  });

  it('the built-in sets, expanded, hold no placeholder and know modes in every language', () => {
    expect(JSON.stringify(generationB)).not.toMatch(/\{[A-Za-z]+\}/);
    expect(generationB.stopButton.join(' ')).toContain('Arrêter');
    expect(modeWords(generationB).get('Recherche approfondie')).toBe('deep-research');
    expect(modeWords(generationB).get('بحث معمّق')).toBe('deep-research');
    expect(modeWords(generationB).get('constructor')).toBeUndefined();
    expect(expandLabels(generationB)).toBe(generationB);
  });

  it('the schema refuses a placeholder no language defines, and a pattern that does not compile', () => {
    const missing = SelectorSetSchema.safeParse({ ...sourceB, submit: ['button[aria-label="{sbumit}"]'] });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]).toMatchObject({ path: ['submit', 0], message: expect.stringContaining('{sbumit}') });
    const broken = SelectorSetSchema.safeParse({ ...sourceB, stepsFinishedPattern: '^(Finished' });
    expect(broken.error?.issues[0]).toMatchObject({ path: ['stepsFinishedPattern'], message: expect.stringMatching(/not a valid regular expression/) });
  });
});

describe('data packs', () => {
  it('a built-in set, as `selectors show` prints it, is a valid pack', () => {
    const checked = parsePack(pack(sourceB));
    expect(checked).toMatchObject({ ok: true, kind: 'selector-set', name: 'gen-b-2026-10' });
  });

  it('a refusal names the field, what it holds, and what it should hold', () => {
    const checked = parsePack(pack({ ...sourceB, composer: '#ask-input' }));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems[0]).toBe(
      'set.composer: Invalid input: expected array, received string; it is "#ask-input" (expected a list of 1 to 64 CSS selectors, tried in order, e.g. ["#ask-input"])',
    );
  });

  it('a misspelt field is named with the nearest real one', () => {
    const { composer, ...rest } = sourceB;
    const checked = parsePack(pack({ ...rest, composr: composer }));
    if (checked.ok) throw new Error('accepted');
    expect(checked.problems.join('\n')).toContain('set.composr: not a field of a selector set (did you mean "composer"?)');
    expect(checked.problems.join('\n')).toContain('set.composer: Invalid input: expected array, received undefined; it is missing');
  });

  it('a bad name says what a name looks like', () => {
    const checked = parsePack(pack({ ...sourceB, name: 'My Set' }));
    if (checked.ok) throw new Error('accepted');
    expect(checked.problems[0]).toMatch(/^set\.name: a name like "gen-b-2026-12"/);
  });

  it('an unknown kind, a non-object and broken JSON are refused in words', () => {
    expect(parsePack({ kind: 'thread-reader' })).toEqual({
      ok: false,
      problems: [
        'kind: kind is "thread-reader"; a data pack is a JSON object whose "kind" is one of "selector-set", "thread-page-reader", "thread-json-reader", "account-json-reader", "library-json-reader", "ask-stream-reader"',
      ],
    });
    expect(parsePack([1])).toMatchObject({ ok: false, problems: [expect.stringContaining('the file is not a JSON object')] });
    expect(parsePackText('{"kind": ')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^not valid JSON: /)] });
  });
});

describe('the page’s catalog of selector sets', () => {
  it('an added set with a new name comes first (wins ties); one with a built-in’s name replaces it', () => {
    const catalog = new SelectorCatalog();
    const listener = vi.fn();
    catalog.onChange(listener);
    catalog.replaceAdded([{ set: renamedSet(), source: '/home/me/selectors/a.json' }]);
    expect(catalog.sets().map((s) => s.name)).toEqual(['gen-b-2026-12', 'gen-b-2026-10-live', 'gen-b-2026-10', 'gen-a-2026-04']);
    expect(catalog.version).toBe(1);
    expect(listener).toHaveBeenCalledTimes(1);
    catalog.replaceAdded([{ set: { ...sourceB, composer: ['#fixed'] }, source: '/home/me/selectors/b.json' }]);
    expect(catalog.entries().map((e) => [e.set.name, e.source])).toEqual([
      ['gen-b-2026-10', '/home/me/selectors/b.json'],
      ['gen-b-2026-10-live', 'built-in'],
      ['gen-a-2026-04', 'built-in'],
    ]);
    // What arrives is expanded like the built-in sets.
    expect(catalog.sets()[0]?.stopButton.join(' ')).toContain('Arrêter');
  });

  it('probing picks the added set on the page it was made for', () => {
    loadHtml('<div data-testid="query-mode-switcher"><button data-state="closed">Search</button></div><div id="query-composer" contenteditable="true"></div>', 'https://www.perplexity.ai/');
    const catalog = new SelectorCatalog();
    expect(chooseSelectorSet(document, 156, catalog.sets()).probe.confident).toBe(false);
    catalog.replaceAdded([{ set: renamedSet(), source: '/x.json' }]);
    const { set, probe } = chooseSelectorSet(document, 156, catalog.sets());
    expect(set.name).toBe('gen-b-2026-12');
    expect(probe.confident).toBe(true);
  });

  it('the page applies a packs.apply event to its catalog, an empty list included', () => {
    const catalog = new SelectorCatalog();
    const appliers = { 'selector-set': selectorSetApplier(catalog) };
    const event = (packs: unknown[]) => ({ kind: 'event' as const, event: PACKS_APPLY_EVENT, data: { packs } });
    expect(applyPacks(appliers, { kind: 'event', event: 'other', data: {} })).toBe(false);
    expect(applyPacks(appliers, event([{ kind: 'selector-set', name: 'gen-b-2026-12', source: '/x.json', item: renamedSet() }]))).toBe(true);
    expect(catalog.sets()).toHaveLength(SELECTOR_SETS.length + 1);
    applyPacks(appliers, event([]));
    expect(catalog.sets()).toHaveLength(SELECTOR_SETS.length);
  });

  it("the page's built-in sets speak English until the worker's event hands them the other languages, then they are the built-in sets", () => {
    const catalog = new SelectorCatalog();
    const appliers = { 'selector-set': selectorSetApplier(catalog) };
    expect(catalog.sets().map((s) => s.name)).toEqual(SELECTOR_SETS.map((s) => s.name));
    expect(catalog.sets()[0]?.stopButton.join(' ')).not.toContain('Arrêter');
    expect(modeWords(catalog.sets()[0] as SelectorSet).get('بحث معمّق')).toBeUndefined();
    // What every page gets as it connects, with no pack installed.
    const connect = new PackStore({ broadcast: () => {}, onChange: () => {} }).message();
    if (connect.kind !== 'event') throw new Error(`the pack store sent a ${connect.kind}, not an event`);
    expect(applyPacks(appliers, connect)).toBe(true);
    // A page that chose a set before probes again at its next call.
    expect(catalog.version).toBeGreaterThan(0);
    expect(catalog.sets()).toEqual(SELECTOR_SETS);
    expect(modeWords(catalog.sets()[0] as SelectorSet).get('بحث معمّق')).toBe('deep-research');
    // An added set replaces its built-in namesake with the words of its own file, the built-in ones keep theirs.
    applyPacks(appliers, { ...connect, data: { packs: [{ kind: 'selector-set', name: 'gen-b-2026-10', source: '/x.json', item: { ...renamedSet('gen-b-2026-10'), labels: { en: sourceB.labels.en } } }], labels: MORE_LABELS } } as typeof connect);
    expect(catalog.entries().map((e) => [e.set.name, e.set.stopButton.join(' ').includes('Arrêter')])).toEqual([
      ['gen-b-2026-10', false],
      ['gen-b-2026-10-live', true],
      ['gen-a-2026-04', true],
    ]);
  });
});

describe('the worker’s pack store (the trust boundary)', () => {
  function store() {
    const sent: unknown[] = [];
    const changes: boolean[] = [];
    const saved: unknown[] = [];
    const packs = new PackStore({
      broadcast: (message) => sent.push(message),
      onChange: (itemsChanged) => changes.push(itemsChanged),
      store: { load: async () => saved.at(-1), save: async (value) => void saved.push(value) },
    });
    return { packs, sent, changes, saved };
  }

  it('validates every offered pack again: bad and duplicate ones are set aside with a reason, the good ones go to every page', () => {
    const { packs, sent, changes } = store();
    packs.receive({
      packs: [
        { source: '/s/good.json', pack: pack(renamedSet()) },
        { source: '/s/bad.json', pack: pack({ ...sourceB, turn: 'oops' }) },
        { source: '/s/twin.json', pack: pack(renamedSet()) },
      ],
      skipped: [{ source: '/s/broken.json', reason: 'not valid JSON' }],
    });
    expect(packs.summary()).toEqual({
      added: [{ kind: 'selector-set', name: 'gen-b-2026-12', source: '/s/good.json' }],
      readers: [
        { kind: 'thread-page-reader', noun: 'thread page reader', name: 'thread-page-2026-12', source: 'built-in' },
        { kind: 'thread-json-reader', noun: 'thread JSON reader', name: 'thread-json-2026-12', source: 'built-in' },
        { kind: 'account-json-reader', noun: 'account JSON reader', name: 'account-json-2026-12', source: 'built-in' },
        { kind: 'library-json-reader', noun: 'library JSON reader', name: 'library-json-2026-12', source: 'built-in' },
        { kind: 'ask-stream-reader', noun: 'ask stream reader', name: 'ask-stream-2026-08', source: 'built-in' },
      ],
      problems: [
        { source: '/s/broken.json', reason: 'not valid JSON' },
        { source: '/s/bad.json', reason: expect.stringMatching(/^set\.turn: /) },
        { source: '/s/twin.json', reason: 'another file (/s/good.json) already adds the selector-set "gen-b-2026-12"' },
      ],
    });
    expect(sent).toEqual([
      {
        kind: 'event',
        event: PACKS_APPLY_EVENT,
        // The built-in thread readers too, which the threads kit does not carry.
        data: { packs: [expect.objectContaining({ name: 'gen-b-2026-12', source: '/s/good.json' })], labels: MORE_LABELS, readers: { [THREAD_JSON_READER_KIND]: threadJson2026, [THREAD_PAGE_READER_KIND]: threadPage2026 } },
      },
    ]);
    expect(changes).toEqual([true]);
    // The same offer again changes nothing the pages see.
    packs.receive({ packs: [{ source: '/s/good.json', pack: pack(renamedSet()) }], skipped: [] });
    expect(sent).toHaveLength(1);
    expect(changes).toEqual([true, false]);
  });

  it('an offer in an unknown shape is reported, and the previous sets stay', () => {
    const { packs } = store();
    packs.receive({ packs: [{ source: '/s/good.json', pack: pack(renamedSet()) }], skipped: [] });
    packs.receive({ packs: 'everything' });
    expect(packs.summary().added).toHaveLength(1);
    expect(packs.summary().problems[0]?.reason).toMatch(/shape this extension does not know/);
  });

  it('a restarted worker takes back the saved offer, checked again', async () => {
    const first = store();
    first.packs.receive({ packs: [{ source: '/s/good.json', pack: pack(renamedSet()) }], skipped: [] });
    await Promise.resolve();
    const again = new PackStore({ broadcast: () => {}, onChange: () => {}, store: { load: async () => first.saved.at(-1), save: async () => {} } });
    await again.restore();
    expect(again.summary().added.map((a) => a.name)).toEqual(['gen-b-2026-12']);
  });
});
