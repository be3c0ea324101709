import { z } from 'zod';
import { threadIdProblem } from './thread-ids';
import { INTERACTION_TEXT_MAX, PROMPT_MAX } from '../limits';

/**
 * The thread family's contract between the Node side (lib/mcp/tools/threads.ts) and the browser
 * side (the service worker's thread tabs and the content script's thread readers).
 *
 * A thread is a Perplexity conversation. Its `threadId` is the conversation's own stable id: the
 * last path segment of `/computer/tasks/{id}` or `/search/{id}`, or the uuid in the page's own
 * thread data; never a counter of ours, so a thread can be found again after any restart.
 *
 * The browser side reads what the thread shows and classifies it into one of the Computer MCP
 * server's events (below); the Node side turns a checkpoint into that server's result object and
 * decides how long to hold a call. Method names start with `threads.` or `account.`: the worker
 * routes them to the thread's own tab (opening it in the background when needed), never to the
 * tab the comet_* tools drive.
 *
 * A threadId that names no conversation the account can open fails with [THREAD_NOT_FOUND]; a
 * followupUuid that matches no waiting prompt of the thread fails with [INVALID_PARAMS] naming it.
 */

// ── events and their MCP Tasks state ─────────────────────────────────────────

/** Every event of the Computer MCP server's table, `timeout` included. */
export const THREAD_EVENTS = [
  'complete',
  'error',
  'cancelled',
  'sleep',
  'waiting',
  'ask_user_question',
  'confirm_action',
  'auth_required',
  'interaction_required',
  'two_factor_required',
  'insufficient_credits',
  'access_denied',
  'timeout',
] as const;
export const ThreadEvent = z.enum(THREAD_EVENTS);
export type ThreadEvent = z.infer<typeof ThreadEvent>;

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;


/** Events that end a held call: a final state or an actionable checkpoint (everything but timeout). */
export const CHECKPOINT_EVENTS = THREAD_EVENTS.filter((event) => event !== 'timeout');

// ── what a thread shows ──────────────────────────────────────────────────────

/**
 * One question of an `ask_user_question` checkpoint. Its words and choices are the agent's, of any length: the bounds
 * only keep a message sane, never below what a question can hold (threads review 2026-12-05, H3: a question of 230
 * characters, whose id is its text, or one of 60 options failed every read of its thread).
 */
export const ThreadQuestion = z.object({
  /** The page's own id for the question when it has one; else its text (the real research body names no id). */
  id: z.string().min(1).max(10_000),
  text: z.string().max(10_000),
  /** Multiple-choice answers, in the page's order. */
  options: z.array(z.string().max(10_000)).max(500).optional(),
  /** Whether more than one option may be chosen. */
  multiple: z.boolean().optional(),
});
export type ThreadQuestion = z.infer<typeof ThreadQuestion>;

/**
 * Something the thread waits on (or offers to) the person. `followupUuid` is the page's own id of
 * the prompt (the Computer MCP server's `followup_uuid`); answers and confirmations are sent back to it.
 */
export const ThreadCheckpointInteraction = z.object({
  type: z.enum(['ask_user_question', 'confirm_action', 'auth_required', 'interaction_required', 'two_factor_required']),
  followupUuid: z.string().min(1).max(200),
  /** The question(s) or the action the agent wants to take, as the page words it. */
  /** What the agent asks or wants to do: a confirm_action may quote a whole message it would send. */
  text: z.string().max(200_000),
  questions: z.array(ThreadQuestion).max(200).optional(),
  /** auth_required: the connector (`slack`), its display name, and the sign-in URL. */
  connector: z.string().max(200).optional(),
  displayName: z.string().max(200).optional(),
  title: z.string().max(1000).optional(),
  description: z.string().max(20_000).optional(),
  authUrl: z.string().max(4000).optional(),
  /** interaction_required: the page where only Perplexity can take the input. */
  url: z.string().max(4000).optional(),
  /** Deep Research questions expire: the time the service skips them by itself, when known (ISO). */
  expiresAt: z.string().optional(),
  /** false for optional sign-ins (connectors that would improve results but are not waited on). */
  requiresUserResponse: z.boolean(),
});
export type ThreadCheckpointInteraction = z.infer<typeof ThreadCheckpointInteraction>;

