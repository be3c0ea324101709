import type { PageContext } from '../dom/context';
import { CITATION_TRIGGER_2026 } from '../../selectors/citation-trigger';
import { all, closest, first, isHidden, outermost, pointerClick, pressKey, type Scope, union } from '../dom/dom';
import { turnNow, turnsOf } from '../dom/turns';
import { sameConversation } from '../../protocol/threads/thread-ids';
import { fromBadges, fromEntries, groupedCount, type Source } from './sources';

/**
 * Opens each grouped citation ("reuters+2") of the current answer one at a time, reads the
 * popover's entries (title and URL, or title alone) or the badges it expanded in place, and
 * closes or folds it again. Hover events come
 * first because some popovers open on hover, and a real pointer always hovers before it clicks.
 */

/** Popovers shown now (visible, with entries): any dialog of the page may look like one. */
function shownPopovers(ctx: PageContext): Element[] {
  return union(ctx.doc, ctx.set.citationPopover).filter((p) => !isHidden(p) && all(p, ctx.set.citationPopoverEntry).length > 0);
}

/**
 * The popover this citation opened, and no other (#16 of the 2026-12-02 review: a cookie banner's
 * links are not the answer's sources): one that was not shown before the click and, where the
 * trigger names what it controls (Radix's aria-controls / aria-describedby), that one.
 */
function openedBy(ctx: PageContext, trigger: Element, before: ReadonlySet<Element>): Element | null {
  const ids = [trigger, ...Array.from(trigger.querySelectorAll('[aria-controls], [aria-describedby]'))]
    .flatMap((e) => `${e.getAttribute('aria-controls') ?? ''} ${e.getAttribute('aria-describedby') ?? ''}`.split(/\s+/))
    .filter(Boolean);
  const named = (p: Element) => [p, ...Array.from(p.querySelectorAll('[id]'))].some((e) => ids.includes(e.id));
  return shownPopovers(ctx).find((p) => !before.has(p) && (ids.length === 0 || named(p))) ?? null;
}

function hover(el: Element, ctx: PageContext): void {
  const view = ctx.win as Window & typeof globalThis;
  const PE = view.PointerEvent ?? view.MouseEvent;
  el.dispatchEvent(new PE('pointerover', { bubbles: true, pointerId: 1, pointerType: 'mouse' }));
  el.dispatchEvent(new PE('pointerenter', { bubbles: false, pointerId: 1, pointerType: 'mouse' }));
  el.dispatchEvent(new view.MouseEvent('mouseover', { bubbles: true }));
  el.dispatchEvent(new view.MouseEvent('mouseenter', { bubbles: false }));
}

function unhover(el: Element, ctx: PageContext): void {
  const view = ctx.win as Window & typeof globalThis;
  const PE = view.PointerEvent ?? view.MouseEvent;
  el.dispatchEvent(new PE('pointerout', { bubbles: true, pointerId: 1, pointerType: 'mouse' }));
  el.dispatchEvent(new PE('pointerleave', { bubbles: false, pointerId: 1, pointerType: 'mouse' }));
  el.dispatchEvent(new view.MouseEvent('mouseout', { bubbles: true }));
  el.dispatchEvent(new view.MouseEvent('mouseleave', { bubbles: false }));
}

/**
 * Generation A wraps citations in `<a href>`: a synthetic click on it would navigate the tab away
 * (and end this script). Cancel the link's default action for this one click; the page's own
 * handlers still see the events and open the popover.
 */
function clickWithoutFollowingLinks(ctx: PageContext, el: Element): void {
  const guard = (e: Event) => {
    const target = e.target as Element | null;
    if (target && closest(target, ctx.set.link)) e.preventDefault();
  };
  ctx.doc.addEventListener('click', guard, true);
  try {
    pointerClick(el);
  } finally {
    ctx.doc.removeEventListener('click', guard, true);
  }
}

/** Closes the popover this citation opened (never another dialog of the page). */
async function closePopover(ctx: PageContext, trigger: Element, open: Element): Promise<void> {
  const gone = () => !open.isConnected || isHidden(open);
  pressKey(open, 'Escape');
  unhover(trigger, ctx);
  if (await ctx.waitFor(gone, 500)) return;
  clickWithoutFollowingLinks(ctx, trigger); // a toggling popover closes on a second click
  await ctx.waitFor(gone, 500);
}

export interface Expansion {
  sources: Source[];
  /** Grouped citations found / opened successfully. */
  grouped: number;
  expanded: number;
}

/**
 * Some grouped citations open nothing: they expand in place, putting their sources' link badges
 * into the answer (generation A). Those are the badges that were not there before the click.
 */
function badgesIn(ctx: PageContext, scope: Scope): Element[] {
  return union(scope, ctx.set.citationBadge);
}

/** Folds an in-place expansion back (the trigger toggles), so the answer looks as it did. */
async function foldInPlace(ctx: PageContext, trigger: Element, fresh: Element[]): Promise<void> {
  if (!trigger.isConnected) return;
  clickWithoutFollowingLinks(ctx, trigger);
  await ctx.waitFor(() => fresh.every((badge) => !badge.isConnected), 500);
}

export async function expandCitations(ctx: PageContext, perPopoverMs = 1500): Promise<Expansion> {
  const asked = turnsOf(ctx.doc, ctx.set).at(-1);
  const base = ctx.doc.location.href;
  // Found again before each click, by its place among the turn's: the page may draw the answer anew while a popover
  // is read (React re-mounts it), and a click on the dropped element reaches nobody (review 12a, #5).
  const groupedNow = () => {
    // None once the tab shows another conversation: its chips are not this answer's (review 13d, 4).
    if (!sameConversation(base, ctx.doc.location.href)) return { scope: ctx.doc.body, grouped: [] };
    const scope: Scope = (asked && turnNow(ctx.doc, ctx.set, asked)) ?? ctx.doc.body;
    // Outermost: the live page nests a second citation span of the same text in each.
    return { scope, grouped: outermost(union(scope, ctx.set.citationInline)).filter((c) => groupedCount(c.textContent ?? '', ctx.set) > 0) };
  };
  const count = groupedNow().grouped.length;
  const sources: Source[] = [];
  let expanded = 0;
  for (let i = 0; i < count; i++) {
    const { scope, grouped } = groupedNow();
    const chip = grouped[i];
    if (!chip) break;
    // Events go to the chip's own trigger where it has one inside: the page listens there, never on the chip around it.
    const trigger = first(chip, ctx.set.citationTrigger ?? CITATION_TRIGGER_2026) ?? chip;
    const before = new Set(badgesIn(ctx, scope));
    // What was shown before the click (the person's own dialog, a banner) is never this citation's.
    const shownBefore = new Set(shownPopovers(ctx));
    hover(trigger, ctx);
    clickWithoutFollowingLinks(ctx, trigger);
    const shown = await ctx.waitFor(() => {
      const popover = openedBy(ctx, trigger, shownBefore);
      if (popover) return { popover };
      const fresh = badgesIn(ctx, scope).filter((badge) => !before.has(badge));
      return fresh.length > 0 ? { fresh } : null;
    }, perPopoverMs);
    if (!shown) {
      unhover(trigger, ctx);
      continue;
    }
    expanded++;
    if (shown.popover) {
      sources.push(...fromEntries(shown.popover, ctx.set, base));
      await closePopover(ctx, trigger, shown.popover);
    } else if (shown.fresh) {
      sources.push(...fromBadges(shown.fresh, base));
      unhover(trigger, ctx);
      await foldInPlace(ctx, trigger, shown.fresh);
    }
  }
  return { sources, grouped: count, expanded };
}
