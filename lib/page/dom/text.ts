import type { SelectorSet } from '../../selectors';
import { first, matches } from './dom';

/**
 * Turns a DOM subtree into text the way a reader sees it: paragraphs, headings, list items
 * ("- " / "1. ") and code blocks keep their line structure. Walking the live DOM avoids the
 * detached-clone `innerText` trap (no layout → no line breaks).
 */
export interface RenderOptions {
  /** Subtrees that are page chrome, not text (copy buttons, spacers, icons, scripts). */
  skip: readonly string[];
  /** Where a code block's language label lives (read, not printed as text). */
  codeLanguage?: readonly string[];
  /** Inline citations: printed as " [name+N]" in markdown mode. */
  citation?: readonly string[];
  /** The attribute of a citation that holds its URL (the set's `citationUrlAttr`). */
  citationUrl?: string;
  /** Typeset formulas, printed once as their TeX source (`$…$` in markdown mode), and where that source is. */
  math?: { formula: readonly string[]; source: readonly string[]; display: readonly string[] };
  /** Markdown markers for headings, code and citations; plain text otherwise. */
  markdown: boolean;
  /** Also drop elements hidden by computed style (page content); answers only check markup. */
  computedVisibility?: boolean;
  /**
   * Keep the line breaks of text the page shows on several lines (computed `white-space: pre…`): a question typed
   * on several lines (captures review L1). The browser's own layout says so, whatever the class that sets it.
   */
  lines?: boolean;
}

const PARAGRAPH = new Set(['P', 'BLOCKQUOTE', 'TABLE', 'FIGURE', 'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'DL', 'MAIN', 'FORM']);
const LINE = new Set(['DIV', 'TR', 'DT', 'DD', 'FIGCAPTION', 'NAV', 'ASIDE', 'CAPTION', 'ADDRESS', 'DETAILS', 'SUMMARY', 'LABEL']);
const ALWAYS_SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'svg', 'SVG', 'IFRAME']);

/**
 * The output, kept as pieces so that every operation looks only at its end: re-scanning the whole
 * text for trailing blanks on every block made a long answer quadratic (a 420 kB answer held the
 * Perplexity tab for 13 s; review of 2026-12-02, #8). `tests/unit/render-cost.test.ts` holds the curve.
 */
class Writer {
  private readonly parts: string[] = [];
  indent = '';
  /**
   * Emphasis marks opened but not written yet: they go right before the next visible word, after its leading space
   * and after a heading's or a list item's marker, so an emphasis that shows nothing writes nothing (page review
   * 2026-12-05, F3). Marks written (`live`) are closed at every break and cell's end and opened again before the
   * next word: Markdown's emphasis ends with its line, its cell, its paragraph (F4; day-7c review T1–T3).
   */
  opened = '';
  private live = '';
  /** Inside a table cell: a line break would end the row, so every break is a space, and every `|` is escaped. */
  flat = 0;
  /** The output's length in parts right after a list item's marker: the item's first paragraph goes on its line. */
  private markerAt = -1;

  get out(): string {
    return this.parts.join('');
  }

  private last(): string {
    return this.parts[this.parts.length - 1] ?? '';
  }

  private atLineStart(): boolean {
    return this.parts.length === 0 || this.last().endsWith('\n');
  }

  /** Writes a list item's marker (`- `, `1. `). */
  itemMarker(t: string): void {
    this.text(t, true);
    this.markerAt = this.parts.length;
  }

  /** Nothing written since a list item's marker. */
  atMarker(): boolean {
    return this.markerAt === this.parts.length;
  }