export const ThreadSource = z.object({
  title: z.string().nullable(),
  url: z.string(),
  domain: z.string(),
  snippet: z.string().nullable(),
});
export type ThreadSource = z.infer<typeof ThreadSource>;

export const ThreadFile = z.object({
  filename: z.string(),
  media_type: z.string().nullable(),
  size_bytes: z.number().int().min(0).nullable(),
  url: z.string(),
});
export type ThreadFile = z.infer<typeof ThreadFile>;

/** Why Computer cannot run for the account (insufficient_credits, access_denied). */
export const AccountBlock = z.object({
  reason: z.string().min(1).max(200),
  billingUrl: z.string().optional(),
  /** UTC time the quota comes back, when the page says (reason quota_exhausted). */
  quotaResetDate: z.string().optional(),
});

/** Which reader answered: the web app's thread JSON, or the page's DOM (selector sets). */
export const ThreadStateSource = z.enum(['json', 'page']);

/**
 * A thread's latest turn, classified. `event` is never `timeout`: that is the Node side's verdict
 * when no checkpoint came within the hold. While the turn still runs, `event` is null.
 */
export const ThreadCheckpoint = z.object({
  threadId: z.string().min(1),
  url: z.string(),
  /** The thread's title as the page shows it, when known (for progress lines and the side panel). */
  title: z.string().optional(),
  /** Index of the turn this describes (0-based, in the thread). */
  turn: z.number().int().min(0),
  /** The page's own id of that turn (the JSON's entry uuid) when known. */
  entryId: z.string().optional(),
  event: ThreadEvent.exclude(['timeout']).nullable(),
  /** Markdown: the answer, or what the agent asks / wants to do / why it failed. */
  text: z.string(),
  steps: z.array(z.string()),
  sources: z.array(ThreadSource).max(50),
  files: z.array(ThreadFile),
  /** sleep: when Computer resumes on its own (ISO 8601). */
  wakeAt: z.string().optional(),
  /** Waiting interactions in page order; more than one means `pending_interactions`. */
  interactions: z.array(ThreadCheckpointInteraction),
  /** Sign-ins offered but not waited on (the Computer MCP server's optional_auth_requests). */
  optionalAuth: z.array(ThreadCheckpointInteraction),
  account: AccountBlock.optional(),
  source: ThreadStateSource,
});
export type ThreadCheckpoint = z.infer<typeof ThreadCheckpoint>;

/** read_thread's `web_state`, as Perplexity shows it. */
export const ThreadWebState = z.object({
  thread_status: z.string(),
  wake_at: z.string().nullable(),
  entries: z.array(z.object({ entry_id: z.string().nullable(), status: z.string() })),
  interactions: z.array(ThreadCheckpointInteraction),
  auth_requests: z.array(ThreadCheckpointInteraction),
  form_links: z.array(z.object({ title: z.string(), url: z.string() })),
  source: ThreadStateSource,
});
export type ThreadWebState = z.infer<typeof ThreadWebState>;

export const ThreadTranscript = z.object({
  threadId: z.string(),
  url: z.string(),
  /** The thread's status as Perplexity names it (queued, running, idle, …). */
  status: z.string(),
  /** The user and assistant messages in order, as Markdown; the most recent turns kept. */
  text: z.string(),
  truncated: z.boolean(),
  webState: ThreadWebState.nullable(),
  webStateError: z.string().optional(),
});
export type ThreadTranscript = z.infer<typeof ThreadTranscript>;

export const ThreadAsset = z.object({
  asset_id: z.string(),
  entry_id: z.string(),
  filename: z.string().nullable(),
  mime_type: z.string().nullable(),
  size_bytes: z.number().int().min(0).nullable(),
  asset_type: z.string(),
  created_at: z.number().int(),
  is_primary_asset: z.boolean().nullable(),
  root_asset_id: z.string().nullable(),
  parent_asset_id: z.string().nullable(),
  published_url: z.string().nullable(),
})
  // Named: tools/list writes its fields under $defs (lib/mcp/tool-listing.ts); other nested parts are typed only.
  .meta({ id: 'thread_asset' });
export type ThreadAsset = z.infer<typeof ThreadAsset>;

