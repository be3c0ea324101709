import { generationA } from './generation-a';
import { generationB } from './generation-b';
import type { SelectorSet } from './schema';

export type { ElementKey, Mode, SelectorSet } from './schema';
export { generationA, generationB };

/** Every known set, newest first. */
export const SELECTOR_SETS: readonly SelectorSet[] = [generationB, generationA];

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
 * Picks the set whose distinctive elements are on the page. The Chrome major only orders the
 * candidates (newest applicable first), which decides ties such as a page with no composer.
 */
export function chooseSelectorSet(
  doc: Document,
  chromeMajor: number | null = null,
  sets: readonly SelectorSet[] = SELECTOR_SETS,
): { set: SelectorSet; probe: ProbeReport } {
  const ordered = [...sets].sort((a, b) => {
    const aOk = chromeMajor === null || chromeMajor >= a.minChromeMajor;
    const bOk = chromeMajor === null || chromeMajor >= b.minChromeMajor;
    if (aOk !== bOk) return aOk ? -1 : 1;
    return b.minChromeMajor - a.minChromeMajor;
  });
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
