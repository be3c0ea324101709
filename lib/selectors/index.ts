import { generationA as sourceA } from './generation-a';
import { generationB as sourceB } from './generation-b';
import { expandLabels } from './labels';
import { live2026 as sourceLive } from './live-2026';
import type { SelectorSet } from './schema';

export type { ElementKey, Mode, SelectorSet } from './schema';

/**
 * The built-in sets as written, placeholders and all: what `comet-relay selectors show` prints for
 * a person to copy and fix. Readers use the expanded sets below.
 */
export const BUILT_IN_SOURCES: readonly SelectorSet[] = [sourceB, sourceA, sourceLive];

export const generationA = expandLabels(sourceA);
export const generationB = expandLabels(sourceB);
/** The live site as captured in 2026 (live-2026.ts). */
export const live2026 = expandLabels(sourceLive);

/**
 * Every built-in set, expanded. The live site's set comes first on ties: a page that shows nothing
 * distinctive (the home page) is read with the newest facts, whose stop rule is the composer's
 * "Stop response" and never a "Stop dictation" beside it; the older sets win where the page shows
 * what only they know (an answer inside its question block).
 */
export const SELECTOR_SETS: readonly SelectorSet[] = [live2026, generationB, generationA];

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
  sets: readonly SelectorSet[] = SELECTOR_SETS,
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
