import { isPerplexityHost } from '../protocol/urls';
import type { PageContext } from './context';
import { cleanText, union } from './dom';

export interface Conversation {
  title: string;
  url: string;
}

/**
 * Some titles render twice inside their link (a visible copy and a measuring copy), so the
 * text reads "Rust vs GoRust vs Go". Only an exact repetition is undone ("Bora Bora" stays).
 */
export function undoubleTitle(text: string): string {
  const t = text.trim();
  if (t.length >= 4 && t.length % 2 === 0) {
    const half = t.slice(0, t.length / 2);
    if (half + half === t) return half.trim();
  }
  return t;
}

/** Conversation links on the page (sidebar, home, library): absolute URLs, each once. */
export function listConversations(ctx: PageContext): Conversation[] {
  const base = ctx.doc.location.href;
  const seen = new Map<string, Conversation>();
  for (const a of union(ctx.doc, ctx.set.conversationLink)) {
    let url: URL;
    try {
      url = new URL(a.getAttribute('href') ?? '', base);
    } catch {
      continue;
    }
    // "/search/" also appears in other sites' URLs: only Perplexity's own pages are conversations.
    if (url.protocol !== 'https:' || !isPerplexityHost(url.hostname)) continue;
    url.hash = '';
    const title = undoubleTitle(cleanText(a)) || a.getAttribute('title') || a.getAttribute('aria-label') || '';
    const key = url.origin + url.pathname;
    const known = seen.get(key);
    if (!known) seen.set(key, { title: title || url.pathname, url: url.href });
    else if (!known.title || known.title === url.pathname) known.title = title || known.title;
  }
  return [...seen.values()];
}
