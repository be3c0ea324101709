import type { BoxReader, ThreadPageReader } from './thread-schema';

/**
 * Where a Computer thread's state shows in Perplexity's page (beside the selector set of the UI
 * generation, which finds turns, steps and answers, and the tool rows). Checked 2026-12-01 against
 * the browser-use/browser-harness notes (April–May 2026) and the simulated site.
 *
 * What the public record shows (lib/selectors/README.md, "Computer task pages"): task pages under
 * /computer/tasks/{id} with the top bar's h1 title, "Todo" / "Usage" / "Share" there, tool steps in
 * `group/tool-wrapper` rows, "Insufficient credits" with "Add credits to continue" (no test id),
 * files offered as download links on the turn, Deep Research's `asset-card-open-button`.
 *
 * What it does not show: how a question, a confirmation, a connector sign-in, a two-factor
 * prompt, a form link, a sleep, an external wait, a "no access" notice, the attachment chips,
 * the Computer settings and a Project's page look. Every one of those below is our guess (the
 * simulated site draws the same guess in tests/sim/client/task.ts); each is one entry here, so a
 * change seen on the real page is one edit, and a reader loaded at run time can replace it.
 */
/**
 * RECORDED (capture page-text-json-mcp-comet-asikorskiy-2026-10-04; sho7650/obsidian-AI-exporter ADR-035, 2026-08-26):
 * a Deep Research answer since ~2026-08-20 is a summary under a card reading the report's title, then "Deep research
 * report"; the report's body is not in the page until the card is opened. No hook on the card is known: its label.
 * On its own so the sources kit, which reads only this of the reader, carries only this.
 */
export const REPORT_CARD_2026: NonNullable<ThreadPageReader['reportCard']> = { scope: ['span', 'div', 'p'], pattern: '^deep research report$' };

/**
 * The part of the reader every page carries: how a waiting box reads (comet_wait and the side panel show it on
 * any page). On its own so the page script holds only this; thread tabs' kits get the whole reader.
 */
export const BOXES_2026: BoxReader = {
  boxes: {
    ask_user_question: ['[data-testid="ask-user-question"]'],
    confirm_action: ['[data-testid="confirm-action"]'],
    auth_required: ['[data-testid="connector-auth"]'],
    two_factor_required: ['[data-testid="two-factor-required"]'],
    interaction_required: ['[data-testid="form-required"]'],
  },
  optionalAuth: ['[data-testid="connector-suggestion"]'],
  boxId: ['data-followup-uuid', 'data-interaction-id'],
  boxPrompt: ['.interaction-prompt', '[data-testid="interaction-prompt"]'],
  question: ['[data-question-id]', 'fieldset'],
  questionId: ['data-question-id'],
  questionText: ['legend', '.question-text'],
  questionChoice: ['[role="radio"]', '[role="checkbox"]', '[role="group"][aria-label="Suggested answers"] button', '.interaction-options button'],
  expiresAt: ['data-expires-at'],
  connectorId: ['data-connector'],
  authDescription: ['.interaction-description'],
  authLink: ['a[data-testid="connector-auth-link"]', 'a[href*="/authorize"]'],
  formLink: ['a[data-testid="form-link"]', 'a[href*="/computer/forms/"]'],
};

// A call marked pure, not a spread: a bundle that reads one part of this file (the sources kit, the report card)
// drops the rest only so (esbuild keeps an object literal with a spread in it).
export const threadPage2026: ThreadPageReader = /* @__PURE__ */ Object.assign({
  name: 'thread-page-2026-12',
  version: 2,
  checked: '2026-12-06 (simulated site; the guesses are marked in the comment above; reportCard: the 2026-10-04 capture)',
  // RECORDED: the title is the top bar's h1 (browser-use/browser-harness notes, April 2026), maybe outside main.
  title: ['main h1', 'h1'],
  notFound: { scope: ['main h1', 'h1'], pattern: 'could not be found|not found|doesn.t exist' },
}, BOXES_2026, {
  questionsSubmit: ['button[aria-label="Submit answers"]', 'button[type="submit"]'],
  questionsSkip: ['button[aria-label="Skip"]'],
  authDone: ['button[aria-label="I\'ve connected"]', 'button[aria-label="Continue"]'],

  sleeping: ['[data-testid="task-sleeping"]'],
  wakeTime: ['time[datetime]'],
  sleepReason: ['.task-notice'],
  waiting: ['[data-testid="task-waiting"]'],
  // GUESS (no capture or report shows a test id on the credits notice): kept ahead of the words, as
  // cheap as a selector, for a page that carries one.
  insufficientCredits: ['[data-testid="insufficient-credits"]'],
  // RECORDED, browser-use/browser-harness (2026-04-23 … 05-02): the notice is known by its words only,
  // the text "Insufficient credits" with the headline "Add credits to continue" (or an "Add credits"
  // button). Both words, in either order; English only (no other language recorded).
  insufficientCreditsWords: { scope: ['[role=alert]', 'div'], pattern: '^(?=.*insufficient credits)(?=.*add credits)' },
  reportCard: REPORT_CARD_2026,
  // The Computer server's documentation (seeds) gives billing_url as https://www.perplexity.ai/account/usage;
  // "billing" is a guess. (An `add-credits` test id, our earlier guess, is dropped: nothing shows one.)
  billingLink: ['a[href*="/account/usage"]', 'a[href*="billing"]'],
  quotaReset: ['time[datetime]'],
  creditsReason: ['data-reason'],
  accessDenied: ['[data-testid="access-denied"]'],

  asset: ['[data-testid="asset-card"]'],
  assetLink: ['a[data-testid="asset-card-open-button"]', 'a[download]', 'a[href]'],
  assetId: ['data-asset-id'],
  assetRootId: ['data-root-asset-id'],
  assetParentId: ['data-parent-asset-id'],

  fileInput: ['input[type="file"]'],
  attachmentChip: ['[data-testid="attachment-chip"]'],
  attachmentState: { attribute: 'data-state', ready: 'ready', failed: 'failed' },

  settingsButton: ['[data-testid="computer-settings"]', 'button[aria-label^="Computer settings"]'],
  settingsMode: '[role="menuitemradio"][data-computer-mode="{value}"]',
  settingsModel: '[role="menuitemradio"][data-model-id="{value}"]',
  settingsEffort: '[role="menuitemradio"][data-effort="{value}"]',
  projectVisibility: ['[data-testid="project-visibility"]'],
  projectPath: '/projects/{uuid}',
});

/** Built-in page readers, newest first. */
export const THREAD_PAGE_READERS: readonly ThreadPageReader[] = [threadPage2026];
