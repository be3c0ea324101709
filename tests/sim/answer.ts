/**
 * The answer model: how many "tokens" an answer has (the unit the stream reveals) and how a prefix of it
 * renders as HTML, per UI generation. Pure string code shared by the server (token counts) and the page
 * script (rendering), so a finished answer renders identically whether streamed or loaded.
 */
import type { Block, Generation, Inline, Source, ThreadLayout } from './types';

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `<svg><use>` naming an icon of the sprite, with both `href` and `xlink:href` like the real page. */
export function iconHtml(name: string, cls = 'icon'): string {
  return `<svg class="${cls}" aria-hidden="true" fill="none" viewBox="0 0 24 24"><use href="#${name}" xlink:href="#${name}"></use></svg>`;
}

const WORD = /\s*\S+/g;

function words(s: string): string[] {
  return s.match(WORD) ?? [];
}

function inlineTokens(i: Inline): number {
  if (typeof i === 'string') return words(i).length;
  if ('bold' in i) return words(i.bold).length;
  return 1;
}

function inlinesTokens(list: Inline[]): number {
  return list.reduce((n, i) => n + inlineTokens(i), 0);
}

export function blockTokens(b: Block): number {
  switch (b.type) {
    case 'h2':
    case 'h3':
      return words(b.text).length;
    case 'p':
      return inlinesTokens(b.inlines);
    case 'ul':
    case 'ol':
      return b.items.reduce((n, it) => n + inlinesTokens(it), 0);
    case 'code':
      return b.code.split('\n').length;
    case 'nested':
      return answerTokens(b.blocks);
  }
}

export function answerTokens(blocks: Block[]): number {
  return blocks.reduce((n, b) => n + blockTokens(b), 0);
}

/** Short name + count of further sources: `reuters+2`. */
export function citationLabel(group: number[], sources: Source[]): string {
  const first = sources[group[0] ?? 0];
  const name = first?.name ?? 'source';
  return group.length > 1 ? `${name}+${group.length - 1}` : name;
}

/** A grouped chip as the captured layouts write it, with a space: `dlapiper +2` (reported live 2026-09-21). */
export function chipLabel(group: number[], sources: Source[]): string {
  const name = sources[group[0] ?? 0]?.name ?? 'source';
  return group.length > 1 ? `${name} +${group.length - 1}` : name;
}

export interface SourceTrust {
  level: number;
  name: string;
  description: string;
}

/**
 * How far the simulated site trusts a turn's n-th source (our rule, deterministic): even places (0, 2, …) are
 * "trusted" (level 2), odd places "credible" (level 1). The thread JSON's `trust` object says it (always an
 * object, as every web result of the real bodies of 2026-07-31 and 2026-08-01 has one), and the Sep 2026 chip
 * shows the "trusted" icon for it.
 */
export function sourceTrust(index: number): SourceTrust {
  return index % 2 === 0
    ? { level: 2, name: 'trusted', description: 'is trusted by the simulated site: one of its own fixtures' }
    : { level: 1, name: 'credible', description: 'is credible to the simulated site, which wrote it for a test' };
}

/** Whether the chip of a group led by the n-th source carries the "trusted" icon (Sep 2026 layout). */
export function trustedSource(index: number): boolean {
  return sourceTrust(index).level >= 2;
}

export interface RenderCtx {
  generation: Generation;
  /** Absent: turn-2026-04 (the citations then follow the generation). */
  layout?: ThreadLayout;
  sources: Source[];
  /** PageVariants.groupedBadges */
  groupedBadges?: boolean;
}

/** One generation-A badge per source, wrapped in <a href> (title-only sources get no link). */
export function sourceBadgesHtml(group: number[], sources: Source[]): string {
  return group
    .map((idx) => {
      const s = sources[idx];
      if (!s) return '';
      const badge = `<span class="citation-badge">${esc(s.name)}</span>`;
      return s.url
        ? `<a href="${esc(s.url)}" target="_blank" rel="noopener" class="citation ml-xs inline" aria-label="${esc(s.title)}">${badge}</a>`
        : `<span class="citation ml-xs inline">${badge}</span>`;
    })
    .join('');
}

/**
 * The Sep 2026 chip's label (the several-turns capture of 2026-09-26): a "trusted" icon (`span[role=img]` with its
 * test id and a label of its own) in a box of its own before the name, on sources the sim trusts; the name in one span;
 * `+N` in a sibling span (grouped chips only). A space separates the name's span from the count's, as the capture's
 * text nodes do, so the chip's text reads `name +N` as the live report of 2026-09-21 has it.
 */
