/**
 * Text compared for a repair (repair-derive.ts): the thread JSON writes each answer as Markdown, the
 * page shows it rendered, with citation chips ("example +1") in the flow and every formula drawn
 * twice beside its hidden TeX. Both sides come down to the same thing: letters and digits only,
 * lower case. The JSON's side is a list of words; the page's is one run of characters (block
 * elements glue words together in textContent), in which the words must appear in order with only
 * short runs between them, the chips.
 */

/** Letters and digits of `text`, lower case, as words. */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The words of a Markdown answer as the page would show them: no citation markers, no link targets, no fences. */
export function markdownWords(markdown: string): string[] {
  const shown = markdown
    .replace(/^\s*```[^\n]*$/gm, ' ') // a fence and its language, which the page writes as a caption or not at all
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\d{1,3}\](?:\([^)]*\))?/g, ' ') // `[n]` citations: the page shows a chip, which the comparison allows for
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ');
  return wordsOf(shown);
}

/** Elements whose text no reader sees: scripts, styles, and what the page hides from screen readers (a formula's glyphs). */
const UNSEEN = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'SVG']);

/**
 * The text of `el` as a run of letters and digits, a formula counted once as its TeX source (the
 * MathML `annotation` every formula keeps), and nothing of what is hidden. Memoised per element,
 * since a repair asks every element of the page.
 */
export class FlatText {
  private known = new Map<Node, string>();

  of(node: Node): string {
    const hit = this.known.get(node);
    if (hit !== undefined) return hit;
    let out = '';
    if (node.nodeType === 3) {
      out = squash(node.nodeValue ?? '');
    } else if (node.nodeType === 1) {
      const el = node as Element;
      const tag = el.tagName.toUpperCase();
      if (UNSEEN.has(tag) || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('hidden')) out = '';
      else if (tag === 'MATH') out = squash(el.querySelector('annotation[encoding*="tex"]')?.textContent ?? el.textContent ?? '');
      else for (const child of Array.from(el.childNodes)) out += this.of(child);
    }
    this.known.set(node, out);
    return out;
  }
}

function squash(text: string): string {
  return wordsOf(text).join('');
}

/**
 * How much text may stand between the expected words, before them and after them: citation chips
 * ("example+1"), a question's date, an answer's steps header. It grows a little with the text's
 * length and stays far below one sentence, so an element holding two answers never counts as one.
 */
export function slackFor(expectedLength: number): number {
  return Math.min(60, 16 + Math.floor(expectedLength / 10));
}

/**
 * Whether `flat` (FlatText's form) shows exactly the words `expected`, in order: every word found
 * after the previous one, with no more than the slack between two words, before the first or
 * after the last.
 */
export function showsExactly(expected: readonly string[], flat: string): boolean {
  if (expected.length === 0) return false;
  const length = expected.reduce((n, w) => n + w.length, 0);
  if (flat.length < length || flat.length > length + slackFor(length) * 4) return false;
  const slack = slackFor(length);
  let at = 0;
  let extra = 0;
  for (const word of expected) {
    const i = flat.indexOf(word, at);
    if (i < 0 || i - at > slack) return false;
    extra += i - at;
    at = i + word.length;
  }
  extra += flat.length - at;
  return flat.length - at <= slack && extra <= slack * 4;
}