// ── what the Node side sends ─────────────────────────────────────────────────

/** A file to put in the composer: the Node side has read it from COMET_RELAY_HOME/attachments. */
export const AttachmentPayload = z.object({
  filename: z.string().min(1).max(255),
  mimeType: z.string().min(1).max(255),
  /** base64 of the file's bytes. */
  data: z.string(),
});
export type AttachmentPayload = z.infer<typeof AttachmentPayload>;

/**
 * Most bytes of files that go with one turn, all files together: they travel to the browser inside
 * one message, as base64 (4/3 of their size), and a message may be at most 64 MB (framing.ts).
 */
export const MAX_TURN_ATTACHMENT_BYTES = 40 * 1024 * 1024;

export const COMPUTER_MODES = ['light', 'standard', 'high', 'ultra'] as const;
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Settings of a turn: a mode, or a model with an optional effort (validated by the Node side). */
export const TurnSettings = z.object({
  mode: z.enum(COMPUTER_MODES).optional(),
  model: z.string().min(1).max(200).optional(),
  effort: z.enum(EFFORTS).optional(),
});

/** Where a submitted turn is: pass `afterTurn` to threads.wait to bind the wait to it. */
export const SubmittedTurn = z.object({
  threadId: z.string().min(1),
  url: z.string(),
  /** The new turn's index; threads.wait({ turn }) waits for this one, never an earlier one. */
  turn: z.number().int().min(0),
  /** What went wrong after the turn was sent (a start whose page call failed once its task had an address): said before its result. */
  note: z.string().optional(),
});

/**
 * The page refused before anything was sent: the account's credit check failed, or Computer is not
 * available to the account. Nothing reached the thread (the seed's "before a message is sent" case:
 * the result then has no thread_id and no task_status). threads.start / send / respond may answer
 * this instead of a SubmittedTurn.
 */
export const TurnNotSent = z.object({
  notSent: z.literal(true),
  event: z.enum(['insufficient_credits', 'access_denied']),
  /** What the page says, as Markdown. */
  text: z.string(),
  account: AccountBlock,
});
export type TurnNotSent = z.infer<typeof TurnNotSent>;
export const TurnSubmission = z.union([SubmittedTurn, TurnNotSent]);
export type TurnSubmission = z.infer<typeof TurnSubmission>;

/** One question's answer: its text, or for a multi-select question each chosen choice. */
/** The bounds of answer_question's own schema (lib/mcp/tools/threads.ts), so what the tool takes the worker takes too. */
export const ThreadAnswer = z.union([z.string().max(10_000), z.array(z.string().max(10_000)).min(1).max(500)]);
export type ThreadAnswer = z.infer<typeof ThreadAnswer>;

export const ThreadReply = z.discriminatedUnion('kind', [
  /** Keys are question ids or question texts; a single waiting question takes a single answer under any key. */
  z.object({ kind: z.literal('answers'), answers: z.record(z.string(), ThreadAnswer) }),
  z.object({ kind: z.literal('approve'), reason: z.string().max(5000) }),
  z.object({ kind: z.literal('deny'), reason: z.string().max(5000) }),
  z.object({ kind: z.literal('connected'), message: z.string().max(5000) }),
]);
export type ThreadReply = z.infer<typeof ThreadReply>;

/** The thread-id rule's own sentence, so a refusal at this boundary reads like one from the tools. */
const ThreadId = z.string().superRefine((value, ctx) => {
  const problem = threadIdProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const Attachments = z.array(AttachmentPayload).max(10).default([]);

export const ModelsList = z.object({
  default_mode: z.string().nullable(),
  modes: z.array(z.object({ mode: z.string(), model: z.string(), effort: z.string() })),
  models: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      description: z.string(),
      fast: z.boolean(),
      efforts: z.array(z.string()),
      default_effort: z.string().nullable(),
    }),
  ),
  default_model: z.string().nullable(),
});
export type ModelsList = z.infer<typeof ModelsList>;

export const ProjectsPage = z.object({
  projects: z.array(
    z.object({
      project_uuid: z.string(),
      project_url: z.string(),
      name: z.string(),
      description: z.string(),
      role: z.string(),
      landing_category: z.string(),
      knowledge_enabled: z.boolean(),
    }),
  ),
  next_cursor: z.string().nullable(),
});

