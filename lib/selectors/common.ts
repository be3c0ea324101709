import { composerProbes } from './composer-2026-10';
import { ENGLISH_LABELS } from './words';

/**
 * Facts both UI generations share (lib/selectors/README.md, "A thread page"). Each generation's
 * set spreads these and overrides what differs, so a change seen on the live site is one edit.
 * In every list, test ids, icons and structure come first; words (`{placeholder}`, by language in
 * words.ts) come last.
 */
export const common = {
  ...composerProbes,
  // Only marked or labelled buttons count: an svg <rect> says nothing ("Expand pane" has one too).
  // The label is "Stop" itself or starts "Stop response": "Stop dictation" sits beside the
  // composer of the Aug–Oct 2026 page (perplexity-dom.md, Corrections) and is not the stop control.
  stopButton: [
    '[data-testid="stop-generating-response-button"]',
    'button[aria-label^="{stopResponse}"]',
    'button[aria-label="{stop}"]',
    'button[aria-label*="{cancel}"]',
  ],
  spinner: ['.animate-spin', '.animate-pulse'],
  newThread: [
    '[data-testid="sidebar-new-thread"]',
    'a[aria-label="{newThread}"]',
    'button[aria-label="{newThread}"]',
    // Any in-app link home opens an empty thread through the SPA router.
    'aside a[href="/"]',
    'nav a[href="/"]',
    'a[href="/"]',
  ],

  threadColumn: ['.max-w-threadContentWidth'],
  turn: ['[data-workflow-entry]'],
  // `~=` matches whole class tokens, so the look-alike `group-hover/user-bubble` is not taken.
  userBubble: ['[class~="group/user-bubble"]', '[class~="group/query"]'],
  queryText: ['[class*="whitespace-pre-line"]', '.select-text'],
  queryExpand: ['[data-testid="toggle-query-expand-button"]'],
  // Computer task pages (browser-use/browser-harness notes, 2026-04-23 … 05-02): each tool call is a row
  // whose class holds `group/tool-wrapper`, its label the only button that is a direct child (beside it
  // "Apr 17, 4:00 AM · 9s"). No container around the rows is recorded.
  toolStep: ['[class*="group/tool-wrapper"]'],
  toolStepLabel: [':scope>button'],
  stepsToggle: ['button[aria-expanded]'],
  stepsHeaderPattern: '^\\s*(?:{stepsFinished}|{stepsStopped}|{stepsWorking})',
  stepsFinishedPattern: '^\\s*(?:{stepsFinished})',
  stepsStoppedPattern: '^\\s*(?:{stepsStopped})',
  answer: ['[data-workflow-final-text]', '[class~="group/final-text"]'],
  prose: ['div.prose[data-renderer="lm"]', '.prose'],
  codeBlock: ['pre'],
  codeLanguage: ['[data-testid="code-language-indicator"]'],
  // KaTeX, as the 2026-02-27 search capture shows it (lib/selectors/README.md, "Formulas").
  mathFormula: ['.katex'],
  mathSource: ['annotation[encoding="application/x-tex"]'],
  mathDisplay: ['.katex-display'],
  answerChrome: [
    '[data-testid="copy-code-button"]',
    '[data-testid="code-language-indicator"]',
    '.citation-nbsp',
    'svg',
    'script',
    'style',
    'template',
  ],
  errorMessage: ['[role="alert"]'],
  // The sidebar's thread rows by their own mark too (the 2026-09-27 sidebar capture), not only by the <nav> around
  // them: the public door's page text leaves these regions out while the library is closed to it (content.ts).
  outsideThread: ['nav', 'aside', '[data-testid="sidebar"]', '[data-sidebar-session-row]'],

  // `.citation` also takes generation A's `<a class="citation">` badges (whole class token only).
  citationInline: ['[data-pplx-citation]', '.citation'],
  citationUrlAttr: 'data-pplx-citation-url',
  citationGroupPattern: '^(.*?)\\s*\\+\\s*(\\d+)\\s*$',
  citationBadge: ['a[href]'],
  citationPopover: [
    '[data-radix-popper-content-wrapper]',
    '[role="dialog"]',
    '[role="tooltip"]',
  ],
  citationPopoverEntry: ['li', 'a[href]'],
  entryTitle: ['[data-testid*="title"]', '[class*="title"]', 'h3', 'h4', 'strong'],
  link: ['a[href]'],
  sourcesTab: ['[role="tab"]'],
  // No \\b: the tab's text runs into its count ("Links5").
  sourcesTabPattern: '^\\s*(?:{sourcesTab})',
  sourcesPanel: ['[role="tabpanel"]'],

  labels: ENGLISH_LABELS,
  iconUse: ['use'],


  interactionBox: ['[data-testid="ask-user-question"]', '[data-testid="confirm-action"]', '.task-interaction'],
  interactionPrompt: ['.interaction-prompt', '[data-testid="interaction-prompt"]'],
  interactionOption: ['.interaction-options button', '[role="group"][aria-label="{suggestedAnswers}"] button'],
  interactionField: ['textarea[aria-label="{yourAnswer}"]', 'textarea', 'input[type="text"]'],
  interactionSend: ['button[aria-label="{sendAnswer}"]', 'button[type="submit"]'],
  interactionApprove: ['button[aria-label="{approve}"]'],
  interactionDeny: ['button[aria-label="{deny}"]'],

  conversationLink: ['a[href*="/search/"]', 'a[href*="/copilot/"]', 'a[href*="/computer/tasks/"]'],
  watchAttributes: [
    'class',
    'aria-label',
    'aria-expanded',
    'aria-checked',
    'aria-pressed',
    'aria-selected',
    'aria-hidden',
    'data-state',
    'disabled',
    'hidden',
    'data-workflow-entry',
    'data-pplx-citation-url',
  ],
} as const;
