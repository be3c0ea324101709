import type { Envelope } from '../protocol/messages';
import { type AppliedPack, PACKS_APPLY_EVENT, type PacksApply } from '../protocol/ports';
import type { SelectorSet } from '../selectors';
import type { CatalogEntry, SelectorCatalog } from '../selectors/catalog';
import type { ReaderKind, ReaderShelf } from '../selectors/reader-shelf';

/**
 * The page's end of data packs: the worker has validated them (lib/worker/packs.ts), so each is
 * handed as it is to whatever uses its kind: selector sets to the catalog the driver probes among,
 * thread readers to the page script's reader shelf. The event also brings the built-in sets' other
 * languages (the worker's own data, lib/selectors/words.ts), which go to the catalog too.
 */
export type PackApplier = (packs: AppliedPack[], event?: PacksApply) => void;

export function selectorSetApplier(catalog: SelectorCatalog): PackApplier {
  return (packs, event) => {
    if (event?.labels) catalog.addBuiltInLabels(event.labels as SelectorSet['labels']);
    catalog.replaceAdded(packs.map((p): CatalogEntry => ({ set: p.item as SelectorSet, source: p.source })));
  };
}

export function readerApplier(shelf: ReaderShelf, kind: ReaderKind): PackApplier {
  return (packs) => shelf.replace(kind, packs);
}

/**
 * Applies a `packs.apply` event; false for any other message. Every kind gets its whole list, an
 * empty one included (a removed file is gone at once).
 */
export function applyPacks(appliers: Readonly<Record<string, PackApplier>>, message: Extract<Envelope, { kind: 'event' }>): boolean {
  if (message.event !== PACKS_APPLY_EVENT) return false;
  const event = message.data as PacksApply;
  for (const [kind, apply] of Object.entries(appliers)) apply(event.packs.filter((p) => p.kind === kind), event);
  return true;
}
