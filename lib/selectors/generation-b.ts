import { common } from './common';
import type { SelectorSet } from './schema';

/** Autumn 2026 ("Comet 2026-10"): a mode chip with a Radix menu, a separate Computer toggle. */
export const generationB: SelectorSet = {
  ...common,
  // The simulated generations' own steps box (tests/sim, turn-2026-04); the live page marks none (live-2026.ts).
  stepsBlock: ['div.contents'],
  name: 'gen-b-2026-10',
  generation: 'B',
  minChromeMajor: 140,
  signature: {
    present: [
      '[data-testid="ask-input-mode-toggle-width-wrapper"]',
      '[data-testid="ask-input-mode-toggle-width-wrapper"] button[data-state]',
    ],
    absent: ['[role="listbox"][aria-label="{typeahead}"]'],
  },
  modeUi: 'chip',
};
