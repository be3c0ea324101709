/**
 * The placeholder engine under the selector sets' words (labels.ts): finding `{name}` in a selector
 * or a pattern, and a pattern's placeholders as alternations of their words. Pure string work with
 * no zod and no import, so both the schema that checks a set and the content script that expands one
 * stand on it.
 */

/** The words of a set by language, as much of a selector set as placeholders need. */
export interface WordTable {
  labels: Readonly<Record<string, { words: Readonly<Record<string, readonly string[]>> }>>;
}

/** `{name}`: letters only, so a regex quantifier such as `\d{4}` is never taken for one. */
export const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/** Fields holding regular expressions (strings) rather than selectors; schema.ts indexes a set with them. */
export const PATTERN_KEYS = [
  'stepsHeaderPattern',
  'stepsFinishedPattern',
  'stepsStoppedPattern',
  'citationGroupPattern',
  'sourcesTabPattern',
] as const;

export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Every word of a placeholder, all languages together, each once, in table order. */
export function wordsFor(set: WordTable, key: string): string[] {
  const out: string[] = [];
  for (const language of Object.values(set.labels)) {
    const words = Object.hasOwn(language.words, key) ? language.words[key] : undefined;
    for (const word of words ?? []) if (!out.includes(word)) out.push(word);
  }
  return out;
}

/** How many selectors a candidate becomes: one per combination of its placeholders' words (labels.ts expandSelector). */
export function variantCount(set: WordTable, selector: string): number {
  return [...new Set(placeholdersIn(selector))].reduce((n, key) => n * wordsFor(set, key).length, 1);
}

export function regexLiteral(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A pattern with placeholders → the same pattern with each one an alternation of its words. */
export function expandPattern(set: WordTable, pattern: string): string {
  return pattern.replace(PLACEHOLDER, (_, key: string) => {
    const words = wordsFor(set, key);
    // No word: an alternation that matches nothing, never the literal placeholder.
    return words.length ? `(?:${words.map(regexLiteral).join('|')})` : '(?!)';
  });
}
