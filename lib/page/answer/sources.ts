import { isPerplexityHost } from '../../protocol/urls';
import type { SelectorSet } from '../../selectors';
import { all, cleanText, first, matches, outermost, type Scope, sortInDocumentOrder, spokenText, union } from '../dom/dom';

/**
 * Sources of an answer, gathered from every place the page shows them and merged: inline
 * citations (URL in a data attribute, not a link), `<a href>` badges (generation A), grouped
 * citation popovers, and the Sources tab. Deduplicated by normalised URL; external sites only;
 * entries with a title and no URL are kept.
 */
export interface Source {
  title: string;
  url?: string;
  /**
   * The page itself marks this URL as a citation (its URL attribute): kept even on Perplexity's own
   * host (Deep Research cites its help pages), where a mere link is page chrome. Not returned.
   */
  cited?: true;
}

/** Canonical form for comparing: no scheme difference, no www., no fragment, no tracking, no trailing slash. */
export function normalizeUrl(raw: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const params = [...u.searchParams.entries()].filter(([k]) => !/^(utm_\w+|fbclid|gclid)$/i.test(k));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.hostname.toLowerCase().replace(/^www\./, '')}${path}${query}`;
}

function absolute(raw: string, base?: string): URL | null {
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

/** "reuters+2" → "reuters"; plain names unchanged. */
export function citationName(text: string, set: SelectorSet): string {
  const m = new RegExp(set.citationGroupPattern).exec(text);
  return (m ? (m[1] ?? '') : text).trim();
}

export function groupedCount(text: string, set: SelectorSet): number {
  // The chip's name and its "+N" sit in spans of their own: their text may come apart on several lines.
  const m = new RegExp(set.citationGroupPattern).exec(text.replace(/\s+/g, ' ').trim());
  return m ? Number(m[2] ?? 0) : 0;
}

/** Inline citations, outermost only: the live page nests a second citation span, with no URL, in each. */
export function fromInlineCitations(root: Scope, set: SelectorSet, base: string): Source[] {
  const out: Source[] = [];
  for (const el of outermost(union(root, set.citationInline))) {
    const link = matches(el, set.link) ? el : first(el, set.link);
    const marked = el.getAttribute(set.citationUrlAttr);
    const raw = marked ?? link?.getAttribute('href') ?? '';
    const titled = set.citationTitle ?? [];
    const holder = first(el, titled) ?? (el.parentElement && matches(el.parentElement, titled) ? el.parentElement : null);
    const title = holder?.getAttribute('aria-label')?.trim() || citationName(cleanText(el), set);
    const url = raw ? absolute(raw, base) : null;
    if (url) out.push({ title, url: url.href, ...(marked ? { cited: true as const } : {}) });
  }
  return out;
}

/** Link badges (generation A's `<a href>` citations): URL, and the full title from aria-label or title. */
export function fromBadges(badges: Element[], base: string): Source[] {
  const out: Source[] = [];
  for (const a of badges) {
    const url = absolute(a.getAttribute('href') ?? '', base);
    // Generation A puts the full title in the badge's aria-label; its text is the short name.
    if (url) out.push({ title: a.getAttribute('aria-label') || a.getAttribute('title') || cleanText(a), url: url.href });
  }
  return out;
}

/** Generation A's `<a href>` badges, and any other link inside the answer. */
export function fromLinks(roots: readonly Scope[], set: SelectorSet, base: string): Source[] {
  return fromBadges(
    roots.flatMap((root) => all(root, set.citationBadge)),
    base,
  );
}

const URLISH = /^(https?:\/\/)?[\w-]+(\.[\w-]+)+(\/\S*)?$/;

/**
 * An entry's title: a marked title element, else its longest child text that is not a URL or a
 * numbered short name ("1. reuters"), else its whole text.
 */
function entryTitle(entry: Element, set: SelectorSet): string {
  const marked = spokenText(first(entry, set.entryTitle));
  if (marked) return marked;
  const parts = Array.from(entry.children)
    .map((c) => spokenText(c))
    .filter((t) => t && !URLISH.test(t) && !/^\d+\.\s*\S+$/.test(t));
  const longest = parts.sort((a, b) => b.length - a.length)[0];
  return longest ?? spokenText(entry);
}

/**
 * Entries of an open popover or a sources panel: a link (title + URL) or a title alone. When
 * entries are only recognisable as links, their title-only siblings are those that share a class
 * with them (so a header such as "3 sources" is not taken for a source).
 */
export function fromEntries(container: Element, set: SelectorSet, base: string): Source[] {
  const out: Source[] = [];
  let entries = all(container, set.citationPopoverEntry);
  if (entries.length > 0 && entries.every((e) => matches(e, set.link))) {
    const classes = new Set(entries.flatMap((e) => Array.from(e.classList)));
    const withSiblings = new Set(entries);
    for (const e of entries) {
      for (const sib of Array.from(e.parentElement?.children ?? [])) {
        if (Array.from(sib.classList).some((c) => classes.has(c))) withSiblings.add(sib);
      }
    }
    entries = sortInDocumentOrder([...withSiblings]);
  }
  for (const entry of entries) {
    // An entry nested in another entry (li > a) is read once, through its outer entry.
    if (entries.some((other) => other !== entry && other.contains(entry))) continue;
    const link = matches(entry, set.link) ? entry : first(entry, set.link);
    const url = link ? absolute(link.getAttribute('href') ?? '', base) : null;
    const title = entryTitle(entry, set);
    if (url) out.push({ title: title || url.hostname, url: url.href });
    else if (title) out.push({ title });
  }
  return out;
}

export function isExternal(url: string): boolean {
  try {
    return !isPerplexityHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Merges lists in order. A later title replaces an earlier one when it says more (a full title over "reuters"). */
export function mergeSources(...lists: Source[][]): Source[] {
  return merge([], lists);
}

/**
 * Merges lists with `numbered` leading, each of its entries kept at its own place, so that the
 * n-th source returned is the page's n-th (the Sources tab numbers its entries "1. reuters" in the
 * order of the thread's `web_results`, which is what the answer's `[n]` citations count). A
 * title-only entry (an uploaded file) keeps its place too. A link to Perplexity's own pages is
 * still dropped: in a sources panel that is page chrome, not an entry. What the other lists add
 * comes after, as mergeSources orders it; their titles still improve the numbered entries'.
 */
export function mergeNumbered(numbered: Source[], ...others: Source[][]): Source[] {
  return merge(numbered, others);
}

function merge(numbered: Source[], lists: Source[][]): Source[] {
  const byUrl = new Map<string, Source>();
  const titleOnly: Source[] = [];
  const order: Source[] = [];
  const add = (s: Source, placed: boolean) => {
    if (s.url) {
      if (!s.cited && !isExternal(s.url)) return;
      const key = normalizeUrl(s.url);
      if (!key) return;
      const seen = byUrl.get(key);
      if (!seen) {
        const copy = { title: s.title.trim(), url: s.url };
        byUrl.set(key, copy);
        order.push(copy);
      } else if (s.title.trim().length > seen.title.length) seen.title = s.title.trim();
    } else if (s.title.trim()) {
      // A numbered title-only entry holds its number; others are added at the end, once.
      if (placed) order.push({ title: s.title.trim() });
      else titleOnly.push({ title: s.title.trim() });
    }
  };
  for (const s of numbered) add(s, true);
  for (const list of lists) for (const s of list) add(s, false);
  const titles = new Set(order.map((s) => s.title.toLowerCase()));
  for (const s of titleOnly) {
    const key = s.title.toLowerCase();
    if (titles.has(key)) continue;
    titles.add(key);
    order.push(s);
  }
  return order.map((s) => (s.title ? s : { ...s, title: s.url ? new URL(s.url).hostname : '' }));
}
