import { z } from 'zod';
import { patternProblem } from './language/pattern-check';
import { expandPattern, PATTERN_KEYS, placeholdersIn, variantCount } from './language/placeholders';

/**
 * The shape of a selector set: every page fact the reader and actions rely on, as data.
 * Page code imports only the *type* (erased at build time), so the content script carries no zod;
 * the schema itself is checked in a unit test and can validate a set loaded from elsewhere.
 *
 * A `Candidates` list is tried in order; the first selector that matches wins. Keeping several
 * candidates per element is how a set survives small markup changes between site deployments.
 */
export const Candidates = z.array(z.string().min(1).max(2000)).min(1).max(64).readonly();
/** A regular expression, as a string; may name words of `labels` by placeholder. Checked to compile. */
export const Pattern = z.string().max(2000);

export const MODES = ['standard', 'deep-research', 'model-council', 'create', 'learn', 'review', 'computer'] as const;
export const ModeSchema = z.enum(MODES);
export type Mode = (typeof MODES)[number];

/** A BCP 47 language tag as pages write it in `<html lang>`: `en`, `fr`, `ar`, `pt-BR`. */
const LanguageTag = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a language tag such as "en", "fr" or "pt-BR"');

/** The words of one language: placeholders' words, and mode names as the page shows them. */
const LanguageLabels = z
  .object({
    /** Placeholder name → the words the page uses for it (`submit: ["Envoyer"]`). */
    words: z.record(z.string().regex(/^[A-Za-z]+$/, 'letters only'), z.array(z.string().min(1).max(200)).min(1).max(16)),
    /** Mode name as written on the page → mode; the fallback when an item has no known icon. */
    modes: z.record(z.string().min(1).max(200), ModeSchema),
  })
  .strict();