function sessionsChipLabel(group: number[], sources: Source[]): string {
  const lead = group[0] ?? 0;
  const name = sources[lead]?.name ?? 'source';
  const icon = trustedSource(lead)
    ? `<span class="chip-mark inline-flex shrink-0 items-center mr-1"><span role="img" aria-label="Trusted source" data-testid="trusted-citation-check" class="inline-flex shrink-0 items-center">${iconHtml('pplx-icon-circle-check', 'icon chip-icon')}</span></span>`
    : '';
  const more = group.length > 1 ? ` <span class="chip-more"><span>+${group.length - 1}</span></span>` : '';
  return `<span class="chip-pill inline-flex items-center">${icon}<span class="chip-name inline-block">${esc(name)}</span>${more}</span>`;
}

function citationHtml(group: number[], ctx: RenderCtx): string {
  const first = ctx.sources[group[0] ?? 0];
  if (ctx.layout === 'sessions-2026-09') {
    // Sep 2026: the Aug chip's outer span, trigger and inner span, the label split (sessionsChipLabel).
    return (
      '<span class="citation-nbsp">&nbsp;</span>' +
      `<span class="citation inline" data-pplx-citation="" data-pplx-citation-url="${esc(first?.url ?? '')}">` +
      '<span class="group/trigger inline-flex" data-state="closed" role="button" tabindex="0">' +
      `<span class="citation inline"><span class="relative">${sessionsChipLabel(group, ctx.sources)}</span></span></span></span>`
    );
  }
  if (ctx.layout === 'blocks-2026-08') {
    // Aug–Oct 2026 (SaysWho's excerpt of 2026-08-11, a report of 2026-09-21): an outer span carrying the
    // URL, a hover trigger, an inner span of the same class with no attributes; no <a href> anywhere. The trigger
    // holds the first source's full title as its aria-label (MrJ55's excerpt of 2026-08-07).
    return (
      '<span class="citation-nbsp">&nbsp;</span>' +
      `<span class="citation inline" data-pplx-citation="" data-pplx-citation-url="${esc(first?.url ?? '')}">` +
      `<span class="group/trigger inline-flex" data-state="closed" role="button" tabindex="0" aria-label="${esc(first?.title ?? '')}">` +
      `<span class="citation inline"><span class="relative">${esc(chipLabel(group, ctx.sources))}</span></span></span></span>`
    );
  }
  if (ctx.layout === 'markdown-2026-02') {
    // February 2026 (the obsidian-AI-exporter captures): the same outer span, wrapping an <a href> to the first source.
    const label = `<span class="relative"><span>${esc(chipLabel(group, ctx.sources))}</span></span>`;
    const inner = first?.url ? `<a href="${esc(first.url)}" target="_blank" rel="noopener">${label}</a>` : label;
    return (
      '<span class="citation-nbsp">&nbsp;</span>' +
      `<span aria-label="${esc(first?.title ?? '')}" data-state="closed">` +
      `<span class="citation inline" data-pplx-citation="" data-pplx-citation-url="${esc(first?.url ?? '')}">${inner}</span></span>`
    );
  }
  if (ctx.generation === 'A' && ctx.groupedBadges && group.length > 1) {
    // One badge for the group, no URL of its own: it expands in place when clicked (client/variants.ts).
    return (
      `<span class="citation ml-xs inline" role="button" tabindex="0" aria-expanded="false" data-citation-group="${group.join(',')}">` +
      `<span class="citation-badge">${esc(citationLabel(group, ctx.sources))}</span></span>`
    );
  }
  if (ctx.generation === 'A') return sourceBadgesHtml(group, ctx.sources);
  // Generation B: no <a href> in the answer; the URL of the first source lives in a data attribute.
  return (
    '<span class="citation-nbsp">&nbsp;</span>' +
    `<span class="citation inline" data-pplx-citation="" data-pplx-citation-url="${esc(first?.url ?? '')}">` +
    `<span class="citation-chip" role="button" tabindex="0">${esc(citationLabel(group, ctx.sources))}</span></span>`
  );
}

/** Renders up to `budget` tokens of the inlines; returns html and the tokens used. */
function inlinesHtml(list: Inline[], budget: number, ctx: RenderCtx): { html: string; used: number } {
  let html = '';
  let used = 0;
  for (const i of list) {
    if (used >= budget) break;
    if (typeof i === 'string' || 'bold' in i) {
      const text = typeof i === 'string' ? i : i.bold;
      const ws = words(text);
      const take = Math.min(ws.length, budget - used);
      const shown = take === ws.length ? text : ws.slice(0, take).join('');
      html += typeof i === 'string' ? esc(shown) : `<strong>${esc(shown)}</strong>`;
      used += take;
    } else if ('cite' in i) {
      html += citationHtml(i.cite, ctx);
      used += 1;
    } else {
      html += `<code>${esc(i.code)}</code>`;
      used += 1;
    }
  }
  return { html, used };
}

