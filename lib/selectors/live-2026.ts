import { common } from './common';
import type { SelectorSet } from './schema';

/** A steps header of a finished turn, as the live site words it (lib/selectors/README.md dates each). */
const DONE = '(?:{stepsFinished}|{stepsDone})\\s+\\d+|\\d+\\s+(?:{stepsDoneAfter})|(?:{stepsResearched})(?:\\s*\\d+\\s*s)?\\s*$';

/**
 * The live perplexity.ai as pages captured from it show it, February to October 2026
 * (lib/selectors/README.md, "The live site", dates each fact and names the capture or report).
 * Its thread reading knows both layouts the site served side by side: question and answer as
 * sibling blocks (Aug–Oct 2026) and one wrapper per turn with a `markdown-content-N` answer
 * (Feb 2026); turns.ts tells them apart per turn. Composer and mode fields are gen B's.
 */
export const live2026: SelectorSet = {
  ...common,
  name: 'gen-b-2026-10-live',
  generation: 'B',
  minChromeMajor: 140,
  signature: {
    present: [
      '[data-workflow-text-footer]',
      // The February answer counts twice: on those pages it is what tells this set from gen A's `#ask-input`.
      'div[id^="markdown-content-"]',
      '[id^="markdown-content-"] .prose',
      // The stop control this layout shows in the composer while the first answer streams: before
      // the action row, the one thing a new thread shows that gen-b-2026-10's pages do not.
      '[data-ask-input-container] button[aria-label^="{stopResponse}"]',
      '[data-testid="ask-input-mode-toggle-width-wrapper"]',
      // As many composer signs as gen-b-2026-10 has, so its home page ties and the tie goes to this set.
      '[data-testid="ask-input-mode-toggle-width-wrapper"] button[data-state]',
    ],
    // An answer inside its question's block is the older layout (the simulated generations), not this one.
    absent: ['[data-workflow-entry] [data-workflow-final-text]'],
  },
  modeUi: 'chip',

  // The control the composer shows instead of Submit while an answer is written. "Stop dictation",
  // a read-aloud "Stop" and a "Stop response (Esc)" far from the composer are not it.
  stopButton: ['[data-ask-input-container] button[aria-label^="{stopResponse}"]'],
  stopControls: ['[data-ask-input-container] button'],
  stopIcons: ['#pplx-icon-player-stop-filled'],
  // Same icon, same box, not the answer's stop (NOTES.md §D of the captures, Sep 2026): the
  // composer's dictation, as "Stop dictation" while it listens.
  stopDecoys: ['button[aria-label*="{dictation}" i]'],

  turn: ['[data-workflow-entry]', '[class~="group/user-bubble"]', '[class~="group/query"]'],
  // Sep 2026: the question block starts with the time and the Edit query / Copy query buttons; the
  // question itself is the rendered text after them (captures `search-thread-one-turn-…-2026-09-26.html`,
  // `thread-page-main-excerpt-…-2026-09-27.html`: "26 sept., 23:39" is not part of the question).
  queryText: [...common.queryText, '[data-renderer="lm"]'],
  turnNumber: [
    { attr: 'data-workflow-entry', pattern: '^(\\d+)$' },
    { attr: 'id', pattern: '^markdown-content-(\\d+)$' },
  ],
  answer: ['[data-workflow-final-text]', '[class~="group/final-text"]', 'div[id^="markdown-content-"]'],
  answerFooter: ['[data-workflow-text-footer]', 'button[aria-label="{helpful}"]'],
  prose: ['.prose[data-renderer="lm"]', '.prose'],
  // No stepsBlock: no capture shows the steps' container, only their header, and the box beside it where the rows
  // unfold (Sep 2026 captures): the reader takes the header's box.
  // Sep 2026: `group/step-header` (French page, 2026-09-27), a folding button above the prose (2026-09-26);
  // February: a plain button before the answer. Only one before the answer's prose counts (reader.ts).
  stepsHeader: ['[class~="group/step-header"]', 'button[aria-expanded]', 'button'],
  // The header folds its rows: a button that opens a menu or a dialog (Share, More actions, Export) is no fold.
  stepsToggle: ['button[aria-expanded]:not([aria-haspopup])'],
  // "Researched", "Researched 4s", "Recherche terminée" (Sep 2026): done, with no count.
  stepsHeaderPattern: `^\\s*(?:${DONE}|{stepsStopped}|{stepsWorking})`,
  stepsFinishedPattern: `^\\s*(?:${DONE})`,
  codeLanguage: ['[data-testid="code-language-indicator"]', 'pre figcaption > span'],
  // The steps' header is the answer block's chrome, not its text: a block holding only the header (its prose not come
  // yet; the French page, 2026-09-27, draws it as a div) has no answer (late review, #8).
  answerChrome: [...common.answerChrome, 'figcaption', 'button', '[class~="group/step-header"]'],

  // The outer span carries the URL and wraps a second span of the same class with none.
  citationInline: ['[data-pplx-citation-url]', '[data-pplx-citation]', 'span.citation'],
  // The source's full title as the aria-label of the chip's hover trigger, its text only the short name ("coe"): inside
  // the chip in Aug 2026 (answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html; the "Trusted domain" badge beside
  // it is an image, no trigger), around it in Feb 2026 (every chip of the obsidian-AI-exporter pages).
  citationTitle: ['[data-state][aria-label]'],
};
