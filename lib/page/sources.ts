import { isPerplexityHost } from '../protocol/urls';
import type { SelectorSet } from '../selectors';
import { all, cleanText, first, union } from './dom';

/**
 * Sources of an answer, gathered from every place the page shows them and merged: inline
 * citations (URL in a data attribute: failure mode 8), `<a href>` badges (generation A), grouped
 * citation popovers, and the Sources tab. Deduplicated by normalised URL; external sites only;
 * entries with a title and no URL are kept.
 */
export interface Source {
  title: string;
  url?: string;
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
  const m = new RegExp(set.citationGroupPattern).exec(text);
  return m ? Number(m[2] ?? 0) : 0;
}

export function fromInlineCitations(root: ParentNode, set: SelectorSet, base: string): Source[] {
  const out: Source[] = [];
  for (const el of union(root, set.citationInline)) {
    const raw = el.getAttribute(set.citationUrlAttr) ?? first(el, set.link)?.getAttribute('href') ?? '';
    const title = citationName(cleanText(el), set);
    const url = raw ? absolute(raw, base) : null;
    if (url) out.push({ title, url: url.href });
  }
  return out;
}

/** Generation A's `<a href>` badges, and any other link inside the answer. */
export function fromLinks(roots: Element[], set: SelectorSet, base: string): Source[] {
  const out: Source[] = [];
  for (const root of roots) {
    for (const a of all(root, set.citationBadge)) {
      const url = absolute(a.getAttribute('href') ?? '', base);
      if (url) out.push({ title: cleanText(a) || a.getAttribute('title') || a.getAttribute('aria-label') || '', url: url.href });
    }
  }
  return out;
}

/** Entries of an open popover or a sources panel: a link (title + URL) or a title alone. */
export function fromEntries(container: Element, set: SelectorSet, base: string): Source[] {
  const out: Source[] = [];
  const entries = all(container, set.citationPopoverEntry);
  for (const entry of entries) {
    // An entry nested in another entry (li > a) is read once, through its outer entry.
    if (entries.some((other) => other !== entry && other.contains(entry))) continue;
    const link = entry.tagName === 'A' ? entry : first(entry, set.link);
    const url = link ? absolute(link.getAttribute('href') ?? '', base) : null;
    const heading = first(entry, set.entryTitle);
    const title = cleanText(heading) || (link ? cleanText(link) : '') || cleanText(entry);
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
  const byUrl = new Map<string, Source>();
  const titleOnly: Source[] = [];
  const order: Source[] = [];
  for (const list of lists) {
    for (const s of list) {
      if (s.url) {
        if (!isExternal(s.url)) continue;
        const key = normalizeUrl(s.url);
        if (!key) continue;
        const seen = byUrl.get(key);
        if (!seen) {
          const copy = { title: s.title.trim(), url: s.url };
          byUrl.set(key, copy);
          order.push(copy);
        } else if (s.title.trim().length > seen.title.length) seen.title = s.title.trim();
      } else if (s.title.trim()) {
        titleOnly.push({ title: s.title.trim() });
      }
    }
  }
  const titles = new Set(order.map((s) => s.title.toLowerCase()));
  for (const s of titleOnly) {
    const key = s.title.toLowerCase();
    if (titles.has(key)) continue;
    titles.add(key);
    order.push(s);
  }
  return order.map((s) => (s.title ? s : { ...s, title: s.url ? new URL(s.url).hostname : '' }));
}
