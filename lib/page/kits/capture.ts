import { isPerplexityHost } from '../../protocol/urls';
import type { SelectorSet } from '../../selectors';
import { PATTERN_KEYS } from '../../selectors/labels';

/**
 * `page.capture` (`comet-relay capture`): the Perplexity tab's DOM as an HTML fixture a person can
 * attach to a bug report, and a maintainer can load in a unit test of the reader.
 *
 * What stays: the structure, tag names, classes, ids, roles, `data-*` and `aria-*` attributes, icon
 * references, inline styles (without `url(…)`), and the words the selector sets themselves look for
 * (labels in any language, step headers, tab names, a citation's `+N`).
 * What changes: every other text — the person's question, the answer, thread titles — becomes
 * placeholder text of the same length (letters and digits replaced, spaces and ASCII punctuation
 * kept), so lengths and line structure survive; labels on links and on non-controls likewise; URLs
 * are cut to their host (Perplexity's own keep the kind of page, `/search/`, with the rest replaced).
 * What never appears: scripts, styles, `<head>` contents other than the title, inline event
 * handlers, form values, `srcset`, comments, cookies or storage (never read).
 */
export interface Capture {
  html: string;
  /** The page's URL, reduced like every URL in the capture. */
  url: string;
  bytes: number;
  /** The DOM was larger than maxBytes: the capture stops there (marked in the HTML). */
  truncated: boolean;
}

export interface CaptureMeta {
  setName: string;
  setSource: string;
  capturedAt: string;
}

const DROPPED = new Set(['script', 'noscript', 'style', 'link', 'meta', 'base', 'template', 'object', 'embed', 'slot']);
const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'source', 'track', 'wbr']);
const KEPT_ATTRIBUTES = new Set([
  'class', 'id', 'role', 'type', 'dir', 'lang', 'hidden', 'disabled', 'tabindex', 'contenteditable', 'spellcheck',
  'translate', 'rel', 'target', 'open', 'rows', 'cols', 'checked', 'selected', 'multiple', 'readonly', 'required',
  'draggable', 'inert',
  // SVG: icons are structure too.
  'viewbox', 'd', 'x', 'y', 'x1', 'x2', 'y1', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'width', 'height', 'fill', 'stroke',
  'stroke-width', 'stroke-linecap', 'stroke-linejoin', 'points', 'transform', 'xmlns', 'xmlns:xlink', 'version',
  'preserveaspectratio', 'fill-rule', 'clip-rule', 'opacity', 'focusable',
]);
const URL_ATTRIBUTES = new Set(['href', 'xlink:href', 'src', 'poster', 'action', 'formaction', 'cite']);
/** Attributes holding words: kept on controls (their labels are the page's own words), replaced elsewhere. */
const TEXT_ATTRIBUTES = new Set(['aria-label', 'aria-placeholder', 'aria-description', 'aria-roledescription', 'placeholder', 'title', 'alt']);
const CONTROL_ROLES = /^(button|tab|menuitem|menuitemradio|menuitemcheckbox|option|switch|checkbox|radio|listbox|menu|textbox|group|dialog|tablist|tabpanel|toolbar|alert|navigation|complementary)$/;
const CONTROL_TAGS = new Set(['button', 'textarea', 'input', 'select', 'nav', 'aside']);
const MAX_LABEL = 60;

const FILLER = 'loremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididuntutlabore';

