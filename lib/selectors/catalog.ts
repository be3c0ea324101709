import { SELECTOR_SETS } from './index';
import { expandLabels } from './labels';
import type { SelectorSet } from './schema';

/**
 * The selector sets a page probes among: the built-in ones, and the sets a person added as files
 * (`comet-relay selectors add`), which arrive from the worker already validated and can change at
 * any moment without a reload.
 *
 * Precedence: an added set whose name is a built-in set's name *replaces* that set (a fixed copy of
 * a broken set must not compete with the broken one); an added set with a new name competes with
 * all others by probing, and wins ties, because it was added for a page the built-in sets no longer
 * read. No zod here: the content script uses this.
 */
export const BUILT_IN = 'built-in';

export interface CatalogEntry {
  set: SelectorSet;
  /** `built-in`, or the path of the file the set came from. */
  source: string;
}

export class SelectorCatalog {
  private added: CatalogEntry[] = [];
  private current: CatalogEntry[];
  private readonly listeners = new Set<() => void>();
  /** Goes up with every change, so a page that chose a set knows to probe again. */
  version = 0;

  constructor(private readonly builtIns: readonly SelectorSet[] = SELECTOR_SETS) {
    this.current = this.compose();
  }

  /** Every set to probe, in tie-breaking order. */
  entries(): readonly CatalogEntry[] {
    return this.current;
  }

  sets(): SelectorSet[] {
    return this.current.map((e) => e.set);
  }

  sourceOf(set: SelectorSet): string {
    return this.current.find((e) => e.set === set)?.source ?? BUILT_IN;
  }

  /** Replaces every added set at once (the worker always sends the whole list). */
  replaceAdded(entries: readonly CatalogEntry[]): void {
    this.added = entries.map((e) => ({ set: expandLabels(e.set), source: e.source }));
    this.current = this.compose();
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private compose(): CatalogEntry[] {
    const addedNames = new Set(this.added.map((e) => e.set.name));
    const builtIn = this.builtIns.filter((s) => !addedNames.has(s.name)).map((set) => ({ set, source: BUILT_IN }));
    return [...this.added, ...builtIn];
  }
}
