/**
 * The page's hooks that the built-in selector sets rely on most (the composer's id, the mode chip's
 * test id), in two variants: `standard`, as on the live site, and `renamed`, a stand-in for the day
 * Perplexity ships new markup that no built-in set knows. The renamed page is how the tests show a
 * person rescuing comet-relay with `comet-relay selectors add`, without a rebuild or a reload.
 */
export interface SimHooks {
  /** id of the composer (`#ask-input` on the live site). */
  composerId: string;
  /** data-testid of the mode chip's wrapper (generation B). */
  modeChipTestId: string;
  /** The attribute that marks the box around the composer (`data-ask-input-container` on the live site). */
  composerBoxAttr: string;
}

export const SIM_HOOKS = {
  standard: { composerId: 'ask-input', modeChipTestId: 'ask-input-mode-toggle-width-wrapper', composerBoxAttr: 'data-ask-input-container' },
  renamed: { composerId: 'query-composer', modeChipTestId: 'query-mode-switcher', composerBoxAttr: 'data-query-box' },
} as const satisfies Record<string, SimHooks>;
export type SimHooksName = keyof typeof SIM_HOOKS;