/** Same length, same spaces and ASCII punctuation; every other character becomes a filler letter. */
export function placeholderText(text: string): string {
  let out = '';
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (/[\s!-/:-@[-`{-~]/.test(c)) {
      out += c;
      continue;
    }
    const f = FILLER[k++ % FILLER.length] as string;
    out += c !== c.toLowerCase() ? f.toUpperCase() : f;
  }
  return out;
}

/** Reduces a URL to its host; Perplexity's own links keep the kind of page. Null drops the attribute. */
export function reduceUrl(value: string, base: string): string | null {
  const v = value.trim();
  if (/^#[\w-]*$/.test(v)) return v; // an icon in the page's sprite, an anchor
  let url: URL;
  try {
    url = new URL(v, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (!isPerplexityHost(url.hostname)) return `${url.protocol}//${url.host}/`;
  const [kind, ...rest] = url.pathname.split('/').filter(Boolean);
  const keep = kind === 'computer' && rest[0] ? `/${kind}/${rest.shift()}` : kind ? `/${kind}` : '';
  const path = `${keep}${rest.map((segment) => `/${placeholderText(decodeURIComponentSafe(segment))}`).join('')}`;
  const absolute = /^[a-z][a-z0-9+.-]*:|^\/\//i.test(v);
  return absolute ? `${url.protocol}//${url.host}${path || '/'}` : path || '/';
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What a step header or tab name may hold besides the words it starts with: counts, durations and separators
 * ("Finished 5 steps", "Researched 4s"). Anything else after the word is somebody's text ("Working at Acme"),
 * so a header is kept only when all of it is the set's words and this (review of 2026-12-02, #17).
 */
const STRUCTURAL_REST = /^[\s\d.,:;·•()+\-–—%]*(?:[smh]\b[\s\d.,:;·•()+\-–—%smh]*)?$/;

/** The words the selector sets look for, kept as they are. */
function keeper(set: SelectorSet): (text: string) => string | null {
  const words = new Set<string>();
  // Each word of a phrase too ("steps" of "steps completed"): what may follow a header's count.
  const tokens = new Set<string>();
  for (const language of Object.values(set.labels)) {
    for (const list of Object.values(language.words)) {
      for (const w of list) {
        words.add(w.toLowerCase());
        for (const token of w.toLowerCase().split(/\s+/)) tokens.add(token);
      }
    }
    for (const mode of Object.keys(language.modes)) words.add(mode.toLowerCase());
  }
  const patterns = PATTERN_KEYS.filter((k) => k !== 'citationGroupPattern').flatMap((k) => {
    try {
      return [new RegExp(set[k], 'i')];
    } catch {
      return [];
    }
  });
  let group: RegExp | null = null;
  try {
    group = new RegExp(set.citationGroupPattern);
  } catch {
    group = null;
  }
  const onlyWordsAndCounts = (rest: string): boolean =>
    rest
      .split(/\s+/)
      .filter(Boolean)
      .every((token) => STRUCTURAL_REST.test(token) || tokens.has(token.toLowerCase().replace(/[.,:;]$/, '')));
  return (text) => {
    const t = text.trim();
    if (!t || words.has(t.toLowerCase()) || /^\d{1,4}$/.test(t)) return text;
    // A steps header or a tab name: short, a known word, and nothing after it but counts and more known words.
    if (t.length <= 40) {
      for (const p of patterns) {
        const m = p.exec(t);
        if (m && m.index === 0 && onlyWordsAndCounts(t.slice(m[0].length))) return text;
      }
    }
    const grouped = group?.exec(t);
    if (grouped?.[2]) {
      // A grouped citation: its source name is the answer's, its "+N" is structure.
      const name = grouped[1] ?? '';
      return text.replace(name, placeholderText(name));
    }
    return null;
  };
}

/**
 * Ids and `data-*` values the page's own code sets are structure; a slug or a name in one ("jane-doe", a thread's
 * title as its id) is somebody's text. Kept whole: values the selector set names (exactly, or as the prefix of an
 * `^=` selector), numbers, states and machine tokens (uuids, hashes, Radix's `:r1:` ids, opaque ids), and every value
 * of an attribute only developers write (`data-testid`, `data-state`). Everything else keeps its shape, not its letters.
 */
const MACHINE_TOKEN = /^(?:-?\d+(?:\.\d+)?|true|false|on|off|open|closed|checked|unchecked|active|inactive|visible|hidden|horizontal|vertical|top|bottom|left|right|start|end|center|[0-9a-f-]{8,}|:[\w-]*:)$/i;
/**
 * An opaque id: a digit, and in each part of it split at `-`/`_` a number, a state, up to three letters ("row",
 * "r1") or no word of four letters ("q7YvQ2l3Sy2H"). A thread slug's words ("divorce-lawyer-2026") and a user name
 * ("jsmith1984") are somebody's text (review 2026-12-04 #15: a single digit used to make any value a machine token).
 */
const machineToken = (value: string): boolean =>
  MACHINE_TOKEN.test(value) || (/\d/.test(value) && value.split(/[-_]/).every((part) => MACHINE_TOKEN.test(part) || /^(?:[A-Za-z]{1,3}|(?!.*(?:[a-z]{4}|[A-Z][a-z]{3}))\w+)$/.test(part)));

const DEVELOPER_ATTRIBUTES = /^data-(?:testid|test-id|state|side|align|orientation|placement|radix-[\w-]+|lexical-[\w-]+)$/;

function namedBySet(set: SelectorSet): (value: string) => boolean {
  const text = JSON.stringify(set);
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const m of text.matchAll(/([\^~|*$]?)=\\"([^"\\]+)\\"/g)) {
    if (m[1] === '^') prefixes.push(m[2] ?? '');
    else exact.add(m[2] ?? '');
  }
  for (const m of text.matchAll(/#([A-Za-z][\w-]*)/g)) exact.add(m[1] ?? '');
  return (value) => exact.has(value) || prefixes.some((p) => p !== '' && value.startsWith(p));
}

function structuralValue(value: string, named: (value: string) => boolean): boolean {
  const v = value.trim();
  return v === '' || machineToken(v) || named(v) || v.split(/\s+/).every((token) => machineToken(token) || named(token));
}

function isControl(el: Element): boolean {
  return CONTROL_TAGS.has(el.localName) || CONTROL_ROLES.test(el.getAttribute('role') ?? '') || el.hasAttribute('contenteditable');
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function sanitizeAttribute(
  el: Element,
  name: string,
  value: string,
  base: string,
  keep: (text: string) => string | null,
  named: (value: string) => boolean,
): string | null {
  const lower = name.toLowerCase();
  if (lower.startsWith('on') || lower === 'value' || lower === 'srcset' || lower === 'aria-valuetext') return null;
  if (URL_ATTRIBUTES.has(lower)) return reduceUrl(value, base);
  if (TEXT_ATTRIBUTES.has(lower)) {
    const known = keep(value);
    if (known !== null) return known;
    // A control's own label is the page's word; a label that repeats the content it shows is content.
    const repeatsContent = (el.textContent ?? '').replace(/\s+/g, ' ').trim() === value.trim();
    return isControl(el) && value.length <= MAX_LABEL && !repeatsContent && !el.closest('a[href]') ? value : placeholderText(value);
  }
  if (lower === 'style') return value.replace(/url\([^)]*\)/gi, 'none');
  if (lower.startsWith('data-') || lower.startsWith('aria-')) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) return reduceUrl(value, base);
    // aria-* states and references (aria-pressed, aria-controls) are the page's own; data-* may carry a slug.
    if (lower.startsWith('aria-') || DEVELOPER_ATTRIBUTES.test(lower)) return value.length > 40 && /\s/.test(value) ? placeholderText(value) : value;
    return structuralValue(value, named) ? value : placeholderText(value);
  }
  if (lower === 'id') return structuralValue(value, named) ? value : placeholderText(value);
  return KEPT_ATTRIBUTES.has(lower) ? value : null;
}

export function captureDom(doc: Document, set: SelectorSet, meta: CaptureMeta, maxBytes = 8_000_000): Capture {
  const base = doc.location?.href ?? 'https://www.perplexity.ai/';
  const keep = keeper(set);
  const named = namedBySet(set);
  const parts: string[] = [];
  let size = 0;
  let truncated = false;
  const push = (s: string) => {
    parts.push(s);
    size += s.length;
    if (size > maxBytes) truncated = true;
  };

  const walk = (node: Node, inTextarea: boolean): void => {
    if (truncated) return;
    if (node.nodeType === 3) {
      const text = node.nodeValue ?? '';
      const known = inTextarea ? null : keep(text);
      push(escapeText(known ?? placeholderText(text)));
      return;
    }
    if (node.nodeType !== 1) return; // comments, processing instructions
    const el = node as Element;
    const tag = el.localName;
    if (DROPPED.has(tag)) return;
    const attributes: string[] = [];
    for (const attr of Array.from(el.attributes)) {
      const value = sanitizeAttribute(el, attr.name, attr.value, base, keep, named);
      if (value !== null) attributes.push(value === '' ? ` ${attr.name}` : ` ${attr.name}="${escapeAttribute(value)}"`);
    }
    push(`<${tag}${attributes.join('')}>`);
    if (VOID.has(tag)) return;
    if (tag !== 'iframe') for (const child of Array.from(el.childNodes)) walk(child, inTextarea || tag === 'textarea');
    push(`</${tag}>`);
  };

  const html = doc.documentElement;
  const url = reduceUrl(base, base) ?? '';
  push('<!DOCTYPE html>\n');
  push(
    `<!-- comet-relay capture of ${escapeText(url)} on ${meta.capturedAt}; selector set ${escapeText(meta.setName)} (${escapeText(meta.setSource === 'built-in' ? 'built-in' : 'added from a file')}). ` +
      'Texts are placeholders of the same length; URLs are cut to their host. -->\n',
  );
  const rootAttributes = ['lang', 'dir', 'class']
    .map((name) => (html.hasAttribute(name) ? ` ${name}="${escapeAttribute(html.getAttribute(name) ?? '')}"` : ''))
    .join('');
  push(`<html${rootAttributes}><head><meta charset="utf-8"><title>${escapeText(placeholderText(doc.title))}</title></head>`);
  if (doc.body) walk(doc.body, false);
  if (truncated) push('<!-- comet-relay: the page was larger than the capture limit; it stops here. -->');
  push('</html>\n');
  const out = parts.join('');
  return { html: out, url, bytes: out.length, truncated };
}
