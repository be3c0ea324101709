import { generationA as writtenA } from './generation-a';
import { generationB as writtenB } from './generation-b';
import { expandLabels, withLabels } from './labels';
import { live2026 as writtenLive } from './live-2026';
import type { SelectorSet } from './schema';
import { MORE_LABELS } from './words';

export type { ElementKey, Mode, SelectorSet } from './schema';
export { chooseSelectorSet, chromeMajorFrom, type ProbeCandidate, type ProbeReport } from './catalog';

const sourceA = withLabels(writtenA, MORE_LABELS);
const sourceB = withLabels(writtenB, MORE_LABELS);
const sourceLive = withLabels(writtenLive, MORE_LABELS);

/**
 * The built-in sets as written, placeholders and all, with every language's words: what
 * `comet-relay selectors show` prints for a person to copy and fix. Readers use the expanded sets
 * below. The page script imports none of this module's sets: it carries them with English words
 * alone and gets the other languages from the worker (words.ts, catalog.ts).
 */
export const BUILT_IN_SOURCES: readonly SelectorSet[] = [sourceB, sourceA, sourceLive];

export const generationA = expandLabels(sourceA);
export const generationB = expandLabels(sourceB);
/** The live site as captured in 2026 (live-2026.ts). */
export const live2026 = expandLabels(sourceLive);

/**
 * Every built-in set, expanded, in the catalog's order (catalog.ts says why the live site's set
 * comes first): what a page's catalog holds once the worker handed it the other languages.
 */
export const SELECTOR_SETS: readonly SelectorSet[] = [live2026, generationB, generationA];
