import { generationA } from './generation-a';
import { generationB } from './generation-b';
import { expandLabels, withLabels } from './labels';
import { live2026 } from './live-2026';
import type { SelectorSet } from './schema';

/**
 * The selector sets a page probes among: the built-in ones, and the sets a person added as files
 * (`comet-relay selectors add`), which arrive from the worker already validated and can change at
 * any moment without a reload.
 *
 * Precedence: an added set whose name is a built-in set's name *replaces* that set (a fixed copy of
 * a broken set must not compete with the broken one); an added set with a new name competes with
 * all others by probing, and wins ties, because it was added for a page the built-in sets no longer
 * read. No zod here: the content script uses this, and it imports no set with more than English
 * words (words.ts says why): the other languages come from the worker (`addBuiltInLabels`).
 */
export const BUILT_IN = 'built-in';

/**
 * The built-in sets as written with English words, in tie-breaking order. The live site's set
 * comes first on ties: a page that shows nothing distinctive (the home page) is read with the newest
 * facts, whose stop rule is the composer's "Stop response" and never a "Stop dictation" beside it;
 * the older sets win where the page shows what only they know (an answer inside its question block).
 */
const WRITTEN: readonly SelectorSet[] = [live2026, generationB, generationA];
/** The same, expanded: what a page probes among before the worker handed it the other languages. */
const PAGE_BUILT_INS: readonly SelectorSet[] = WRITTEN.map(expandLabels);

export interface CatalogEntry {
  set: SelectorSet;
  /** `built-in`, or the path of the file the set came from. */
  source: string;
}

export class SelectorCatalog {
  private added: CatalogEntry[] = [];
  private builtIns: readonly SelectorSet[];
  private current: CatalogEntry[];
  private readonly listeners = new Set<() => void>();
  /** Goes up with every change, so a page that chose a set knows to probe again. */
  version = 0;

  /** `written`: the built-in sets, as written or expanded. */
  constructor(private readonly written: readonly SelectorSet[] = WRITTEN) {
    this.builtIns = written === WRITTEN ? PAGE_BUILT_INS : written.map(expandLabels); // the page's own, expanded once
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
    this.changed();
  }

  /**
   * Gives the built-in sets more languages' words beside their own (the worker sends the built-in
   * sets' French and Arabic with the data packs: words.ts), replacing any given before. Added sets
   * keep the words their file gives them.
   */
  addBuiltInLabels(labels: SelectorSet['labels']): void {
    this.builtIns = this.written.map((set) => expandLabels(withLabels(set, labels)));
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.current = this.compose();
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  private compose(): CatalogEntry[] {
    const addedNames = new Set(this.added.map((e) => e.set.name));
    const builtIn = this.builtIns.filter((s) => !addedNames.has(s.name)).map((set) => ({ set, source: BUILT_IN }));
    return [...this.added, ...builtIn];
  }
}

export interface ProbeCandidate {
  name: string;
  score: number;
  present: string[];
  conflicting: string[];
}

export interface ProbeReport {
  chosen: string;
  /** False when no set's distinctive elements were on the page (a library page, a page still loading). */
  confident: boolean;
  chromeMajor: number | null;
  url: string;
  candidates: ProbeCandidate[];
}

function exists(doc: Document, selector: string): boolean {
  try {
    return doc.querySelector(selector) !== null;
  } catch {
    return false; // a selector the engine cannot parse is a miss, not a crash
  }
}

/** Chrome major from a user agent string, or null (Comet reports its Chromium base). */
export function chromeMajorFrom(userAgent: string): number | null {
  const m = /(?:Chrome|Chromium)\/(\d+)/.exec(userAgent);
  return m ? Number(m[1]) : null;
}

/**
 * Picks the set whose distinctive elements are on the page. Ties (such as a page with no composer)
 * go to the earlier set: first those the browser's Chrome major admits, then in the order given —
 * the catalog's order, added sets before built-in ones, built-in ones newest first.
 */
export function chooseSelectorSet(
  doc: Document,
  chromeMajor: number | null = null,
  sets: readonly SelectorSet[] = PAGE_BUILT_INS,
): { set: SelectorSet; probe: ProbeReport } {
  const admits = (set: SelectorSet) => chromeMajor === null || chromeMajor >= set.minChromeMajor;
  const ordered = [...sets.filter(admits), ...sets.filter((set) => !admits(set))];
  const candidates = ordered.map((set): ProbeCandidate => {
    const present = set.signature.present.filter((s) => exists(doc, s));
    const conflicting = set.signature.absent.filter((s) => exists(doc, s));
    return { name: set.name, score: present.length - 3 * conflicting.length, present, conflicting };
  });
  let best = 0;
  candidates.forEach((c, i) => {
    if (c.score > (candidates[best]?.score ?? -Infinity)) best = i;
  });
  const chosen = ordered[best] as SelectorSet;
  const bestCandidate = candidates[best] as ProbeCandidate;
  return {
    set: chosen,
    probe: {
      chosen: chosen.name,
      confident: bestCandidate.score > 0,
      chromeMajor,
      url: doc.location?.href ?? '',
      candidates,
    },
  };
}