/** HTML of one top-level block showing at most `budget` of its tokens (Infinity = all). */
export function blockHtml(b: Block, budget: number, ctx: RenderCtx): string {
  switch (b.type) {
    case 'h2':
    case 'h3': {
      const ws = words(b.text);
      const text = budget >= ws.length ? b.text : ws.slice(0, budget).join('');
      const cls = b.type === 'h2' ? 'mb-2 mt-6 text-lg font-semibold' : 'mb-2 mt-4 text-base font-semibold';
      return `<${b.type} class="${cls}">${esc(text)}</${b.type}>`;
    }
    case 'p':
      return `<p class="my-0">${inlinesHtml(b.inlines, budget, ctx).html}</p>`;
    case 'ul':
    case 'ol': {
      let left = budget;
      let items = '';
      for (const it of b.items) {
        if (left <= 0) break;
        const r = inlinesHtml(it, left, ctx);
        left -= r.used;
        // Each item's text in a paragraph, as the live renderer draws it (the 2026-02-27 and 2026-09-26 captures).
        items += `<li class="py-0"><p class="my-0">${r.html}</p></li>`;
      }
      const cls = b.type === 'ul' ? 'marker:text-quiet list-disc' : 'marker:text-quiet list-decimal';
      return `<${b.type} class="${cls}">${items}</${b.type}>`;
    }
    case 'code': {
      const lines = b.code.split('\n');
      const code = budget >= lines.length ? b.code : lines.slice(0, budget).join('\n');
      return (
        '<div class="w-full code-block"><div class="rounded-lg border bg-offset">' +
        '<div class="flex items-center justify-between code-head">' +
        `<div data-testid="code-language-indicator" class="text-xs text-quiet">${esc(b.lang)}</div>` +
        `<button type="button" data-testid="copy-code-button" aria-label="Copy code" class="icon-btn">${iconHtml('pplx-icon-copy')}</button>` +
        `</div><pre><code class="language-${esc(b.lang)}">${esc(code)}</code></pre></div></div>`
      );
    }
    case 'nested': {
      let left = budget;
      let inner = '';
      for (const nb of b.blocks) {
        if (left <= 0) break;
        const n = blockTokens(nb);
        inner += blockHtml(nb, left, ctx);
        left -= n;
      }
      return (
        `<div class="nested-card rounded-lg border bg-offset"><div class="text-xs font-medium text-quiet">${esc(b.title)}</div>` +
        // February 2026 nests its `.prose` without `data-renderer` (the 02-27 deep research capture), as its outer one.
        `<div class="prose inline leading-relaxed break-words min-w-0"${ctx.layout === 'markdown-2026-02' ? '' : ' data-renderer="lm"'}>${inner}</div></div>`
      );
    }
  }
}

/** Citation groups in document order (what the n-th `.citation` element of an answer stands for). */
export function citationGroups(blocks: Block[]): number[][] {
  const out: number[][] = [];
  const walkInlines = (list: Inline[]) => {
    for (const i of list) if (typeof i !== 'string' && 'cite' in i) out.push(i.cite);
  };
  const walk = (bs: Block[]) => {
    for (const b of bs) {
      if (b.type === 'p') walkInlines(b.inlines);
      else if (b.type === 'ul' || b.type === 'ol') b.items.forEach(walkInlines);
      else if (b.type === 'nested') walk(b.blocks);
    }
  };
  walk(blocks);
  return out;
}

/** Plain text of the whole answer (thread snippets in the library). */
export function answerPlainText(blocks: Block[]): string {
  const inl = (list: Inline[]) =>
    list.map((i) => (typeof i === 'string' ? i : 'bold' in i ? i.bold : 'code' in i ? i.code : '')).join('');
  return blocks
    .map((b) => {
      if (b.type === 'p') return inl(b.inlines);
      if (b.type === 'h2' || b.type === 'h3') return b.text;
      if (b.type === 'ul' || b.type === 'ol') return b.items.map(inl).join('\n');
      if (b.type === 'code') return b.code;
      if (b.type === 'nested') return answerPlainText(b.blocks);
      return '';
    })
    .join('\n');
}
