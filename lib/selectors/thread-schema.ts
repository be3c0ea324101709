import { z } from 'zod';
import { pathProblem } from './language/json-path';
import { patternProblem } from './language/pattern-check';

/**
 * The shapes of the two thread readers, kept as data like the selector sets (schema.ts):
 *
 * - a page reader (`ThreadPageReader`): where a thread's state shows in the DOM, beside the
 *   selector set of the UI generation (turns, steps and answers come from the set);
 * - a JSON reader (`ThreadJsonReader`): how to ask the web app's own thread data and where in it
 *   each fact sits, as candidate paths tried in order (the answer moved three times in 2026).
 *
 * Page code imports only the types (erased at build time), so the content script carries no zod;
 * these schemas check the built-in readers in unit tests and can check readers loaded as JSON.
 * Unknown keys are allowed, so a newer reader file still loads in an older build.
 */

/** CSS selectors, tried in order (exported so a pack's wrong field can be explained: lib/packs/kinds.ts). */
export const ReaderCandidates = z.array(z.string().min(1)).min(1).readonly();
const Candidates = ReaderCandidates;
/** Attribute names, tried in order. */
export const ReaderAttributes = z.array(z.string().min(1)).min(1).readonly();
const Attributes = ReaderAttributes;
const Name = z.string().regex(/^(thread-page|thread-json|account-json)-\d{4}-\d{2}$/);

/**
 * A path on perplexity.ai: the worker opens thread tabs at these and the page fetches them with the
 * account's cookies, so a reader file must not be able to point them at another host. One leading
 * "/" and no second one or backslash after it (`//host/…` and `/\host/…` leave the origin), and no
 * control characters (the URL parser drops tabs and newlines, so `/<tab>/host` would become `//host`).
 */
export const SameOriginPath = z
  .string()
  .regex(/^\/(?![/\\])[^\\\u0000-\u001f\u007f]*$/, 'must be a path on perplexity.ai: one leading "/" (not "//"), no backslash or control character');

export const INTERACTION_KINDS = ['ask_user_question', 'confirm_action', 'auth_required', 'interaction_required', 'two_factor_required'] as const;
export const InteractionKind = z.enum(INTERACTION_KINDS);

/**
 * An element known by its words: one in `scope` whose text matches `pattern` (case-insensitive).
 * For what the public record shows only as text (a 404's title, the credits notice).
 */
