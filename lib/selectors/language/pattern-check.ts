import regjsparser, { type AstNode } from 'regjsparser';

/**
 * The check every regular expression of a pack passes before any page runs it. A pack's patterns run on the page's
 * text in the tab's main thread, where JavaScript has no timeout for a match: a pattern that backtracks
 * catastrophically (`^(\w+\s?)*$` on a 25-character heading took 1.3 s, each character more doubles it; review 13c,
 * F2) freezes the person's Perplexity tab. It is refused here, where `selectors add`, the host and the worker check
 * packs, naming the field.
 *
 * Refused: a repetition of variable length inside another repetition (`(\w+\s?)*`, `(a+)+`, `(?:x{1,9})*`,
 * `(\w+){8}`), the star height above one that safe-regex measures. A `?` (at most once) does not count as the outer
 * one, nor a fixed count as the inner (`(?:ab{2}){3}`): the built-in sets' `(?:\s*\d+\s*s)?` passes. Not caught,
 * and said so in lib/selectors/README.md: overlapping alternatives under one repetition (`(a|a)*`) and many
 * unbounded repetitions in a row (`.*.*.*.*x`, polynomial), which need a matcher's analysis (redos-detector refused
 * the built-in patterns themselves and took seconds on some).
 * The syntax is read with regjsparser (Babel's regular expression parser); what it cannot read is refused too, as
 * unchecked.
 */
export function patternProblem(pattern: string, flags: 'i' | ''): string | null {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return `is not a valid regular expression (${(error as Error).message})`;
  }
  let tree: AstNode<{ lookbehind: true; namedGroups: true; modifiers: true }>;
  try {
    tree = regjsparser.parse(pattern, flags, { lookbehind: true, namedGroups: true, modifiers: true });
  } catch (error) {
    return `could not be checked for runaway backtracking (${(error as Error).message}); write it with plainer syntax`;
  }
  const nested = nestedRepetition(tree, false);
  return nested
    ? `repeats ${JSON.stringify(nested)} inside a repetition, which can take minutes to match on a long text and freeze the tab: write it without the outer repetition, or with a fixed count`
    : null;
}

/**
 * The first repetition of variable length found inside another repetition (of any count above one: `(\w+){8}` is
 * polynomial of degree 8, 47 s on 40 letters; review 13d, 5), or null.
 */
function nestedRepetition(node: { type: string; body?: unknown; min?: number; max?: number; raw: string }, inside: boolean): string | null {
  const repeats = node.type === 'quantifier' && (node.max === undefined || node.max > 1);
  if (repeats && node.max !== node.min && inside) return node.raw;
  const children = Array.isArray(node.body) ? (node.body as (typeof node)[]) : [];
  // A character class's members are characters, never repetitions.
  if (node.type === 'characterClass') return null;
  for (const child of children) {
    const found = nestedRepetition(child, inside || repeats);
    if (found) return found;
  }
  return null;
}
