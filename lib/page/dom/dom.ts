import { RelayError } from '../../protocol/error/relay-error';
import type { ElementKey, SelectorSet } from '../../selectors';

/**
 * Small DOM helpers shared by the reader and the actions. Everything takes candidate lists from
 * the selector set; no module below lib/selectors spells out a selector of the site.
 */

/** What the query helpers search: the document, an element, or a turn made of sibling blocks (turns.ts). */
export interface Scope {
  querySelectorAll(selector: string): ArrayLike<Element>;
}
type Root = Scope;

function safeAll(root: Root, selector: string): Element[] {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch {
    return []; // an unparsable candidate is a miss, not a crash
  }
}

/** First element matched by the first candidate that matches anything. */
export function first(root: Root, candidates: readonly string[]): Element | null {
  for (const selector of candidates) {
    const found = safeAll(root, selector)[0];
    if (found) return found;
  }
  return null;
}

/** All elements matched by the first candidate that matches anything (candidates are alternatives). */
export function all(root: Root, candidates: readonly string[]): Element[] {
  for (const selector of candidates) {
    const found = safeAll(root, selector);
    if (found.length > 0) return found;
  }
  return [];
}

/** All elements matched by any candidate, deduplicated, in document order. */
export function union(root: Root, candidates: readonly string[]): Element[] {
  const seen = new Set<Element>();
  for (const selector of candidates) for (const el of safeAll(root, selector)) seen.add(el);
  return sortInDocumentOrder([...seen]);
}

export function sortInDocumentOrder<T extends Node>(nodes: T[]): T[] {
  return nodes.sort((a, b) => (a.compareDocumentPosition(b) & 4 /* FOLLOWING */ ? -1 : a === b ? 0 : 1));
}

export function matches(el: Element, candidates: readonly string[]): boolean {
  return candidates.some((s) => {
    try {
      return el.matches(s);
    } catch {
      return false;
    }
  });
}

export function closest(el: Element, candidates: readonly string[]): Element | null {
  for (let cur: Element | null = el; cur; cur = cur.parentElement) if (matches(cur, candidates)) return cur;
  return null;
}

/** Keeps only elements with no ancestor in the list (nested `.prose` counted once, not twice). */
export function outermost(elements: Element[]): Element[] {
  const set = new Set(elements);
  return elements.filter((el) => {
    for (let p = el.parentElement; p; p = p.parentElement) if (set.has(p)) return false;
    return true;
  });
}

/**
 * Hidden by markup or style. Cheap checks first; computed style only where the DOM offers it.
 * Layout-free (no offsetParent), so it works in tests and in background tabs alike.
 */
export function isHidden(el: Element, ignore: readonly string[] = []): boolean {
  for (let cur: Element | null = el; cur; cur = cur.parentElement) {
    if (ignore.length > 0 && matches(cur, ignore)) continue;
    if (cur.hasAttribute('hidden') || cur.getAttribute('aria-hidden') === 'true') return true;
    const style = (cur as HTMLElement).style;
    if (style && (style.display === 'none' || style.visibility === 'hidden')) return true;
  }
  const view = el.ownerDocument.defaultView;
  if (ignore.length === 0 && view?.getComputedStyle) {
    const cs = view.getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') return true;
  }
  return false;
}

export function isDisabled(el: Element): boolean {
  return el.hasAttribute('disabled') || el.getAttribute('aria-disabled') === 'true';
}

/** The `#pplx-icon-…` fragment of the first `<use>` inside el (href or xlink:href). */
export function iconsIn(el: Element, set: SelectorSet): string[] {
  return union(el, set.iconUse)
    .map((u) => u.getAttribute('href') ?? u.getAttribute('xlink:href') ?? '')
    .map((href) => {
      const i = href.indexOf('#');
      return i >= 0 ? href.slice(i) : '';
    })
    .filter(Boolean);
}

/**
 * Text a screen reader would announce: without aria-hidden copies (doubled titles) and, if asked,
 * without the text of buttons inside (an error box's "Retry").
 */
export function spokenText(el: Element | null | undefined, skipButtons = false): string {
  if (!el) return '';
  let s = '';
  const walk = (n: Node): void => {
    if (n.nodeType === 3) s += n.nodeValue ?? '';
    else if (n.nodeType === 1) {
      const e = n as Element;
      if (e.getAttribute('aria-hidden') === 'true' || (skipButtons && e.tagName === 'BUTTON')) return;
      for (const c of Array.from(e.childNodes)) walk(c);
    }
  };
  walk(el);
  return s.replace(/\s+/g, ' ').trim();
}

