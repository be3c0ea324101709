import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RelayError } from '../../protocol/errors';
import { INTERACTION_TEXT_MAX, PROMPT_MAX } from '../../protocol/limits';
import { COMPUTER_MODES, EFFORTS, ModelsList, ProjectsPage, ThreadAsset, type ThreadCheckpointInteraction, type ThreadReply, type TurnSubmission } from '../../protocol/threads/threads';
import { heartbeat, holdThread, SUBMIT_TIMEOUT_MS } from '../threads/hold';
import { checkpointResult, jsonResult, notSentResult, ThreadResultShape, TranscriptShape, transcriptResult } from '../threads/result';
import { accountChoiceProblem, type InteractionType, pickInteractions, resolveAnswers, threadIdProblem, turnArgsProblem } from '../threads/rules';
import { FILES_WITH_A_REPLY } from '../../protocol/threads/thread-replies';
import { clip, defineTool, errorText, type ToolContext, type ToolDefinition } from '../tool';

/**
 * The thread family: the eleven tools of Perplexity's Computer MCP server, with its parameters,
 * rules and result objects, realised on Perplexity conversations in the user's own browser. A
 * thread_id is the conversation's own id, so every tool works again after any restart.
 */

/**
 * What to do after each event: said once, here, in the one tool that starts threads and in the
 * server's instructions (lib/mcp/server.ts); the tools that answer a thread point back to it.
 */
export const EVENT_GUIDE =
  'Returns thread_id (keep it), event, text, task_status and, when present, sources, files, interactive. By event: ' +
  'complete: done. error: see text. cancelled: start again or continue. ' +
  'ask_user_question: ask the user, then answer_question. confirm_action: ask the user, then confirm_action_approve or confirm_action_deny. ' +
  'auth_required: the user signs in at interactive.auth_url, then notify_connected. ' +
  'interaction_required (the user completes interactive.url), two_factor_required (follow text), waiting: then continue with thread_id and a message. ' +
  'sleep: resumes at wake_at. insufficient_credits, access_denied: tell the user (interactive.billing_url). ' +
  'timeout: still working; read_thread to check (or wait again: thread_id, no message, nothing sent). ' +
  'Several prompts waiting: pending_interactions.';

/** How a reply tool ends: the same hold and result as call_perplexity_computer. */
const THEN_WAITS = 'Waits and returns like call_perplexity_computer.';

// Named for what they take (a result's thread_id, create_attachment_upload's attachment_url, interactive.followup_uuid): no description needed.
const threadId = z.string().min(1).max(200);
const attachmentUrls = z.array(z.string().max(4000)).max(10).optional();
const followupUuid = z.string().min(1).max(200).optional();

// ── starting and continuing ──────────────────────────────────────────────────