const WordsProbe = z.object({
  scope: Candidates,
  // Checked here, as selector sets check theirs: a bad pattern fails `selectors add`, not every thread call.
  pattern: z.string().superRefine((p, ctx) => {
    const problem = patternProblem(p, 'i');
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

export const ThreadPageReaderSchema = z.looseObject({
  name: Name,
  version: z.number().int().min(1),
  /** When the facts below were last checked against a page, and against which (ISO date). */
  checked: z.string(),
  /** The thread's title on a task page. */
  title: Candidates,
  /** The page says the thread does not exist (its text, case-insensitive). */
  notFound: WordsProbe,

  /** Boxes inside the current turn, by the event they stand for. */
  boxes: z.record(InteractionKind, Candidates),
  /** A sign-in offered but not waited on. */
  optionalAuth: Candidates,
  /** Attributes that carry a box's own id (the Computer server's followup_uuid). */
  boxId: Attributes,
  boxPrompt: Candidates,
  /** Inside a box of several questions: one element per question. */
  question: Candidates,
  questionId: Attributes,
  questionText: Candidates,
  /** A question's choices (radio or checkbox items). */
  questionChoice: Candidates,
  /** Submit / Skip of a box of several questions. */
  questionsSubmit: Candidates,
  questionsSkip: Candidates,
  /** When the box's questions expire (an attribute holding an ISO time). */
  expiresAt: Attributes,
  connectorId: Attributes,
  authDescription: Candidates,
  authLink: Candidates,
  /** "I've connected": tells the task the sign-in is done. */
  authDone: Candidates,
  formLink: Candidates,

  sleeping: Candidates,
  /** Inside the sleep notice: the time it wakes (an element with a datetime), and why it sleeps. */
  wakeTime: Candidates,
  sleepReason: Candidates,
  waiting: Candidates,
  insufficientCredits: Candidates,
  /**
   * The credits notice by its words, tried after `insufficientCredits`: the smallest element in scope
   * whose own text (answers and questions quoting the words left out) matches. Optional: readers
   * written before 2026-12 load.
   */
  insufficientCreditsWords: WordsProbe.optional(),
  /**
   * Deep Research's report card above a turn's summary (since about 2026-08-20): an element whose own text is the
   * card's label; the card's other words are the report's title. Optional: readers written before 2026-12-06 load.
   */
  reportCard: WordsProbe.optional(),
  billingLink: Candidates,
  quotaReset: Candidates,
  /** Attribute with the reason for the credit block (`quota_exhausted`, …). */
  creditsReason: Attributes,
  accessDenied: Candidates,

  /** Files the task produced: one card each, its link, and attributes with its ids. */
  asset: Candidates,
  assetLink: Candidates,
  assetId: Attributes,
  assetRootId: Attributes,
  assetParentId: Attributes,

  /** The composer's file input, and the chip each attached file shows. */
  fileInput: Candidates,
  attachmentChip: Candidates,
  /** Attribute of a chip saying its upload state, and the value that means done / failed. */
  attachmentState: z.object({ attribute: z.string(), ready: z.string(), failed: z.string() }),

  /** The Computer settings control and its items (`{value}` is replaced by the mode/model/effort). */
  settingsButton: Candidates,
  settingsMode: z.string().includes('{value}'),
  settingsModel: z.string().includes('{value}'),
  settingsEffort: z.string().includes('{value}'),
  /** On a Project's page: the "visible to project members" toggle (aria-pressed). */
  projectVisibility: Candidates,
  /** A Project's page, from its uuid (`{uuid}`). */
  projectPath: SameOriginPath.includes('{uuid}'),
});
export type ThreadPageReader = z.infer<typeof ThreadPageReaderSchema>;

/** The fields every page reads a waiting box with (lib/page/checkpoints/thread-boxes.ts); the rest only thread tabs' kits read. */
export type BoxReader = Pick<
  ThreadPageReader,
  'boxes' | 'optionalAuth' | 'boxId' | 'boxPrompt' | 'question' | 'questionId' | 'questionText' | 'questionChoice' | 'expiresAt' | 'connectorId' | 'authDescription' | 'authLink' | 'formLink'
>;

/**
 * Candidate paths in the JSON (see lib/selectors/language/json-path.ts for the path language), each checked to be one: a pack's
 * unclosed bracket fails `selectors add`, not every read through it (review 13c, F3).
 */
export const ReaderPaths = z
  .array(
    z
      .string()
      .min(1)
      .superRefine((path, ctx) => {
        const problem = pathProblem(path);
        if (problem) ctx.addIssue({ code: 'custom', message: `is not a JSON path the readers can follow (${problem})` });
      }),
  )
  .min(1)
  .readonly();
const Paths = ReaderPaths;

export const ThreadJsonReaderSchema = z.looseObject({
  name: Name,
  version: z.number().int().min(1),
  checked: z.string(),
  request: z.object({
    /** `{id}` is the thread's uuid or slug, URL-encoded. */
    path: SameOriginPath.includes('{id}'),
    query: z.record(z.string(), z.string()),
    headers: z.record(z.string(), z.string()),
    cursorParam: z.string(),
    /** Query changes for the pages after the first, which go by `cursorParam` (the web app asks for more at a time then). */
    nextQuery: z.record(z.string(), z.string()).optional(),
    /** Never ask for one thread more often than this (the endpoint rate-limits). */
    minIntervalMs: z.number().int().min(1000),
    /** After an empty body (rate limited), wait this long before asking again. */
    emptyBackoffMs: z.number().int().min(1000),
    /** Pages followed at most for one reading. */
    maxPages: z.number().int().min(1).max(50),
  }),
  thread: z.object({
    entries: Paths,
    nextCursor: Paths,
    /** The page's word that more follow: with no new cursor, the thread read is cut (optional: older readers load). */
    hasNext: Paths.optional(),
    title: Paths,
    uuid: Paths,
    slug: Paths,
    modeType: Paths,
    lockedReason: Paths,
    billingUrl: Paths,
    quotaResetDate: Paths,
    /** When a sleeping thread wakes (ISO). Optional here and below: readers written before 2026-12 load. */
    wakeAt: Paths.optional(),
    /** The thread's files, beside each entry's own (Computer's shared files). */
    assets: Paths.optional(),
    /** Perplexity's own word for the thread's state (read_thread's web_state.thread_status). */
    status: Paths.optional(),
  }),
  /** Relative to one entry. */
  entry: z.object({
    id: Paths,
    query: Paths,
    status: Paths,
    /** Where the answer Markdown sits, newest location first. */
    answer: Paths,
    /** Answer chunks to join when no candidate above holds the answer. */
    answerChunks: Paths,
    steps: Paths,
    workflowStatus: Paths,
    wakeAt: Paths,
    waitingReason: Paths,
    errorMessage: Paths,
    sources: Paths,
    /** Items that ask the person something (questions, a confirmation, a sign-in…). */
    userResponses: Paths,
    /** Items that hold what the person answered, matched to their question item by `userResponse.itemId`. */
    userAnswers: Paths.optional(),
    assets: Paths,
  }),
  source: z.object({ title: Paths, url: Paths, snippet: Paths }),
  /** Relative to one user-response item. */
  userResponse: z.object({
    /** The item's own id, which its answer item shares. */
    itemId: Paths.optional(),
    /** The id an answer is submitted with (the Computer server's followup_uuid). */
    id: Paths,
    kind: Paths,
    prompt: Paths,
    required: Paths,
    responses: Paths,
    /** In an answer item: each answer, its question and its text. */
    answers: Paths.optional(),
    answerQuestion: Paths.optional(),
    answerText: Paths.optional(),
    expiresAt: Paths,
    questions: Paths,
    questionId: Paths,
    questionText: Paths,
    questionOptions: Paths,
    questionMultiple: Paths,
    connectorId: Paths,
    connectorName: Paths,
    authUrl: Paths,
    title: Paths,
    description: Paths,
    formTitle: Paths,
    formUrl: Paths,
  }),
  /** Relative to one asset. */
  asset: z.object({
    id: Paths,
    type: Paths,
    primary: Paths,
    rootId: Paths,
    parentId: Paths,
    createdAt: Paths,
    publishedUrl: Paths,
    url: Paths,
    filename: Paths,
    size: Paths,
    mediaType: Paths,
    expiresAt: Paths,
  }),
  /**
   * The kinds of block an entry holds (its blocks' `intended_usage`), each read, deliberately ignored, or known and not
   * exported (with the words the export says it in), so a block of any other kind is named in the export rather than
   * skipped in silence (review 15e, F9). `{n}` in a kind stands for a number. Optional: readers written before
   * 2026-12-06 load, and name no kind.
   */
  blockKinds: z
    .object({
      /** Relative to one entry: every block's kind. */
      kind: Paths,
      read: z.array(z.string()).readonly(),
      ignored: z.array(z.string()).readonly(),
      unexported: z.record(z.string(), z.string()),
    })
    .optional(),
  /** Values the page's data uses, mapped to ours. */
  values: z.object({
    entryRunning: z.array(z.string()).readonly(),
    /**
     * An entry's status that says its turn is finished (lib/protocol/threads/entry-status.ts). Absent (a reader made
     * before 2026-12-05): an entry with no workflow is never taken as finished by its status.
     */
    entryComplete: z.array(z.string()).readonly().optional(),
    workflow: z.object({
      complete: z.array(z.string()).readonly(),
      error: z.array(z.string()).readonly(),
      cancelled: z.array(z.string()).readonly(),
      /** The workflow waits: on the person (pending user responses), a wake time, or something else. */
      awaiting: z.array(z.string()).readonly(),
      /** The workflow waits on the person's answer (questions open). */
      awaitingUser: z.array(z.string()).readonly().optional(),
    }),
    userResponseKinds: z.record(InteractionKind, z.array(z.string()).readonly()),
    lockedReasons: z.object({ insufficient_credits: z.array(z.string()).readonly(), access_denied: z.array(z.string()).readonly() }),
    /** The thread's kind (`computer`, `research`, `search`) by the value at `thread.modeType`. */
    threadKinds: z.record(z.string(), z.array(z.string()).readonly()).optional(),
  }),
});
export type ThreadJsonReader = z.infer<typeof ThreadJsonReaderSchema>;

/**
 * The account's side of the web app's JSON, read by the service worker from what a Perplexity tab
 * fetched: Computer's modes and models (models_list), Projects (projects_list), and the recent
 * threads (to find a thread given by uuid or slug). Kept apart from the thread reader so the page
 * carries only what it interprets itself.
 */
export const AccountJsonReaderSchema = z.looseObject({
  name: Name,
  version: z.number().int().min(1),
  checked: z.string(),
  /** Headers the web app sends with these requests (without them lists come back empty or cut). */
  headers: z.record(z.string(), z.string()),
  listRecent: z.object({
    path: SameOriginPath,
    threads: Paths,
    uuid: Paths,
    slug: Paths,
    modeType: Paths,
    /** A thread's page by its mode type, with `{uuid}` / `{slug}` (to find a thread given by either). */
    threadPath: z.record(z.string(), SameOriginPath),
  }),
  /** The account's Computer options and Projects (the Computer server's models_list / projects_list). */
  models: z.object({
    path: SameOriginPath,
    /** Query parameters of the request (optional: readers written before 2026-12 have none). */
    query: z.record(z.string(), z.string()).optional(),
    defaultMode: Paths,
    modes: Paths,
    mode: z.object({ mode: Paths, model: Paths, effort: Paths }),
    models: Paths,
    model: z.object({ id: Paths, label: Paths, description: Paths, fast: Paths, efforts: Paths, defaultEffort: Paths }),
    defaultModel: Paths,
  }),
  projects: z.object({
    path: SameOriginPath,
    searchParam: z.string(),
    cursorParam: z.string(),
    list: Paths,
    nextCursor: Paths,
    project: z.object({
      uuid: Paths,
      url: Paths,
      name: Paths,
      description: Paths,
      role: Paths,
      landingCategory: Paths,
      knowledgeEnabled: Paths,
    }),
  }),
  /**
   * What the account has left of each mode (optional: readers written before 2026-12-06 have none). `modes` names,
   * per comet_mode mode, where its entry is (a name no mode has is never asked for, not refused: a reader written for
   * a later build stays readable); only an entry found there and saying `available` false speaks.
   */
  modeLimits: z
    .object({
      path: SameOriginPath,
      modes: z.record(z.string(), Paths),
      available: Paths,
      remaining: Paths,
    })
    .optional(),
});
export type AccountJsonReader = z.infer<typeof AccountJsonReaderSchema>;
