/**
 * Recognising a question on the page again (the turn an ask created, the turn a wait is bound
 * to). The page may show it with whitespace collapsed, invisible and control characters dropped,
 * line breaks changed, and folded to a head followed by "…"; both sides are compared in one
 * canonical form, on a head of at most KEY_LENGTH characters.
 */
const KEY_LENGTH = 200;
/** A folded question shorter than this (a few short lines) proves nothing. */
const MIN_FOLDED = 24;

/**
 * Since Sep 2026 the page draws a question with the answer's Markdown renderer (its bubble is `[data-renderer="lm"]`,
 * captures of 2026-09-26 and -27; review 13a, Q1): `` `git init` `` shows as "git init", a numbered line without its
 * number, a link as its words. So a question is known by what the renderer leaves of it, on both sides: its letters,
 * digits, marks and symbols (C++ is not C#, a vowel sign counts, an emoji is a question), without punctuation, the
 * numbers of numbered lines, links' addresses, and the code and emphasis marks `` ` `` and `~` (review 13d, 3).
 */
export function questionKey(text: string): string {
  return text
    .replace(/^\s*\d+[.)]\s|\]\([^)]*\)|\p{Cf}/gmu, '')
    .replace(/(?:[^\p{L}\p{N}\p{M}\p{S}]|[`~])+/gu, ' ')
    .trim()
    .slice(0, KEY_LENGTH);
}

/**
 * Whether `shown` (a turn's question as the page renders it) is the question whose key is `key`:
 * `same`, `different`, or `unknown` when the page shows too little to tell (nothing, or a fold
 * that stops after a few short lines) and the caller must decide from other evidence.
 */
export function questionMatch(shown: string, key: string): 'same' | 'different' | 'unknown' {
  const visible = questionKey(shown.replace(/\s*…\s*$/, ''));
  if (!visible || !key) return 'unknown';
  // A key cut to KEY_LENGTH is a head: a longer question that starts with it is the same. A whole one must be equal
  // ("Tell me more" is not "Tell me more about Canberra").
  if (visible.length >= key.length) return visible.startsWith(key) && (key.length === KEY_LENGTH || visible === key) ? 'same' : 'different';
  if (!key.startsWith(visible)) return 'different';
  return visible.length >= Math.min(key.length, MIN_FOLDED) ? 'same' : 'unknown';
}