const callComputer = defineTool({
  name: 'call_perplexity_computer',
  title: 'Call Perplexity Computer',
  description:
    'Send Perplexity Computer (an agent that browses, codes, writes documents, uses connectors) a new task, or a follow-up with thread_id; ' +
    `waits up to 2 min (longer as an MCP task) for it to finish or need the user. ${EVENT_GUIDE}`,
  inputSchema: {
    message: z.string().max(PROMPT_MAX).optional().describe('Required for a new thread.'),
    thread_id: threadId.optional().describe('Continue this thread; omit to start one.'),
    attachment_urls: attachmentUrls,
    project_uuid: z.string().min(1).max(200).optional().describe('Start in this Project (projects_list); not with thread_id.'),
    project_visibility: z.enum(['private', 'project']).optional().describe('Requires project_uuid. Default private; project: its members can view.'),
    mode: z.enum(COMPUTER_MODES).optional().describe('As models_list offers; not with model.'),
    model: z.string().min(1).max(200).optional().describe('An id from models_list; not with mode.'),
    effort: z.enum(EFFORTS).optional().describe("One of the model's efforts; requires model. Default: its default_effort."),
  },
  outputSchema: ThreadResultShape,
  uses: ['account.models', 'threads.start', 'threads.send', 'threads.wait', 'threads.respond', 'threads.state'],
  taskSupport: 'optional',
  summarize: ({ message, thread_id }) => `${thread_id ? `[${thread_id}] ` : ''}${clip(message ?? '', 80)}`,
  async handler(args, context) {
    const problem = turnArgsProblem(args, args.attachment_urls?.length ?? 0);
    if (problem) return invalid(problem);
    if (args.mode !== undefined || args.model !== undefined) {
      const models = await context.browser.call('account.models', { tabCap: context.settings.COMET_THREAD_TABS }, { signal: context.signal, timeoutMs: 30_000 });
      const choice = accountChoiceProblem(args, models);
      if (choice) return invalid(choice);
    }
    if (args.thread_id !== undefined && !args.message?.trim()) {
      const threadId = args.thread_id;
      return onThread(threadId, () => withoutSending(context, threadId));
    }
    const attachments = context.attachments.payloads(args.attachment_urls);
    const settings = { mode: args.mode, model: args.model, effort: args.effort };
    const tabCap = context.settings.COMET_THREAD_TABS;
    return runTurn(context, args.thread_id, (onProgress) =>
      args.thread_id === undefined
        ? context.browser.call(
            'threads.start',
            { message: args.message ?? '', attachments, settings, projectUuid: args.project_uuid, projectVisibility: args.project_visibility, tabCap },
            { signal: context.signal, timeoutMs: SUBMIT_TIMEOUT_MS, onProgress },
          )
        : context.browser.call(
            'threads.send',
            { threadId: args.thread_id, message: args.message ?? '', attachments, settings, tabCap },
            { signal: context.signal, timeoutMs: SUBMIT_TIMEOUT_MS, onProgress },
          ),
    );
  },
});

/**
 * call_perplexity_computer with a thread_id and nothing to send: the seed's way to "ask for the latest status" after a
 * timeout. Nothing is ever sent without a message (day-2 review H1: "Continue." sent on the agent's behalf overrode
 * the person's stop, or woke a sleeping task early): a turn still running is waited for again; any other is returned
 * as it stands, with how to continue it (a message) where it waits to be continued. The page would refuse a message
 * while the task works, and that came back as `error`, "Task failed" (threads review 2026-12-05, M5).
 */
async function withoutSending(context: ToolContext, threadId: string): Promise<CallToolResult> {
  const state = await stateOf(context, threadId);
  if (state.event === null) return jsonResult(await holdThread(holdOptions(context), { threadId, turn: state.turn }));
  const result = checkpointResult(state);
  return jsonResult({ ...result, text: `Nothing was sent (no message; to continue or follow up, call again with one, e.g. "Continue."). ${result.text}`.trim() });
}

/** The thread's latest turn as it stands, without waiting (threads.state). */
function stateOf(context: ToolContext, threadId: string) {
  return context.browser.call('threads.state', { threadId, tabCap: context.settings.COMET_THREAD_TABS }, { signal: context.signal, timeoutMs: READ_TIMEOUT_MS });
}

function holdOptions(context: ToolContext): Parameters<typeof holdThread>[0] {
  const settings = context.settings;
  return {
    browser: context.browser,
    signal: context.signal,
    progress: context.progress,
    holdMs: context.asTask ? settings.COMET_THREAD_TASK_HOLD_MS : settings.COMET_THREAD_HOLD_MS,
    progressMs: settings.COMET_THREAD_PROGRESS_MS,
    tabCap: settings.COMET_THREAD_TABS,
    elicit: context.elicit,
  };
}

// ── answering what a thread waits on ─────────────────────────────────────────

/** What every reply tool does: read what waits, reply, then hold for the next checkpoint. */
const REPLY_USES = ['threads.state', 'threads.respond', 'threads.wait'] as const;

interface ReplyArgs {
  thread_id: string;
  followup_uuid?: string;
  attachment_urls?: string[];
}

/**
 * Checks that the thread waits on `wanted`, builds the reply, sends it and holds for what comes next. Files are refused
 * before anything is read, encoded or held for approval (threads review 2026-12-05, L2). `unsent`: what the result says
 * of words of the caller's the page has no place for (an approval's or a denial's reason), rather than lose them silently (L1).
 */
