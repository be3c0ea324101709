/**
 * The page variants of types.ts PageVariants, for the page script: each a small function the
 * rendering code calls, doing nothing unless its variant is on.
 */
import { sourceBadgesHtml } from '../answer';
import type { PageVariants, Source } from '../types';
import { app, fromHtml } from './dom';

export function variant(name: keyof PageVariants): boolean {
  return app.boot.variants?.[name] === true;
}

/** Tab and panel attributes: the id links between them, unless the page variant drops them. */
export function tabLinks(attrs: Record<string, string>): Record<string, string> {
  if (!variant('unlinkedTabs')) return attrs;
  const { id: _id, 'aria-controls': _controls, 'aria-labelledby': _labelledby, ...rest } = attrs;
  return rest;
}

/**
 * groupedBadges: a click on a grouped badge puts its sources' badges right after it, inside the
 * answer; a second click takes them away. Returns false when `target` is not such a badge.
 */
export function toggleGroupedBadge(target: Element, sources: Source[]): boolean {
  if (!variant('groupedBadges')) return false;
  const badge = target.closest('[data-citation-group]');
  if (!badge) return false;
  const open = badge.nextElementSibling?.classList.contains('citation-expansion') ? badge.nextElementSibling : null;
  if (open) {
    open.remove();
    badge.setAttribute('aria-expanded', 'false');
    return true;
  }
  const group = (badge.getAttribute('data-citation-group') ?? '').split(',').map(Number);
  badge.after(fromHtml(`<span class="citation-expansion">${sourceBadgesHtml(group, sources)}</span>`));
  badge.setAttribute('aria-expanded', 'true');
  return true;
}
