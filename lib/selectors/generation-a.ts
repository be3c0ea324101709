import { common } from './common';
import type { SelectorSet } from './schema';

/** Spring 2026: modes live in the slash typeahead; citations may be `<a href>` badges. */
export const generationA: SelectorSet = {
  ...common,
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