/** The longest one threads.wait may hold (and so the longest thread hold a setting may ask). */
export const MAX_THREAD_WAIT_MS = 3_600_000;
/** The most tabs comet-relay may keep open for threads (COMET_THREAD_TABS). */
export const MAX_THREAD_TABS = 50;
/** COMET_THREAD_TABS: tabs we opened for threads are capped; the least recently used idle one closes. */
const TabCap = z.number().int().min(1).max(MAX_THREAD_TABS).default(6);

export const threadMethods = {
  /** Opens a background tab, sets up the turn (computer, project, settings, files) and submits. */
  'threads.start': {
    params: z.object({
      message: z.string().max(PROMPT_MAX),
      attachments: Attachments,
      settings: TurnSettings.default({}),
      projectUuid: z.string().min(1).max(200).optional(),
      projectVisibility: z.enum(['private', 'project']).optional(),
      tabCap: TabCap,
    }),
    result: TurnSubmission,
  },
  /** A follow-up in an existing thread (its tab found by URL or reopened in the background). */
  'threads.send': {
    params: z.object({
      threadId: ThreadId,
      message: z.string().max(PROMPT_MAX),
      attachments: Attachments,
      settings: TurnSettings.default({}),
      tabCap: TabCap,
    }),
    result: TurnSubmission,
  },
  /** Answers, approves, denies or reports a sign-in done, then returns the turn that continues. */
  'threads.respond': {
    params: z.object({
      threadId: ThreadId,
      followupUuid: z.string().min(1).max(200).optional(),
      /** The prompt's words as the caller saw them: what *Require approval* shows the person, as long as the page shows them. */
      about: z.string().max(INTERACTION_TEXT_MAX).optional(),
      reply: ThreadReply,
      attachments: Attachments,
      tabCap: TabCap,
    }),
    result: TurnSubmission,
  },
  /**
   * Resolves at the first checkpoint of turn `turn` (or of the latest turn), event-driven; sends
   * each new step as progress (the progress message is the step's text, one message per step).
   * `timeoutMs` ends the wait with `event: null` (the Node side says timeout). `quietMs`, when
   * given, ends it early after that long without any change.
   */
  'threads.wait': {
    params: z.object({
      threadId: ThreadId,
      turn: z.number().int().min(0).optional(),
      timeoutMs: z.number().int().min(0).max(MAX_THREAD_WAIT_MS),
      quietMs: z.number().int().min(1000).max(MAX_THREAD_WAIT_MS).optional(),
      /** The steps the caller already heard as progress: only the others are sent. */
      heard: z.array(z.string().max(2000)).max(1000).optional(),
      tabCap: TabCap,
    }),
    result: ThreadCheckpoint,
  },
  /** The latest turn's checkpoint without waiting (what the panel and read_thread show). */
  'threads.state': {
    params: z.object({ threadId: ThreadId, tabCap: TabCap }),
    result: ThreadCheckpoint,
  },
  'threads.read': {
    params: z.object({
      threadId: ThreadId,
      maxChars: z.number().int().min(1000).max(10_000_000).default(100_000),
      tabCap: TabCap,
    }),
    result: ThreadTranscript,
  },
  'threads.assets': {
    params: z.object({
      threadId: ThreadId,
      entryId: z.string().max(200).optional(),
      cursor: z.string().max(200).optional(),
      tabCap: TabCap,
    }),
    result: z.object({ assets: z.array(ThreadAsset), next_cursor: z.string().nullable() }),
  },
  'threads.assetDownload': {
    params: z.object({ threadId: ThreadId, assetId: z.string().min(1).max(200), tabCap: TabCap }),
    result: z.object({ asset_id: z.string(), url: z.string(), expires_in_seconds: z.number().int().nullable() }),
  },
  /** Read in any Perplexity tab (a background one is opened, within the cap, when none is open). */
  'account.models': { params: z.object({ tabCap: TabCap }).strict(), result: ModelsList },
  'account.projects': {
    params: z.object({
      searchTerm: z.string().max(500).optional(),
      cursor: z.string().max(200).optional(),
      tabCap: TabCap,
    }),
    result: ProjectsPage,
  },
} as const;
