import { isConversationPath, isPerplexityHost } from '../../protocol/urls';
import type { PageContext } from '../dom/context';
import { cleanText, first, spokenText, union } from '../dom/dom';

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

/**
 * A row's title: its marked title element, else its first block with text (library rows also hold
 * a snippet and a time), read without aria-hidden copies.
 */
function titleOf(a: Element, ctx: PageContext): string {
  const marked = first(a, ctx.set.entryTitle);
  if (marked && spokenText(marked)) return spokenText(marked);
  const hasOwnText = Array.from(a.childNodes).some((n) => n.nodeType === 3 && (n.nodeValue ?? '').trim() !== '');
  if (hasOwnText) return spokenText(a);
  for (const child of Array.from(a.children)) {
    const t = spokenText(child);
    if (t) return t;
  }
  return cleanText(a);
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
    // The selectors match "/search/" anywhere in an href: only Perplexity's own conversation paths count.
    if (url.protocol !== 'https:' || !isPerplexityHost(url.hostname) || !isConversationPath(url.pathname)) continue;
    // A conversation is its address: a query may ask a prompt (`/search/new?q=`, a link in an answer; review 13b).
    url.hash = '';
    url.search = '';
    const title = undoubleTitle(titleOf(a, ctx)) || a.getAttribute('title') || a.getAttribute('aria-label') || '';
    const key = url.origin + url.pathname;
    const known = seen.get(key);
    if (!known) seen.set(key, { title: title || url.pathname, url: url.href });
    else if (!known.title || known.title === url.pathname) known.title = title || known.title;
  }
  return [...seen.values()];
}
