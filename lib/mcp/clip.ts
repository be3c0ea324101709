/** One line of at most `max` characters (whitespace folded), for summaries and messages. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // Never half of a character written as two (an emoji): the cut goes before it (day-7f review G4).
  const cut = flat.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
