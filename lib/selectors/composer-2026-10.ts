import type { Mode } from './schema';

/**
 * What a selector set believes about the composer and its mode controls, as seen on the captured
 * pages (lib/selectors/README.md, "The composer"; each fact there names the capture or report it
 * came from). Every set spreads these: the composer is the same on every page of a month, whatever
 * layout its answers use. Test ids and structure first; words (`{placeholder}`, words.ts) last.
 */

/**
 * Icon → mode, for the rows of a mode menu, the slash menu and the radiogroup. Not for the Computer
 * toggle: it is told by where it sits, and there `#pplx-icon-custom-computer` means Computer.
 */
export const modeIcons: Record<string, Mode> = {
  '#pplx-icon-telescope': 'deep-research',
  '#pplx-icon-gavel': 'model-council',
  // Spring 2026 slash menu, "Create files and apps": a row icon that says "computer", which is why
  // matching must be exact (`#pplx-icon-click` is the Computer row).
  '#pplx-icon-custom-computer': 'create',
  // Feb 2026 radiogroup, "Create files and apps".
  '#pplx-icon-table-plus': 'create',
  '#pplx-icon-book': 'learn',
  '#pplx-icon-file-check': 'review',
  '#pplx-icon-click': 'computer',
  '#pplx-icon-search': 'standard',
};

const MODE_WRAPPER = '[data-testid="ask-input-mode-toggle-width-wrapper"]';

export const composerProbes = {
  // Computer task pages name only the container and the Lexical editor (Apr 2026 notes).
  composer: ['#ask-input', '[data-ask-input-container] [data-lexical-editor="true"]', 'textarea[placeholder*="{askPlaceholder}"]'],
  // No 2026 capture has the test id; the label is translated. There is no Submit until there is text.
  submit: ['[data-testid="submit-button"]', 'button[aria-label="{submit}"]'],

  // Spring 2026: the slash menu.
  typeahead: ['[role="listbox"][aria-label="{typeahead}"]'],
  typeaheadItem: ['[role="menuitem"]'],
  typeaheadShortcut: ['.shortcut-typeahead-option'],
  typeaheadActive: ['.bg-subtle'],
  // 2026-12, simulated site only: a chosen mode shows as a removable pill. Not seeing one says nothing.
  modePill: ['button.mode-pill', 'button[aria-label^="{removeMode}"]'],

  // Aug–Oct 2026: two wrappers side by side, the mode menu trigger first and the Computer toggle
  // second (lib/selectors/README.md, "Mode controls"). Both buttons carry `aria-pressed` and a visible
  // name in the Sep 2026 captures, and there the trigger has no `aria-haspopup`: they are told apart
  // by order (the trigger is the first wrapper's button, which carries `data-state` itself, while
  // the toggle's sits in a `span[data-state]`), and the toggle is confirmed by its name or icon
  // (`computerToggleIcons`, the word `{computer}`); `aria-pressed` only says which of them is on.
  modeChip: [`${MODE_WRAPPER} button[aria-haspopup="menu"]`, `${MODE_WRAPPER} button[data-state]`],
  // The menu is portalled to the end of <body> and stays there with `data-state="closed"` once shut
  // (mode-menu-open-Perplexity-Comet-MCP-jcalderonzumba-2026-09-24): only an open one is read.
  modeMenu: ['[role="menu"]:not([data-state="closed"])'],
  // Model council is a plain menuitem with a "Max" badge beside the radio rows (mode-menu-open-…-2026-09-24).
  modeMenuItem: ['[role="menuitemradio"], [role="menuitem"]'],
  // No aria-label and no test id of its own: the button of a wrapper that follows another wrapper.
  computerToggle: [`${MODE_WRAPPER} ~ ${MODE_WRAPPER} button`, 'button[aria-pressed][aria-label="{computer}"]', 'button[aria-label="{computer}"]'],
  // The toggle's icon where the capture kept icons (composer-zero-state-WebMCP-2026-08, the 2026-09-26/27
  // thread pages); there it means Computer, in a mode menu's row it is "create" (modeIcons).
  computerToggleIcons: ['#pplx-icon-custom-computer'],
  // Feb 2026: the modes as a Radix radiogroup, each radio icon-only with its mode in aria-label.
  modeRadio: ['[role="radiogroup"] button[role="radio"]'],
  modeIcons,

  // "Model" (Aug 2026, a menu trigger) or "Choose a model" (Feb 2026, no aria-haspopup). A bare
  // `button[aria-haspopup=menu][aria-label]` is "Add files or tools" or "More actions" on real pages.
  modelPicker: ['button[aria-label="{model}"]', 'button[aria-label="{chooseModel}"]'],
  modelCheckedIcon: '#pplx-icon-check',
} as const;
