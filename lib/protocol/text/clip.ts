/**
 * Text cut to a length for a title, a summary or a sentence that quotes it: one rule for every layer (the 2026-12-01
 * threads review counted four copies, review 15a seven; only one kept an emoji whole).
 */

/** At most `max` characters, `…` last when cut; never half of a character written as two (an emoji): the cut goes before it (day-7f review G4). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}…`;
}

/** One line of at most `max` characters (whitespace folded), for summaries and messages. */
export function clip(text: string, max: number): string {
  return cut(text.replace(/\s+/g, ' ').trim(), max);
}