async function reply(
  context: ToolContext,
  args: ReplyArgs,
  wanted: InteractionType,
  build: (interactions: ThreadCheckpointInteraction[]) => ThreadReply | { problem: string },
  unsent?: string,
): Promise<CallToolResult> {
  const idProblem = threadIdProblem(args.thread_id);
  if (idProblem) return invalid(idProblem);
  if (args.attachment_urls?.length) return invalid(FILES_WITH_A_REPLY);
  const tabCap = context.settings.COMET_THREAD_TABS;
  return onThread(args.thread_id, async () => {
    const state = await stateOf(context, args.thread_id);
    const picked = pickInteractions(state, wanted, args.followup_uuid);
    if ('problem' in picked) return invalid(picked.problem);
    const built = build(picked.interactions);
    if ('problem' in built) return invalid(built.problem);
    // Several questions answered at once go without a followup_uuid: the page routes them by question.
    const followupUuid = picked.interactions.length === 1 ? picked.interactions[0]?.followupUuid : undefined;
    // What *Require approval* shows the person: the prompt's own words.
    const about = clip(picked.interactions.map((i) => (i.type === 'auth_required' ? (i.displayName ?? i.connector ?? i.text) : i.text)).join(' / '), INTERACTION_TEXT_MAX);
    const result = await runTurn(context, args.thread_id, (onProgress) =>
      context.browser.call(
        'threads.respond',
        { threadId: args.thread_id, followupUuid, about, reply: built, attachments: [], tabCap },
        { signal: context.signal, timeoutMs: SUBMIT_TIMEOUT_MS, onProgress },
      ),
    );
    return unsent ? withNote(result, unsent) : result;
  });
}

/** A result with a note before its text (in the structured result and in its JSON text alike). */
function withNote(result: CallToolResult, note: string): CallToolResult {
  const structured = result.structuredContent as { text?: string } | undefined;
  if (!structured || typeof structured.text !== 'string') return result;
  return jsonResult({ ...structured, text: `${note}\n\n${structured.text}` }, result.isError === true);
}

// As the worker's ThreadAnswer (lib/protocol/threads/threads.ts): a choice's words, any of up to 500 choices, at least one.
const answerValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).min(1).max(500)], {
  // Said when none fits, instead of zod's "Invalid input" (review 8, errors #7).
  error: 'expected a string, a number, a boolean, or a list of 1 to 500 strings',
});

const answerQuestion = defineTool({
  name: 'answer_question',
  title: 'Answer a question',
  description: `Give the user's answers to the question(s) of event ask_user_question. ${THEN_WAITS}`,
  inputSchema: {
    thread_id: threadId,
    answers: z
      .record(z.string().max(10_000), answerValue)
      .describe('Question id or text (interactive.questions) → answer; several choices as an array. One question waiting: any key.'),
    attachment_urls: attachmentUrls,
    followup_uuid: followupUuid,
  },
  outputSchema: ThreadResultShape,
  uses: REPLY_USES,
  taskSupport: 'optional',
  summarize: ({ thread_id, answers }) => `[${thread_id}] ${clip(Object.values(answers).map(String).join(' / '), 80)}`,
  async handler(args, context) {
    // A list stays a list: the page picks each choice of a multi-select question.
    const answers = Object.fromEntries(Object.entries(args.answers).map(([key, value]) => [key, Array.isArray(value) ? value : String(value)]));
    return reply(context, args, 'ask_user_question', (interactions) => {
      const resolved = resolveAnswers(interactions, answers);
      return 'problem' in resolved ? resolved : { kind: 'answers', answers: resolved.answers };
    });
  },
});