  /** Writes `t`; a `marker` (a heading's `#`, a list item's `- `, a table's pipes) is not a word an emphasis opens at. */
  text(t: string, marker?: boolean): void {
    if (this.flat) t = t.replace(/\|/g, '\\|');
    if (this.opened && !marker && t.trim()) {
      const marks = this.opened;
      this.live += marks;
      this.opened = '';
      if (t[0] === ' ') this.text(' ');
      t = marks + t.trimStart();
    }
    if (!t) return;
    if (this.atLineStart()) {
      t = t.replace(/^ +/, '');
      if (!t) return;
      this.parts.push(this.indent + t);
    } else {
      if (this.last().endsWith(' ') && t.startsWith(' ')) t = t.slice(1);
      if (t) this.parts.push(t);
    }
  }

  /** Preformatted lines (code), indented like the surrounding list item. */
  raw(block: string): void {
    if (this.flat) return void this.text(` ${block.replace(/\s+/g, ' ')} `);
    const lines = block.split('\n');
    const text = lines.map((l) => (l ? this.indent + l : l)).join('\n');
    if (text) this.parts.push(text);
  }

  /** Ends an emphasis: nothing when it wrote no word since it was (re)opened, else its mark after its last word, before the blanks that followed it. */
  close(mark: string): void {
    if (this.opened) {
      this.opened = this.opened.slice(0, -mark.length);
      return;
    }
    this.live = this.live.slice(0, -mark.length);
    const blank = /[ \t]$/.test(this.last());
    this.trimTrailingBlanks();
    this.parts.push(blank ? `${mark} ` : mark);
  }

  /** Closes the emphases written so far (at a break, at a cell's end); they open again before the next word. */
  suspend(): void {
    if (!this.live) return;
    this.trimTrailingBlanks();
    this.parts.push(this.live);
    this.opened = this.live + this.opened;
    this.live = '';
  }

  /** Drops spaces and tabs at the very end, looking back only as far as they go. */
  trimTrailingBlanks(): void {
    while (this.parts.length > 0) {
      const s = this.last();
      let i = s.length;
      while (i > 0 && (s[i - 1] === ' ' || s[i - 1] === '\t')) i--;
      if (i === s.length) return;
      if (i > 0) {
        this.parts[this.parts.length - 1] = s.slice(0, i);
        return;
      }
      this.parts.pop();
    }
  }

  /** How many line breaks end the output, counted back from its end only. */
  private trailingBreaks(): number {
    let n = 0;
    for (let p = this.parts.length - 1; p >= 0; p--) {
      const s = this.parts[p] ?? '';
      let i = s.length;
      while (i > 0 && s[i - 1] === '\n') i--;
      n += s.length - i;
      if (i > 0) break;
    }
    return n;
  }

  /** Ensures the output ends with at least n line breaks (none at the very start). */
  breaks(n: number): void {
    if (this.flat) return void this.text(' ');
    this.suspend();
    this.trimTrailingBlanks();
    if (this.parts.length === 0) return;
    const trailing = this.trailingBreaks();
    if (trailing < n) this.parts.push('\n'.repeat(n - trailing));
  }

  hardBreak(): void {
    if (this.flat) return void this.text(' ');
    this.suspend();
    this.trimTrailingBlanks();
    this.parts.push('\n');
  }
}

/** The set's formula selectors as renderText takes them, when it names them. */
export function mathOf(set: SelectorSet): RenderOptions['math'] {
  return set.mathFormula && set.mathSource ? { formula: set.mathFormula, source: set.mathSource, display: set.mathDisplay ?? [] } : undefined;
}

