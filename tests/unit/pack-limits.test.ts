import { describe, expect, it } from 'vitest';
import { PACK_KINDS } from '../../lib/packs/kinds';
import { parsePack, parsePackText } from '../../lib/packs/parse';
import { BUILT_IN_SOURCES, type SelectorSet } from '../../lib/selectors';
import { patternProblem } from '../../lib/selectors/language/pattern-check';
import { expandPattern, PATTERN_KEYS, variantCount } from '../../lib/selectors/language/placeholders';

/**
 * What a pack that passes its checks may still cost the page: every Perplexity tab runs a pack's selectors and
 * patterns on its main thread (review 13c, F1, F2). The checks of `selectors add`, the host and the worker refuse
 * what would freeze the tab, naming the field, and pass every built-in set and reader.
 */
const sourceB = BUILT_IN_SOURCES.find((s) => s.name === 'gen-b-2026-10') as SelectorSet;
const problemsOf = (pack: unknown) => {
  const checked = parsePack(pack);
  return checked.ok ? [] : checked.problems;
};

describe('selectors whose placeholders multiply', () => {
  /** A candidate with k placeholders of 16 words each: 16^k selectors once filled in. */
  const multiplying = (k: number, candidates = 1): SelectorSet => {
    const keys = 'abcdefg'.slice(0, k).split('');
    const words: Record<string, string[]> = { ...sourceB.labels.en?.words };
    for (const key of keys) words[`many${key}`] = Array.from({ length: 16 }, (_, i) => `w${i}`);
    const candidate = (n: number) => `${keys.map((x) => `[data-${x}="{many${x}}"]`).join(' ')} .c${n}`;
    return {
      ...sourceB,
      name: 'gen-b-2026-12-many',
      labels: { ...sourceB.labels, en: { words, modes: sourceB.labels.en?.modes ?? {} } },
      composer: Array.from({ length: candidates }, (_, n) => candidate(n)),
    } as SelectorSet;
  };

  it('a candidate that becomes more than 256 selectors is refused, named, with what to do', () => {
    const problems = problemsOf({ kind: 'selector-set', set: multiplying(7) });
    expect(problems.join('\n')).toMatch(/set\.composer\[0\]: becomes 268435456 selectors.*at most 256.*use fewer placeholders/);
  });

  it('a set that becomes more than 4,096 selectors in all is refused, though each candidate is small', () => {
    // 2 placeholders: 256 a candidate, 17 candidates: 4,352.
    expect(problemsOf({ kind: 'selector-set', set: multiplying(2, 17) }).join('\n')).toMatch(/becomes \d+ selectors once its placeholders are filled in.*at most 4096/);
    expect(problemsOf({ kind: 'selector-set', set: multiplying(2, 15) })).toEqual([]);
  });

  it('the built-in sets, with every language they carry, stay far below', () => {
    for (const set of BUILT_IN_SOURCES) {
      const lists = [...Object.values(set).filter(Array.isArray), set.signature.present, set.signature.absent] as unknown[][];
      const counts = lists.flat().filter((s): s is string => typeof s === 'string').map((s) => variantCount(set, s));
      expect(Math.max(...counts), set.name).toBeLessThan(16);
      expect(counts.reduce((a, b) => a + b, 0), set.name).toBeLessThan(300);
    }
  });
});

describe('patterns that backtrack without end', () => {
  const runaway = '^(\\w+\\s?)*$';

  it('are refused in a selector set (its patterns and where a turn’s number is) and in a thread page reader, naming the field', () => {
    const set = { ...sourceB, name: 'gen-b-2026-12-slow', stepsHeaderPattern: runaway, turnNumber: [{ attr: 'data-x', pattern: '(\\d+)+$' }] };
    const problems = problemsOf({ kind: 'selector-set', set }).join('\n');
    expect(problems).toMatch(/set\.stepsHeaderPattern.*repeats "\\\\w\+" inside a repetition.*freeze the tab/);
    expect(problems).toMatch(/set\.turnNumber\[0\]\.pattern.*repeats "\\\\d\+" inside a repetition/);
    const reader = structuredClone(PACK_KINDS['thread-page-reader']?.builtInPack('thread-page-2026-12')) as unknown as { reader: { notFound: { pattern: string } } };
    reader.reader.notFound.pattern = runaway;
    expect(problemsOf(reader).join('\n')).toMatch(/reader\.notFound\.pattern.*inside a repetition/);
  });

  it('what is not a repetition in a repetition passes: an optional group, a fixed count, a class', () => {
    for (const fine of ['(?:\\s*\\d+\\s*s)?$', '(?:ab{2}){3}', '[a+]*', '^\\d+ sources$', '(?<=x)y+']) expect(patternProblem(fine, 'i'), fine).toBeNull();
    for (const slow of ['(a+)+b', '(?:x{1,9})*', '((ab)*c)*', '(\\w+){8}:']) expect(patternProblem(slow, 'i'), slow).toMatch(/inside a repetition/);
    expect(patternProblem('(', 'i')).toMatch(/not a valid regular expression/);
  });

  it('every built-in pattern passes, its words filled in', () => {
    for (const set of BUILT_IN_SOURCES) {
      for (const key of PATTERN_KEYS) expect(patternProblem(expandPattern(set, set[key]), 'i'), `${set.name} ${key}`).toBeNull();
    }
  });
});

describe('JSON paths the path language cannot follow', () => {
  const readerWith = (kind: string, name: string, at: string[], paths: string[]) => {
    const pack = structuredClone(PACK_KINDS[kind]?.builtInPack(name)) as unknown as Record<string, unknown>;
    let target: Record<string, unknown> = pack;
    for (const key of at.slice(0, -1)) target = target[key] as Record<string, unknown>;
    target[at.at(-1) as string] = paths;
    return pack;
  };

  it('are refused in every JSON reader kind, naming the field and what is wrong (review 13c, F3)', () => {
    const fields: [string, string, string[]][] = [
      ['thread-json-reader', 'thread-json-2026-12', ['reader', 'thread', 'entries']],
      ['account-json-reader', 'account-json-2026-12', ['reader', 'models', 'models']],
      ['library-json-reader', 'library-json-2026-12', ['reader', 'entry', 'question']],
      ['ask-stream-reader', 'ask-stream-2026-08', ['reader', 'frame', 'blocks']],
    ];
    for (const [kind, name, at] of fields) {
      expect(problemsOf(readerWith(kind, name, at, ['fine.path']))).toEqual([]);
      for (const bad of ['entries[', 'blocks[=ask_text].markdown_block', 'a]b']) {
        expect(problemsOf(readerWith(kind, name, at, ['fine.path', bad])).join('\n'), `${kind} ${bad}`).toMatch(
          new RegExp(`${at.join('\\.')}\\[1\\]: is not a JSON path the readers can follow \\(bad (JSON path segment|filter)`),
        );
      }
    }
  });
});

describe('a pack of thousands of unknown fields', () => {
  it('is refused naming a few of them and counting the rest (review 13c, F11: a 700 kB message and seconds of "did you mean")', () => {
    const extra = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`composerx${i}`, 0]));
    const checked = parsePackText(JSON.stringify({ kind: 'selector-set', set: { ...sourceB, ...extra } }));
    expect(checked.ok).toBe(false);
    const said = checked.ok ? '' : checked.problems.join('\n');
    expect(said).toMatch(/set\.composerx0: not a field of a selector set \(did you mean "composer"\?\)/);
    expect(said).toMatch(/…and 4995 more fields that are not fields of a selector set/);
    expect(said.length).toBeLessThan(2000);
  });
});