export const SelectorSetShape = z
  .object({
    /** `gen-<letter>-<year>-<month the page was seen>`, optionally a suffix: `gen-b-2026-12`, `gen-b-2026-10-fix2`. */
    name: z
      .string()
      .max(64)
      .regex(/^gen-[a-z]-\d{4}-\d{2}(-[a-z0-9]+)*$/, 'a name like "gen-b-2026-12" (gen-, a letter, the year and month the page was seen, optionally -suffix)'),
    generation: z.enum(['A', 'B']),
    /** Only orders the candidates when probing; the page itself decides. */
    minChromeMajor: z.number().int().min(0),
    /** Elements whose presence says "this is my generation" / "this is not". */
    signature: z.object({ present: Candidates, absent: z.array(z.string().min(1).max(2000)).max(64).readonly() }),

    composer: Candidates,
    submit: Candidates,
    /** Controls that stop the answer being written: labelled or marked ones only (an svg `<rect>` says nothing). */
    stopButton: Candidates,
    /**
     * Buttons where the stop control lives (the composer's own), and the icons that make one of
     * them the stop control whatever its label says. Without them only `stopButton` counts.
     */
    stopControls: Candidates.optional(),
    stopIcons: z.array(z.string().startsWith('#')).max(16).readonly().optional(),
    /**
     * Controls that carry the stop icon or a stop word but stop something else ("Stop dictation",
     * a read-aloud "Stop"): never the stop control, whatever else matches them. Optional: sets
     * written before 2026-12 load.
     */
    stopDecoys: Candidates.optional(),
    spinner: Candidates,
    newThread: Candidates,

    threadColumn: Candidates,
    /**
     * Blocks that begin a turn: the question's block, which in some layouts holds the whole turn.
     * A turn is that block and the sibling blocks after it (steps, answer, action row) up to the
     * next turn's; an answer whose question is not mounted begins a turn of its own (turns.ts).
     */
    turn: Candidates,
    /** Where a turn writes its own index (the page keeps only some turns mounted): the attribute, and a pattern whose group 1 is the number. */
    turnNumber: z.array(z.object({ attr: z.string().min(1).max(200), pattern: Pattern }).strict()).max(8).readonly().optional(),
    userBubble: Candidates,
    queryText: Candidates,
    queryExpand: Candidates,
    /**
     * The steps' container where a layout marks one. Optional: with none (no capture shows one), the reader takes the
     * box around the steps' header (lib/page/answer/reader.ts).
     */
    stepsBlock: Candidates.optional(),
    /** Step rows where a layout marks them (no capture shows one); otherwise the reader takes the block's innermost text blocks. */
    stepRow: Candidates.optional(),
    /**
     * A Computer task's tool rows, one per tool call, wherever they sit in the turn (no steps block
     * around them is known), and each row's label inside it (the rest of the row is its time and
     * duration). Read by the threads kit; optional: sets written before 2026-12 load.
     */
    toolStep: Candidates.optional(),
    toolStepLabel: Candidates.optional(),
    /** The button that folds/unfolds the step rows (they fold once the agent is done). */
    stepsToggle: Candidates,
    /**
     * Elements of the turn, outside question and answer, that may carry the steps header
     * ("Reviewed 10 sources"): the first whose text fits stepsHeaderPattern is it.
     */
    stepsHeader: Candidates.optional(),
    /** Header lines that are not steps ("Finished 3 steps", "Stopped after 2 steps", "Working…"). */
    stepsHeaderPattern: Pattern,
    /** Header once the agent is done; a secondary signal only (the stop button decides). */
    stepsFinishedPattern: Pattern,
    /** Header once the user stopped the agent. */
    stepsStoppedPattern: Pattern,
    answer: Candidates,
    /**
     * The answer's action row (Copy / Share / Helpful), after the answer: it appears when the answer
     * is done. Without it, done means the stop control went away and the text held still.
     */
    answerFooter: Candidates.optional(),
    prose: Candidates,
    codeBlock: Candidates,
    codeLanguage: Candidates,
    /** Chrome inside the answer that is not answer text (copy buttons, spacers, icons). */
    answerChrome: Candidates,
    /**
     * A typeset formula, read once as its source: the page draws each one twice (MathML for screen
     * readers, glyphs for the eye) and keeps its TeX in a hidden annotation.
     */
    mathFormula: Candidates.optional(),
    mathSource: Candidates.optional(),
    /** A formula set on a line of its own (Markdown `$$…$$` rather than `$…$`). */
    mathDisplay: Candidates.optional(),
    errorMessage: Candidates,
    /** Regions that are never "the current turn" (sidebar, its skeleton loaders). */
    outsideThread: Candidates,

    citationInline: Candidates,
    citationUrlAttr: z.string(),
    /** Inside an inline citation, or its parent: the element whose aria-label is the source's full title. Optional: the chip's text (a short name) otherwise. */
    citationTitle: Candidates.optional(),
    /**
     * Inside a citation chip: the element that opens its popover (Radix's trigger), where it is not the chip itself.
     * Optional: CITATION_TRIGGER_2026 (citation-trigger.ts) otherwise, which only the sources kit carries.
     */
    citationTrigger: Candidates.optional(),
    /** Visible text of a grouped citation, e.g. "reuters+2". */
    citationGroupPattern: Pattern,
    citationBadge: Candidates,
    citationPopover: Candidates,
    citationPopoverEntry: Candidates,
    /** Inside an entry: where its title is, and its link. */
    entryTitle: Candidates,
    link: Candidates,
    sourcesTab: Candidates,
    /** Text of the tab that lists sources; tabs are otherwise indistinguishable. */
    sourcesTabPattern: Pattern,
    sourcesPanel: Candidates,

    /** Generation A: slash typeahead. Generation B: mode chip + menu + computer toggle. */
    modeUi: z.enum(['typeahead', 'chip']),
    typeahead: Candidates,
    typeaheadItem: Candidates,
    typeaheadShortcut: Candidates,
    typeaheadActive: Candidates,
    /** Generation A: the removable pill that names the chosen mode beside the composer (none = standard). */
    modePill: Candidates,
    modeChip: Candidates,
    modeMenu: Candidates,
    modeMenuItem: Candidates,
    computerToggle: Candidates,
    /**
     * Icons that confirm a `computerToggle` match is the Computer toggle (besides its name, the word
     * `{computer}`): a button found where the toggle sits but showing neither is not taken for it.
     * Optional: sets written before 2026-12 load, and confirm by name alone.
     */
    computerToggleIcons: z.array(z.string().startsWith('#')).max(16).readonly().optional(),
    /** Feb 2026: the modes as a radiogroup beside the composer, the checked one `aria-checked`. A set written before 2026-12 has none. */
    modeRadio: Candidates.default(['[role="radiogroup"] button[role="radio"]']),
    /** Icon fragment (`#pplx-icon-…`) → mode. Locale-independent. */
    modeIcons: z.record(z.string().startsWith('#'), ModeSchema),
    /**
     * Words the page shows, by language (lib/selectors/labels.ts): the last resort behind test ids,
     * icons and structure. Selectors and patterns name them by placeholder (`{submit}`).
     */
    labels: z.record(LanguageTag, LanguageLabels),
    iconUse: Candidates,

    modelPicker: Candidates,
    modelCheckedIcon: z.string(),

    /**
     * Computer mode: what a paused task waits on, inside the current turn. A box with a text field is
     * a question; one with Approve is a confirmation. Options are suggested answers (each sends itself).
     */
    interactionBox: Candidates,
    interactionPrompt: Candidates,
    interactionOption: Candidates,
    interactionField: Candidates,
    interactionSend: Candidates,
    interactionApprove: Candidates,
    interactionDeny: Candidates,

    conversationLink: Candidates,
    /** Attributes whose changes the page watcher must see (others, e.g. style, are noise). */
    watchAttributes: z.array(z.string().min(1).max(200)).max(64).readonly(),
  })
  .strict();

