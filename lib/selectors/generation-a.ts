import { common } from './common';
import type { SelectorSet } from './schema';

/** Spring 2026: modes live in the slash typeahead; citations may be `<a href>` badges. */
export const generationA: SelectorSet = {
  ...common,
  // The simulated generations' own steps box (tests/sim, turn-2026-04); the live page marks none (live-2026.ts).
  stepsBlock: ['div.contents'],
  name: 'gen-a-2026-04',
  generation: 'A',
  minChromeMajor: 120,
  signature: {
    // The composer plus, when open, the typeahead; what rules gen A out is the gen-B chip.
    present: ['#ask-input', '[role="listbox"][aria-label="{typeahead}"]', 'textarea[placeholder*="{askPlaceholder}"]'],
    absent: ['[data-testid="ask-input-mode-toggle-width-wrapper"]'],
  },
  modeUi: 'typeahead',
};