function confirmTool(decision: 'approve' | 'deny'): ToolDefinition {
  const approve = decision === 'approve';
  return defineTool({
    name: approve ? 'confirm_action_approve' : 'confirm_action_deny',
    title: approve ? 'Approve an action' : 'Deny an action',
    description: `${approve ? 'Approve' : 'Deny'} the action of event confirm_action, only on the user's word. ${THEN_WAITS}`,
    inputSchema: {
      thread_id: threadId,
      result: z.string().max(5000).describe(approve ? 'Reason or message for the approval.' : 'Reason for denying it.'),
      attachment_urls: attachmentUrls,
      followup_uuid: followupUuid,
    },
    outputSchema: ThreadResultShape,
    uses: REPLY_USES,
    // Approving lets the agent send, buy or deploy what it asked about.
    destructive: approve,
    taskSupport: 'optional',
    summarize: ({ thread_id, result }) => `[${thread_id}] ${clip(result, 80)}`,
    async handler(args, context) {
      const unsent = args.result.trim()
        ? `The ${approve ? 'approval' : 'denial'}'s reason ("${clip(args.result, 200)}") was not passed on: the page has no place for it. To tell Computer, send it with call_perplexity_computer on this thread_id.`
        : undefined;
      return reply(context, args, 'confirm_action', () => ({ kind: decision, reason: args.result }), unsent);
    },
  });
}

const notifyConnected = defineTool({
  name: 'notify_connected',
  title: 'Sign-in done',
  description: `Resume once the user finished the sign-in of event auth_required (not optional_auth_requests). ${THEN_WAITS}`,
  inputSchema: {
    thread_id: threadId,
    message: z.string().max(5000).describe('e.g. "Slack connected".'),
    attachment_urls: attachmentUrls,
  },
  outputSchema: ThreadResultShape,
  uses: REPLY_USES,
  taskSupport: 'optional',
  summarize: ({ thread_id, message }) => `[${thread_id}] ${clip(message, 80)}`,
  async handler(args, context) {
    // The page's own button says the sign-in is done, and has no place for words: the result says the message was not
    // passed on (review 10, spec 8: it was dropped unsaid), without sending the agent to a new turn for it (review 11c, N1).
    const unsent = args.message.trim() ? `The message ("${clip(args.message, 200)}") was not passed on: the page's sign-in button takes no words; it tells Computer the sign-in is done.` : undefined;
    return reply(context, args, 'auth_required', () => ({ kind: 'connected', message: args.message }), unsent);
  },
});

// ── reading ──────────────────────────────────────────────────────────────────

const readThread = defineTool({
  name: 'read_thread',
  title: 'Read a thread',
  description:
    'Read a thread without sending anything: status, transcript (Markdown, latest turns kept), web_state (what it waits on). ' +
    "Idle or no interactions does not mean finished: see each turn's status in web_state.entries.",
  inputSchema: { thread_id: threadId },
  outputSchema: TranscriptShape,
  uses: ['threads.read'],
  summarize: ({ thread_id }) => thread_id,
  async handler({ thread_id }, context) {
    return readOf(thread_id, async () =>
      transcriptResult(
        await context.browser.call(
          'threads.read',
          { threadId: thread_id, tabCap: context.settings.COMET_THREAD_TABS },
          { signal: context.signal, timeoutMs: READ_TIMEOUT_MS },
        ),
      ),
    );
  },
});

const modelsList = defineTool({
  name: 'models_list',
  title: 'List modes and models',
  description: "List the modes, and the models with their efforts, this account offers call_perplexity_computer.",
  inputSchema: {},
  outputSchema: ModelsList.shape,
  uses: ['account.models'],
  async handler(_args, context) {
    return jsonResult(await context.browser.call('account.models', { tabCap: context.settings.COMET_THREAD_TABS }, { signal: context.signal, timeoutMs: READ_TIMEOUT_MS }));
  },
});

const projectsList = defineTool({
  name: 'projects_list',
  title: 'List Projects',
  description: "List the user's Perplexity Projects (project_uuid), 50 a page; page on while next_cursor is not null.",
  inputSchema: {
    search_term: z.string().max(500).optional().describe('A Project described in natural language.'),
    cursor: z.string().max(200).optional(),
  },
  outputSchema: ProjectsPage.shape,
  uses: ['account.projects'],
  summarize: ({ search_term }) => search_term ?? '',
  async handler({ search_term, cursor }, context) {
    return jsonResult(await context.browser.call('account.projects', { searchTerm: search_term, cursor, tabCap: context.settings.COMET_THREAD_TABS }, { signal: context.signal, timeoutMs: READ_TIMEOUT_MS }));
  },
});