export type SelectorSet = z.infer<typeof SelectorSetShape>;

/** The most selectors one candidate, and a whole set, may become once placeholders are filled in (review 13c, F1). */
const MAX_VARIANTS = 256;
const MAX_SELECTORS = 4096;

/**
 * The shape, plus what a shape cannot say: every placeholder names a word some language defines,
 * and every pattern compiles once its placeholders are expanded. A set from a file that passes this
 * cannot make the reader throw.
 */
export const SelectorSetSchema = SelectorSetShape.superRefine((set, ctx) => {
  const defined = new Set(Object.values(set.labels).flatMap((language) => Object.keys(language.words)));
  const check = (path: (string | number)[], text: string) => {
    for (const name of placeholdersIn(text)) {
      if (!defined.has(name)) {
        ctx.addIssue({ code: 'custom', path, message: `uses the placeholder {${name}}, but no language in labels defines words.${name}` });
      }
    }
  };
  const lists: [(string | number)[], readonly string[]][] = [
    ...Object.entries(set).flatMap(([key, value]) =>
      Array.isArray(value) && value.every((v) => typeof v === 'string') ? [[[key], value] as [string[], string[]]] : [],
    ),
    [['signature', 'present'], set.signature.present],
    [['signature', 'absent'], set.signature.absent],
  ];
  // Every combination of a candidate's placeholders' words is a selector the page builds and runs: a few placeholders
  // of 16 words each in many languages make millions, which freeze the tab (review 13c, F1). The built-in sets stay
  // below 10 a candidate and 200 in all (2026-12-06).
  let total = 0;
  for (const [path, list] of lists) {
    for (const [i, selector] of list.entries()) {
      check([...path, i], selector);
      const variants = variantCount(set, selector);
      total += variants;
      if (variants > MAX_VARIANTS) {
        ctx.addIssue({ code: 'custom', path: [...path, i], message: `becomes ${variants} selectors, one per combination of its placeholders' words (at most ${MAX_VARIANTS}): use fewer placeholders in it, or fewer words` });
      }
    }
  }
  if (total > MAX_SELECTORS) {
    ctx.addIssue({ code: 'custom', path: [], message: `becomes ${total} selectors once its placeholders are filled in with their words (at most ${MAX_SELECTORS}): use fewer placeholders or fewer words` });
  }
  for (const [i, where] of (set.turnNumber ?? []).entries()) {
    const problem = patternProblem(where.pattern, '');
    if (problem) ctx.addIssue({ code: 'custom', path: ['turnNumber', i, 'pattern'], message: problem });
  }
  for (const key of PATTERN_KEYS) {
    check([key], set[key]);
    const problem = patternProblem(expandPattern(set, set[key]), 'i');
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
  }
});
/** Keys whose values are candidate lists (usable with the query helpers). */
export type ElementKey = {
  [K in keyof SelectorSet]-?: SelectorSet[K] extends readonly string[] ? K : never;
}[keyof SelectorSet];