/** Collapses whitespace; what a person would call "the text" of a short element. */
export function cleanText(el: { textContent: string | null } | null | undefined): string {
  return (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The full pointer sequence a user's click produces. Radix triggers on Chromium 153+ open only on
 * it, never on a bare `.click()`; ordinary buttons are indifferent to the extra events.
 */
export function pointerClick(el: Element): void {
  const view = el.ownerDocument.defaultView as (Window & typeof globalThis) | null;
  if (!view) throw new RelayError('EVALUATION_FAILED', 'the element is not attached to a window');
  const base = { bubbles: true, cancelable: true, composed: true, button: 0, view };
  const pointer = { ...base, pointerId: 1, pointerType: 'mouse', isPrimary: true };
  const PE = view.PointerEvent ?? view.MouseEvent;
  el.dispatchEvent(new PE('pointerdown', { ...pointer, buttons: 1 }));
  el.dispatchEvent(new view.MouseEvent('mousedown', { ...base, buttons: 1 }));
  if (el instanceof view.HTMLElement) el.focus({ preventScroll: true });
  el.dispatchEvent(new PE('pointerup', { ...pointer, buttons: 0 }));
  el.dispatchEvent(new view.MouseEvent('mouseup', { ...base, buttons: 0 }));
  el.dispatchEvent(new view.MouseEvent('click', { ...base, buttons: 0, detail: 1 }));
}

export function pressKey(target: Element | Document, key: string, extra: KeyboardEventInit = {}): boolean {
  const doc = target instanceof Document ? target : target.ownerDocument;
  const view = doc.defaultView as (Window & typeof globalThis) | null;
  if (!view) return false;
  const codes: Record<string, number> = { Enter: 13, Escape: 27, Backspace: 8 };
  const init = { key, code: key, keyCode: codes[key] ?? 0, which: codes[key] ?? 0, bubbles: true, cancelable: true, composed: true, ...extra };
  const notCancelled = target.dispatchEvent(new view.KeyboardEvent('keydown', init));
  if (key === 'Enter') target.dispatchEvent(new view.KeyboardEvent('keypress', { ...init, charCode: 13 }));
  target.dispatchEvent(new view.KeyboardEvent('keyup', init));
  return notCancelled;
}

/** What a person can do when a probe misses because the page is not the right one. */
const HINTS: Partial<Record<ElementKey, string>> = {
  composer: 'open a Perplexity home or thread page',
  turn: 'open a Perplexity thread page',
  answer: 'open a Perplexity thread page',
  modeChip: 'open a Perplexity home or thread page',
  typeahead: 'open the Perplexity home page',
  newThread: 'navigate to https://www.perplexity.ai/ first',
};

export interface MissDetail {
  /** Where the probe looked, when not the whole page (" inside the question box"). */
  within?: string;
  /** What was tried first (" after clicking the mode chip twice"). */
  after?: string;
  /** Overrides the probe's own hint. */
  hint?: string;
}

/**
 * SELECTOR_MISS naming the probe that matched nothing, every candidate it tried, and the page:
 * `composer: none of `#ask-input`, … matched on https://…`. The driver adds which selector set
 * (and where it came from) to every miss that leaves it.
 */
export function probeMiss(set: SelectorSet, key: ElementKey, url: string, detail: MissDetail = {}): RelayError {
  return candidatesMiss(key, set[key], url, { ...detail, hint: detail.hint ?? HINTS[key] });
}

/** The same for any named list of candidates: a selector set's probe, a thread reader's field. */
export function candidatesMiss(probe: string, candidates: readonly string[], url: string, detail: MissDetail = {}): RelayError {
  const tried = candidates.map((selector) => `\`${selector}\``).join(', ');
  return new RelayError(
    'SELECTOR_MISS',
    `${probe}: none of ${tried} matched${detail.within ?? ''} on ${url}${detail.after ?? ''}${detail.hint ? ` — ${detail.hint}` : ''}`,
  );
}

/** Finds an element or throws SELECTOR_MISS naming the probe and the page. */
export function requireEl(root: Root, set: SelectorSet, key: ElementKey, url: string): Element {
  const el = first(root, set[key]);
  if (!el) throw probeMiss(set, key, url);
  return el;
}
