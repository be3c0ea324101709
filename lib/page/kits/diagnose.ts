import type { ProbeReport, SelectorSet } from '../../selectors';
import { probeKeys } from '../../selectors/labels';

/**
 * `page.diagnose` (`comet-relay doctor --page`): every probe of the set in use, tried on the page as
 * it is now: which candidate matched and how many elements, or that none did (and which candidates
 * the browser could not even parse). Read-only: it queries, never clicks, types or scrolls.
 */
export interface ProbeCheck {
  probe: string;
  matched: boolean;
  /** Elements the matching candidate found (0 when none matched). */
  count: number;
  /** The candidate that matched. */
  selector?: string;
  /** Every candidate, for a probe that missed. */
  tried?: string[];
  /** Candidates the browser rejects as selectors. */
  invalid?: string[];
}

export interface PageDiagnosis {
  url: string;
  title: string;
  set: { name: string; source: string };
  /** False when no set's signature was on the page. */
  confident: boolean;
  candidates: ProbeReport['candidates'];
  probes: ProbeCheck[];
}

function count(doc: Document, selector: string): number | null {
  try {
    return doc.querySelectorAll(selector).length;
  } catch {
    return null;
  }
}

export function checkProbes(doc: Document, set: SelectorSet): ProbeCheck[] {
  return probeKeys(set).map((probe) => {
    const candidates = set[probe];
    const invalid: string[] = [];
    for (const selector of candidates) {
      const n = count(doc, selector);
      if (n === null) invalid.push(selector);
      else if (n > 0) return { probe, matched: true, count: n, selector, ...(invalid.length ? { invalid } : {}) };
    }
    return { probe, matched: false, count: 0, tried: [...candidates], ...(invalid.length ? { invalid } : {}) };
  });
}

export function diagnosePage(doc: Document, set: SelectorSet, chosen: { name: string; source: string; probe: ProbeReport }): PageDiagnosis {
  return {
    url: doc.location?.href ?? '',
    title: doc.title,
    set: { name: chosen.name, source: chosen.source },
    confident: chosen.probe.confident,
    candidates: chosen.probe.candidates,
    probes: checkProbes(doc, set),
  };
}
