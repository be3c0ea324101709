import { z } from 'zod';

/**
 * The library as data (issue 29): the person's threads as the site lists them (`library.list`) and
 * one thread whole, every turn across every page of its JSON (`library.thread`). Both are reads,
 * fetched by a Perplexity tab of the browser (never a navigation of the person's tab); the public
 * door sees neither unless the person turns on PUBLIC_LIBRARY_SETTING (lib/protocol/access.ts).
 * The MCP tools, the MCP resources and `comet-relay export` all build on these two methods.
 */

/** Tabs comet-relay may keep open (COMET_THREAD_TABS), as the thread methods take it. */
const TabCap = z.number().int().min(1).max(50).optional();

/** The most threads one `library.list` call returns (the site's own page size caps there too). */
export const LIBRARY_MAX_LIMIT = 100;
export const LIBRARY_DEFAULT_LIMIT = 20;

export const LibraryListParams = z
  .object({
    /** The site's own library search (its `search_term`); empty or absent lists everything. */
    query: z.string().max(500).optional(),
    /** A Space (a collection in the API) by its title or its slug. */
    space: z.string().min(1).max(200).optional(),
    limit: z.number().int().min(1).max(LIBRARY_MAX_LIMIT).default(LIBRARY_DEFAULT_LIMIT),
    offset: z.number().int().min(0).max(1_000_000).default(0),
    /** Only threads with activity on or after this day (UTC); the list is newest first, so paging stops there. */
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'since is a day, YYYY-MM-DD')
      .optional(),
    tabCap: TabCap,
  })
  .strict();
export type LibraryListParams = z.input<typeof LibraryListParams>;

export const LibraryThread = z.object({
  /** The id the thread endpoint takes (and the last segment of its URL). */
  slug: z.string(),
  title: z.string(),
  /** Its page on perplexity.ai. */
  url: z.string(),
  /** ISO 8601 (UTC when the site gave no zone), or null when the site gave none. */
  lastActivity: z.string().nullable(),
  created: z.string().nullable(),
  /** The site's word for how it was asked (search, research, computer, …), or null. */
  mode: z.string().nullable(),
  /** The Space's title when the thread is in one. */
  space: z.string().nullable(),
});
export type LibraryThread = z.infer<typeof LibraryThread>;

export const LibraryPage = z.object({
  /** Newest first. */
  threads: z.array(LibraryThread),
  /** How many threads the whole (filtered) list holds, when the site says. */
  total: z.number().int().nullable(),
  offset: z.number().int(),
  /** The `offset` of the next page, or null when this is the last. */
  nextOffset: z.number().int().nullable(),
});
export type LibraryPage = z.infer<typeof LibraryPage>;

export const LibraryThreadParams = z
  .object({
    /** A slug or a perplexity.ai thread URL (thread-ref.ts threadSlugOf); the worker checks it again. */
    thread: z.string().min(1).max(2000),
    tabCap: TabCap,
  })
  .strict();
export type LibraryThreadParams = z.input<typeof LibraryThreadParams>;

export const ExportedSource = z.object({
  /** The number the answer's citations use for it (`[n]`), 1 for the first source. */
  n: z.number().int().min(1),
  title: z.string(),
  url: z.string(),
});
export type ExportedSource = z.infer<typeof ExportedSource>;

/** A file of a turn: a Computer task's output, the thread's shared files counted with its latest turn (as read_thread counts them). */
export const ExportedFile = z.object({
  /** The asset's id (list_thread_assets' `asset_id`). */
  id: z.string(),
  /** Its file name, or null when the JSON gives none. */
  name: z.string().nullable(),
  /** The site's kind of file, lower-case (`pdf_file`, `code_file`, `doc_file`, …). */
  type: z.string(),
  /** Its download link, or null when the JSON gives none (the site shows it in its viewer only); a signed link expires. */
  url: z.string().nullable(),
  size: z.number().int().nullable(),
});
export type ExportedFile = z.infer<typeof ExportedFile>;

/** Questions the turn asked the person (a Deep Research clarification, a Computer task's choices), with their answers. */
export const ExportedAsked = z.object({
  /** What the site asked in its words (a group's title, a confirmation's prompt); '' when it gave the questions only. */
  prompt: z.string(),
  questions: z.array(z.string()),
  /** The person's answers, each with its question; empty when they gave none (not answered, or the questions timed out). */
  answers: z.array(z.object({ question: z.string(), answer: z.string() })),
});
export type ExportedAsked = z.infer<typeof ExportedAsked>;

export const ExportedTurn = z.object({
  question: z.string(),
  /** The answer's Markdown exactly as the JSON holds it (citations as `[n]`); the Markdown export nests its headings under the turn's. */
  answer: z.string(),
  sources: z.array(ExportedSource),
  /** The site still writes this turn (its entry is running): the answer is what it held then, not the whole. */
  running: z.literal(true).optional(),
  /**
   * The turn ended without finishing, as its workflow says (the event table's `cancelled` and `error`,
   * lib/protocol/threads/thread-events.ts): the answer, if any, is what it wrote before.
   */
  outcome: z.enum(['cancelled', 'error']).optional(),
  /** Why it failed, in the site's words, when it says. */
  error: z.string().optional(),
  asked: z.array(ExportedAsked).optional(),
  files: z.array(ExportedFile).optional(),
  /**
   * Blocks of the entry the export holds nothing of, by kind: `what` says what a known kind is (images shown with the
   * answer); without it, a kind comet-relay does not read.
   */
  unread: z.array(z.object({ kind: z.string(), blocks: z.number().int().min(1), what: z.string().optional() })).optional(),
});
export type ExportedTurn = z.infer<typeof ExportedTurn>;

export const ExportedThread = z.object({
  slug: z.string(),
  url: z.string(),
  title: z.string(),
  created: z.string().nullable(),
  updated: z.string().nullable(),
  mode: z.string().nullable(),
  model: z.string().nullable(),
  space: z.string().nullable(),
  /** Every turn, oldest first. */
  turns: z.array(ExportedTurn),
  /** How many pages of the thread JSON were fetched for it. */
  pages: z.number().int().min(1),
});
export type ExportedThread = z.infer<typeof ExportedThread>;

export const libraryMethods = {
  'library.list': { params: LibraryListParams, result: LibraryPage },
  'library.thread': { params: LibraryThreadParams, result: ExportedThread },
} as const;

/**
 * The codes a library call fails with (lib/protocol/errors.ts), by what went wrong: a program (the
 * exporter) decides on the code, a person reads the message.
 */
export const LIBRARY_ERRORS = {
  /** A body no reader knows (no `entries`, not an array…): the message names what was looked for. */
  shape: 'JSON_SHAPE',
  /** HTTP 404: no such thread (or Space) for this account. */
  notFound: 'THREAD_NOT_FOUND',
  /** HTTP 401: the tab that fetched is signed out. */
  signedOut: 'SIGNED_OUT',
  /** HTTP 429: `data.retryAfterMs` from its Retry-After when the site sent one. */
  rateLimited: 'RATE_LIMITED',
  /** Not a slug or a perplexity.ai thread URL; an unknown Space. */
  badInput: 'INVALID_PARAMS',
} as const;

/** The side panel's setting that opens the library to the public door (ControlSettings.publicLibrary), in its words. */
export const PUBLIC_LIBRARY_SETTING = 'Let the Agent API read my library';