const listAssets = defineTool({
  name: 'list_thread_assets',
  title: 'List thread assets',
  description: 'List the files, apps and links a thread produced (asset_id); page on while next_cursor is not null, even past an empty page.',
  inputSchema: {
    thread_id: threadId,
    entry_id: z.string().max(200).optional().describe("Only this turn's assets."),
    cursor: z.string().max(200).optional(),
  },
  outputSchema: { assets: z.array(ThreadAsset), next_cursor: z.string().nullable() },
  uses: ['threads.assets'],
  summarize: ({ thread_id }) => thread_id,
  async handler({ thread_id, entry_id, cursor }, context) {
    return readOf(thread_id, () =>
      context.browser.call(
        'threads.assets',
        { threadId: thread_id, entryId: entry_id, cursor, tabCap: context.settings.COMET_THREAD_TABS },
        { signal: context.signal, timeoutMs: READ_TIMEOUT_MS },
      ),
    );
  },
});

const assetDownload = defineTool({
  name: 'create_asset_download',
  title: 'Asset download URL',
  description: 'Make a fresh download URL for a thread asset; it lasts expires_in_seconds (null: hosted preview).',
  inputSchema: {
    thread_id: threadId,
    asset_id: z.string().min(1).max(200),
  },
  outputSchema: { asset_id: z.string(), url: z.string(), expires_in_seconds: z.number().int().nullable() },
  uses: ['threads.assetDownload'],
  summarize: ({ thread_id, asset_id }) => `${thread_id} ${asset_id}`,
  async handler({ thread_id, asset_id }, context) {
    return readOf(thread_id, () =>
      context.browser.call(
        'threads.assetDownload',
        { threadId: thread_id, assetId: asset_id, tabCap: context.settings.COMET_THREAD_TABS },
        { signal: context.signal, timeoutMs: READ_TIMEOUT_MS },
      ),
    );
  },
});

const attachmentUpload = defineTool({
  name: 'create_attachment_upload',
  title: 'Attachment upload envelope',
  description:
    'A one-use envelope to upload a file for Computer: before expires_at, POST multipart/form-data to upload_url, each upload_fields entry a field, the bytes part "file" ' +
    '(204: stored); then pass attachment_url in attachment_urls. size_bytes ≤ max_bytes (25 MB default).',
  inputSchema: {
    filename: z.string().max(255).describe('A name with extension, not a path.'),
    mime_type: z.string().max(255),
    size_bytes: z.number().int().min(0),
  },
  outputSchema: {
    attachment_url: z.string(),
    upload_url: z.string(),
    upload_fields: z.record(z.string(), z.string()),
    expires_at: z.string(),
    max_bytes: z.number().int(),
  },
  // It writes files that only acting tools can use: the read-only preset leaves it out, and the browser is asked before
  // a file is stored, so that the side panel's Read-only refuses it too (lib/mcp/server.ts; review 10, door I1).
  uses: ['attachments.store', 'attachments.admit'],
  summarize: ({ filename, size_bytes }) => `${filename} (${size_bytes} bytes)`,
  async handler({ filename, mime_type, size_bytes }, context) {
    return jsonResult(await context.attachments.envelope({ filename, mimeType: mime_type, sizeBytes: size_bytes }));
  },
});

// ── shared ───────────────────────────────────────────────────────────────────

const READ_TIMEOUT_MS = 30_000;

