import { expandPattern, PATTERN_KEYS, placeholdersIn, wordsFor } from './language/placeholders';
import type { ElementKey, Mode, SelectorSet } from './schema';

export { expandPattern, PATTERN_KEYS } from './language/placeholders';

/**
 * Words are a selector set's last resort (after test ids, icons and structure), and Perplexity shows
 * them in the reader's language. A set keeps them in one table by language (`labels.fr.words.submit`)
 * and names them in its selectors and patterns by placeholder: `button[aria-label="{submit}"]`,
 * `^\s*(?:{stepsFinished})`. Expanding a set turns each placeholder into every language's words, so
 * reader code never holds a word and a new language is one more entry in the table.
 *
 * - In a candidate selector, a placeholder becomes one selector per word, joined into a selector
 *   list (`button[aria-label="Submit"], button[aria-label="Envoyer"]`): still one candidate, one query.
 * - In a pattern, it becomes an alternation of the words, regex-escaped: `(?:Finished|Terminé)`.
 *
 * Pure string work, no zod: the content script expands the sets it is given.
 */

/** List fields that are not selectors (attribute names, icon names, where a turn's number is), left as they are. */
const NOT_SELECTORS: ReadonlySet<string> = new Set(['watchAttributes', 'stopIcons', 'computerToggleIcons', 'turnNumber']);

/** The probes of a set: every field that is a list of candidate selectors. */
export function probeKeys(set: SelectorSet): ElementKey[] {
  return Object.keys(set).filter((key) => Array.isArray(set[key as keyof SelectorSet]) && !NOT_SELECTORS.has(key)) as ElementKey[];
}

/** A word inside a double-quoted CSS attribute value. */
function cssString(word: string): string {
  return word.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\a ');
}

/** One candidate with placeholders → one selector list; null when a placeholder has no word at all. */
export function expandSelector(set: Pick<SelectorSet, 'labels'>, selector: string): string | null {
  const keys = [...new Set(placeholdersIn(selector))];
  if (keys.length === 0) return selector;
  let variants = [selector];
  for (const key of keys) {
    const words = wordsFor(set, key);
    if (words.length === 0) return null;
    variants = variants.flatMap((v) => words.map((w) => v.split(`{${key}}`).join(cssString(w))));
  }
  return variants.join(', ');
}

/**
 * The set with more languages' words beside its own (placeholders untouched: expand it after). The
 * built-in sets get their French and Arabic this way (words.ts says why).
 */
export function withLabels(set: SelectorSet, labels: SelectorSet['labels']): SelectorSet {
  return { ...set, labels: { ...set.labels, ...labels } };
}

const expanded = new WeakSet<SelectorSet>();

/** The set with every placeholder replaced by the words of all its languages. Idempotent. */
export function expandLabels(set: SelectorSet): SelectorSet {
  if (expanded.has(set)) return set;
  const out: Record<string, unknown> = { ...set };
  for (const [key, value] of Object.entries(set)) {
    if (!Array.isArray(value) || NOT_SELECTORS.has(key)) continue;
    out[key] = value.map((s: string) => expandSelector(set, s)).filter((s): s is string => s !== null);
  }
  out.signature = {
    present: set.signature.present.map((s) => expandSelector(set, s)).filter((s): s is string => s !== null),
    absent: set.signature.absent.map((s) => expandSelector(set, s)).filter((s): s is string => s !== null),
  };
  for (const key of PATTERN_KEYS) out[key] = expandPattern(set, set[key]);
  const result = out as SelectorSet;
  expanded.add(result);
  return result;
}

const modeMaps = new WeakMap<SelectorSet, ReadonlyMap<string, Mode>>();

/** Mode names as the page writes them, all languages together (the fallback when an item has no known icon). */
export function modeWords(set: SelectorSet): ReadonlyMap<string, Mode> {
  let map = modeMaps.get(set);
  if (!map) {
    const entries: [string, Mode][] = [];
    for (const language of Object.values(set.labels)) {
      for (const [word, mode] of Object.entries(language.modes)) entries.push([word, mode]);
    }
    map = new Map(entries);
    modeMaps.set(set, map);
  }
  return map;
}
