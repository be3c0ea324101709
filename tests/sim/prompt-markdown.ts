import { esc } from './answer';

/**
 * A prompt as the Sep–Oct 2026 page draws it in the question bubble: through the answer's own Markdown renderer
 * (`[data-renderer="lm"]` with paragraphs of the answer prose's class, captures of 2026-09-26 and -27), so its marks
 * do not show (review 13a, Q1). What prompts hold: paragraphs, `-` and `1.` lists, inline code, bold, italics and
 * links. A layout that shows the question as typed (Aug 2026's `whitespace-pre-line` span) does not use this.
 */
export function promptHtml(markdown: string): string {
  const inline = (text: string) =>
    esc(text)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/\*([^*\s][^*]*)\*/g, '<em>$1</em>')
      .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
  const blocks: { tag: 'p' | 'ul' | 'ol' | 'gap'; items: string[] }[] = [];
  for (const line of markdown.split('\n')) {
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const item = bullet ?? /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const last = blocks.at(-1);
    if (item) {
      const tag = bullet ? 'ul' : 'ol';
      if (last?.tag === tag) last.items.push(inline(item[1] ?? ''));
      else blocks.push({ tag, items: [inline(item[1] ?? '')] });
    } else blocks.push(line.trim() ? { tag: 'p', items: [inline(line)] } : { tag: 'gap', items: [] });
  }
  return blocks
    .map(({ tag, items }) => (tag === 'gap' ? '' : tag === 'p' ? `<p>${items[0]}</p>` : `<${tag}>${items.map((i) => `<li>${i}</li>`).join('')}</${tag}>`))
    .join('');
}
