import { z } from 'zod';

/**
 * The shape of a selector set: every page fact the reader and actions rely on, as data.
 * Page code imports only the *type* (erased at build time), so the content script carries no zod;
 * the schema itself is checked in a unit test and can validate a set loaded from elsewhere.
 *
 * A `Candidates` list is tried in order; the first selector that matches wins. Keeping several
 * candidates per element is how a set survives small markup changes between site deployments.
 */
const Candidates = z.array(z.string().min(1)).min(1).readonly();

export const MODES = ['standard', 'deep-research', 'model-council', 'create', 'learn', 'review', 'computer'] as const;
export const ModeSchema = z.enum(MODES);
export type Mode = (typeof MODES)[number];

export const SelectorSetSchema = z
  .object({
    name: z.string().regex(/^gen-[a-z]-\d{4}-\d{2}$/),
    generation: z.enum(['A', 'B']),
    /** Only orders the candidates when probing; the page itself decides. */
    minChromeMajor: z.number().int().min(0),
    /** Elements whose presence says "this is my generation" / "this is not". */
    signature: z.object({ present: Candidates, absent: z.array(z.string()).readonly() }),

    composer: Candidates,
    submit: Candidates,
    stopButton: Candidates,
    spinner: Candidates,
    newThread: Candidates,

    threadColumn: Candidates,
    turn: Candidates,
    userBubble: Candidates,
    queryText: Candidates,
    queryExpand: Candidates,
    stepsBlock: Candidates,
    /** Step rows when marked; otherwise the reader takes the block's innermost text blocks. */
    stepRow: Candidates,
    /** The button that folds/unfolds the step rows (they fold once the agent is done). */
    stepsToggle: Candidates,
    /** Header lines that are not steps ("Finished 3 steps", "Stopped after 2 steps", "Working…"). */
    stepsHeaderPattern: z.string(),
    /** Header once the agent is done; a secondary signal only (the stop button decides). */
    stepsFinishedPattern: z.string(),
    /** Header once the user stopped the agent. */
    stepsStoppedPattern: z.string(),
    answer: Candidates,
    prose: Candidates,
    codeBlock: Candidates,
    codeLanguage: Candidates,
    /** Chrome inside the answer that is not answer text (copy buttons, spacers, icons). */
    answerChrome: Candidates,
    errorMessage: Candidates,
    /** Regions that are never "the current turn" (sidebar, its skeleton loaders). */
    outsideThread: Candidates,

    citationInline: Candidates,
    citationUrlAttr: z.string(),
    /** Visible text of a grouped citation, e.g. "reuters+2". */
    citationGroupPattern: z.string(),
    citationBadge: Candidates,
    citationPopover: Candidates,
    citationPopoverEntry: Candidates,
    /** Inside an entry: where its title is, and its link. */
    entryTitle: Candidates,
    link: Candidates,
    sourcesTab: Candidates,
    /** Text of the tab that lists sources; tabs are otherwise indistinguishable. */
    sourcesTabPattern: z.string(),
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
    /** Icon fragment (`#pplx-icon-…`) → mode. Locale-independent. */
    modeIcons: z.record(z.string().startsWith('#'), ModeSchema),
    /** English labels → mode, the fallback when an item has no known icon. */
    modeLabels: z.record(z.string(), ModeSchema),
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
    watchAttributes: z.array(z.string()).readonly(),
  })
  .strict();

export type SelectorSet = z.infer<typeof SelectorSetSchema>;
/** Keys whose values are candidate lists (usable with the query helpers). */
export type ElementKey = {
  [K in keyof SelectorSet]: SelectorSet[K] extends readonly string[] ? K : never;
}[keyof SelectorSet];