export function renderText(roots: Element | Element[], options: RenderOptions): string {
  const w = new Writer();
  let listDepth = 0;
  /** The emphases being written (`**`, `*`). */
  const inside = new Set<string>();

  const skipped = (el: Element): boolean => {
    if (ALWAYS_SKIP.has(el.tagName) || el.namespaceURI === 'http://www.w3.org/2000/svg') return true;
    if (matches(el, options.skip)) return true;
    if (el.hasAttribute('hidden')) return true;
    const style = (el as HTMLElement).style;
    if (style && (style.display === 'none' || style.visibility === 'hidden')) return true;
    if (options.computedVisibility !== true) return false;
    // Ancestors were checked on the way down; only this element's own computed style is new.
    const cs = el.ownerDocument.defaultView?.getComputedStyle(el);
    return cs !== undefined && (cs.display === 'none' || cs.visibility === 'hidden');
  };

  const children = (el: Element): void => {
    for (const child of Array.from(el.childNodes)) visit(child);
  };

  const codeText = (el: Element): string => {
    let s = '';
    const walk = (n: Node): void => {
      if (n.nodeType === 3) s += n.nodeValue ?? '';
      else if (n.nodeType === 1) {
        const e = n as Element;
        if (e.tagName === 'BR') s += '\n';
        else if (!skipped(e)) for (const c of Array.from(e.childNodes)) walk(c);
      }
    };
    walk(el);
    return s.replace(/\n+$/, '');
  };

  const codeLanguageOf = (pre: Element): string => {
    const own = pre.querySelector('code[class*="language-"]')?.className.match(/language-([\w+#.-]+)/)?.[1];
    if (own) return own;
    if (!options.codeLanguage) return '';
    // The label sits in a header beside the <pre>; climb until an ancestor holds it, but stop
    // before an ancestor that holds other code blocks (their labels are not ours).
    for (let anc = pre.parentElement, i = 0; anc && i < 4; anc = anc.parentElement, i++) {
      if (anc.querySelectorAll('pre').length > 1) break;
      for (const sel of options.codeLanguage) {
        const label = anc.querySelector(sel);
        if (label) return (label.textContent ?? '').trim();
      }
    }
    return '';
  };

  const visit = (node: Node): void => {
    if (node.nodeType === 3) {
      const parent = node.parentElement;
      const kept = options.lines && parent && /^pre/.test(parent.ownerDocument.defaultView?.getComputedStyle(parent).whiteSpace ?? '');
      (kept ? (node.nodeValue ?? '').split('\n') : [node.nodeValue ?? '']).forEach((line, i) => {
        if (i) w.hardBreak();
        w.text(line.replace(/[\s\u00a0]+/g, ' '));
      });
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const tag = el.tagName;
    if (options.citation && matches(el, options.citation)) {
      const label = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
      // The chip's URL stays with it, as the thread JSON and the stream link theirs (captures review 2026-12-05, M2).
      const url = options.citationUrl && el.getAttribute(options.citationUrl);
      if (label) w.text(options.markdown ? ` [${label}]${url ? `(${url})` : ''}` : ` ${label}`);
      return;
    }
    if (skipped(el)) return;
    if (options.math && matches(el, options.math.formula)) {
      const tex = first(el, options.math.source)?.textContent?.trim();
      if (tex) {
        const display = el.parentElement !== null && matches(el.parentElement, options.math.display);
        if (display) w.breaks(1);
        w.text(options.markdown ? (display ? `$$${tex}$$` : `$${tex}$`) : tex);
        if (display) w.breaks(1);
        return;
      }
    }

    if (/^H[1-6]$/.test(tag)) {
      w.breaks(2);
      if (options.markdown) w.text(`${'#'.repeat(Number(tag[1]))} `, true);
      children(el);
      w.breaks(2);
      return;
    }
    switch (tag) {
      case 'BR':
        w.hardBreak();
        return;
      case 'HR':
        w.breaks(2);
        w.text('---', true);
        w.breaks(2);
        return;
      case 'PRE': {
        w.breaks(listDepth > 0 ? 1 : 2);
        const code = codeText(el);
        w.raw(options.markdown ? `\`\`\`${codeLanguageOf(el)}\n${code}\n\`\`\`` : code);
        w.breaks(listDepth > 0 ? 1 : 2);
        return;
      }
      case 'CODE':
        w.text(options.markdown ? `\`${(el.textContent ?? '').replace(/\s+/g, ' ')}\`` : (el.textContent ?? ''));
        return;
      case 'UL':
      case 'OL': {
        w.breaks(listDepth > 0 ? 1 : 2);
        let n = tag === 'OL' ? Number(el.getAttribute('start') ?? '1') || 1 : 0;
        listDepth++;
        for (const child of Array.from(el.childNodes)) {
          if (child.nodeType === 1 && (child as Element).tagName === 'LI' && !skipped(child as Element)) {
            const marker = tag === 'OL' ? `${n++}. ` : '- ';
            w.breaks(1);
            w.itemMarker(marker);
            const saved = w.indent;
            w.indent += ' '.repeat(marker.length);
            children(child as Element);
            w.indent = saved;
            w.breaks(1);
          } else visit(child);
        }
        listDepth--;
        w.breaks(listDepth > 0 ? 1 : 2);
        return;
      }
      case 'TD':
      case 'TH': {
        const prev = el.previousElementSibling;
        if (prev && (prev.tagName === 'TD' || prev.tagName === 'TH')) w.text(' | ', true);
        // A cell is one line of its row: its paragraphs, lists and code flow on it; a `|` in it is escaped (Markdown).
        if (options.markdown) w.flat++;
        children(el);
        w.suspend();
        if (options.markdown) w.flat--;
        return;
      }
    }
    // In Markdown as the site's own (the thread JSON's, 2026-07-31 and 2026-08-01 captures): **bold**, *italics*, and a
    // table's rows between pipes, its header row followed by `| --- |` for each of its cells.
    if (options.markdown) {
      const mark = tag === 'STRONG' || tag === 'B' ? '**' : tag === 'EM' || tag === 'I' ? '*' : '';
      // An emphasis inside one of its own kind adds nothing, and its marks beside the outer's would read as the other
      // kind (`*x *a**` is bold): it is written as its words (day-7d review F3).
      if (mark && !inside.has(mark)) {
        // The marks hug the words: spaces and breaks at the edges go outside them (`<strong> bold </strong>` → ` **bold** `).
        inside.add(mark);
        w.opened += mark;
        children(el);
        w.close(mark);
        inside.delete(mark);
        return;
      }
      if (tag === 'TR') {
        w.breaks(1);
        w.text('| ', true);
        children(el);
        w.text(' |', true);
        if (el.querySelector(':scope > th') && !el.querySelector(':scope > td')) {
          w.breaks(1);
          w.text(`|${' --- |'.repeat(el.children.length)}`, true);
        }
        w.breaks(1);
        return;
      }
    }
    if (PARAGRAPH.has(tag)) {
      // The site draws each list item's text in a paragraph (`<li><p>`: the 2026-02-27 and 2026-09-26 captures) and
      // writes `- item` (its thread JSON): the item's first paragraph continues the marker's line, a second one in
      // the same item is a paragraph of its own, after a blank line (review 13a, L1).
      const n = listDepth > 0 && !(el.parentElement?.tagName === 'LI' && el.previousElementSibling?.tagName === 'P') ? 1 : 2;
      if (!w.atMarker()) w.breaks(n);
      children(el);
      w.breaks(n);
      return;
    }
    // Page content: elements laid out as blocks by CSS (a flex nav link) also break lines.
    if (options.computedVisibility && !LINE.has(tag) && tag !== 'LI') {
      const display = el.ownerDocument.defaultView?.getComputedStyle(el).display ?? '';
      if (/^(block|flex|grid|list-item|table)$/.test(display)) {
        w.breaks(1);
        children(el);
        w.breaks(1);
        return;
      }
    }
    if (LINE.has(tag) || tag === 'LI') {
      w.breaks(1);
      children(el);
      w.breaks(1);
      return;
    }
    children(el);
  };

  for (const root of Array.isArray(roots) ? roots : [roots]) {
    w.breaks(2);
    visit(root);
  }
  // No global whitespace clean-up: it would also rewrite blank lines inside code blocks.
  // trimEnd drops what `\s+$` would, without a regex that backtracks over every blank run.
  return w.out.replace(/^\n+/, '').trimEnd();
}