/** Submits a turn and holds the call for its first checkpoint; errors on a known thread keep its thread_id. */
async function runTurn(
  context: ToolContext,
  knownThreadId: string | undefined,
  submit: (onProgress: (step: string) => void) => Promise<TurnSubmission>,
): Promise<CallToolResult> {
  return onThread(knownThreadId, async () => {
    const since = Date.now();
    let submitted: TurnSubmission;
    // Progress from the first second: a submit may take up to SUBMIT_TIMEOUT_MS (tab, page, files,
    // the URL), longer than a client's default timeout. A known thread is named at once.
    const beat = heartbeat(
      { progress: context.progress, progressMs: context.settings.COMET_THREAD_PROGRESS_MS },
      knownThreadId === undefined ? 'new Computer task' : `thread_id ${knownThreadId}`,
      knownThreadId === undefined ? 'opening a background tab and submitting the prompt' : 'sending. If this call is cut off, call read_thread with this thread_id.',
      'submitting',
    );
    try {
      submitted = await submit(beat.step);
    } catch (error) {
      const cause = RelayError.from(error);
      // A refused request (bad input, unknown thread, the client gone) is an error, not a failed send.
      if (knownThreadId === undefined || ['THREAD_NOT_FOUND', 'INVALID_PARAMS', 'CANCELLED'].includes(cause.code)) throw cause;
      return await refusedFollowUp(context, knownThreadId, cause);
    } finally {
      beat.stop();
    }
    if ('notSent' in submitted) return jsonResult(notSentResult(submitted));
    const result = await holdThread({ ...holdOptions(context), since }, submitted);
    // A turn sent though the call that sent it failed: that is said first, then where the thread stands.
    return jsonResult(submitted.note ? { ...result, text: `${submitted.note}\n\n${result.text}` } : result);
  });
}

/**
 * A follow-up that failed. Where the page refused it before typing anything (the task still works on its turn, or
 * waits on the person: the error's `data.notSent`), the thread as it stands, which the refusal is about, with the
 * refusal first and no task_status (the seed: left out when a follow-up could not be sent); never `error`, which says
 * the task failed (threads review 2026-12-05, M5). Any other failure may have come after the page took the message
 * (a timeout, the link gone): it is said so, with read_thread to look, and no state is passed off as the reply to it
 * (day-2 review H2).
 */
async function refusedFollowUp(context: ToolContext, threadId: string, cause: RelayError): Promise<CallToolResult> {
  // The person's policy refuses before anything reaches the page (Read-only, a denied approval): nothing was sent either.
  const notSent = cause.data?.notSent === true || cause.code === 'PERMISSION_DENIED';
  if (!notSent) {
    return errorText(`[${cause.code}] ${cause.message} The message may have been sent before this: call read_thread with thread_id ${threadId} to see before sending it again.`);
  }
  const refusal = `[${cause.code}] The message was not sent: ${cause.message}`;
  try {
    const state = await stateOf(context, threadId);
    const { task_status: _unknown, ...result } = checkpointResult(state);
    return jsonResult({ ...result, text: `${refusal}\n\n${result.text}` }, true);
  } catch {
    return errorText(`${refusal} (thread_id ${threadId}; read_thread says where it stands).`);
  }
}

/** A read of one thread: its id checked, an unknown thread named, the answer as JSON. */
async function readOf(threadId: string, read: () => Promise<object>): Promise<CallToolResult> {
  const idProblem = threadIdProblem(threadId);
  if (idProblem) return invalid(idProblem);
  return onThread(threadId, async () => jsonResult(await read()));
}

/** Names thread_id when the browser says the thread does not exist. */
async function onThread(id: string | undefined, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    const cause = RelayError.from(error);
    if (cause.code !== 'THREAD_NOT_FOUND' || id === undefined) throw cause;
    // A cause that names the thread_id already is said once, not inside itself (review 8, errors #6).
    const told = cause.message.replace(/\.$/, '');
    const said = told.includes(`thread_id "${id}"`) ? told : `thread_id "${id}" names no Perplexity thread this account can open (${told})`;
    return errorText(`[THREAD_NOT_FOUND] ${said}. Pass a thread_id that an earlier result returned.`);
  }
}

function invalid(problem: string): CallToolResult {
  return errorText(`[INVALID_PARAMS] ${problem}`);
}


export const threadTools: ToolDefinition[] = [
  callComputer,
  readThread,
  answerQuestion,
  confirmTool('approve'),
  confirmTool('deny'),
  notifyConnected,
  modelsList,
  projectsList,
  listAssets,
  assetDownload,
  attachmentUpload,
];
