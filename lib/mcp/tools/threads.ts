import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RelayError } from '../../protocol/errors';
import { COMPUTER_MODES, EFFORTS, ModelsList, ProjectsPage, ThreadAsset, type ThreadCheckpointInteraction, type ThreadReply, type TurnSubmission } from '../../protocol/threads';
import { heartbeat, holdThread } from '../threads/hold';
import { jsonResult, notSentResult, ThreadResultShape, TranscriptShape, transcriptResult } from '../threads/result';
import { accountChoiceProblem, type InteractionType, pickInteractions, resolveAnswers, threadIdProblem, turnArgsProblem } from '../threads/rules';
import { clip, defineTool, errorText, type ToolContext, type ToolDefinition } from '../tool';

/**
 * The thread family: the eleven tools of Perplexity's Computer MCP server, with its parameters,
 * rules and result objects, realised on Perplexity conversations in the user's own browser. A
 * thread_id is the conversation's own id, so every tool works again after any restart.
 */

const WHAT_TO_DO_NEXT =
  'The result is a JSON object (also in structuredContent): thread_id (keep it), event, text, task_status, and sources / files / interactive when present. By event: ' +
  'complete → done; error → read text; cancelled → start again or continue the thread; ' +
  'ask_user_question → ask the user, then answer_question with interactive.followup_uuid; ' +
  'confirm_action → ask the user, then confirm_action_approve or confirm_action_deny; ' +
  'auth_required → have the user open interactive.auth_url and sign in, then notify_connected; ' +
  'interaction_required → have the user complete interactive.url in Perplexity, then continue with call_perplexity_computer; ' +
  'two_factor_required → follow text, then continue with the same thread_id; ' +
  'sleep → nothing, it resumes at wake_at (read_thread to check); waiting → continue with call_perplexity_computer when ready; ' +
  'insufficient_credits / access_denied → tell the user (interactive.billing_url); ' +
  'timeout → still working: call read_thread with the thread_id, do NOT call call_perplexity_computer just to check (that sends a new message). ' +
  'pending_interactions lists every waiting question when there are several. Progress notifications carry the thread_id from the first one on.';

const threadId = z.string().min(1).max(200).describe('The thread_id a previous result returned.');
const attachmentUrls = z
  .array(z.string().max(4000))
  .max(10)
  .optional()
  .describe('attachment_url values from create_attachment_upload (after uploading), for files to attach to this turn.');
const followupUuid = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('interactive.followup_uuid from the result (or request.answer_submission_uuid from read_thread). Pass it when present so the reply reaches the right prompt.');

// ── starting and continuing ──────────────────────────────────────────────────

const callComputer = defineTool({
  name: 'call_perplexity_computer',
  title: 'Call Perplexity Computer',
  description:
    'Send a message to Perplexity Computer (a general-purpose agent: browsing, code, documents, connectors) to start a task, or continue a thread with thread_id. ' +
    'The call waits until Computer finishes or needs you, for up to two minutes (longer when run as an MCP task), then returns. ' +
    `Choose either mode, or model with an optional effort (see models_list). ${WHAT_TO_DO_NEXT}`,
  inputSchema: {
    message: z.string().max(100_000).optional().describe('The task, or the follow-up message. Required for a new thread.'),
    thread_id: threadId.optional().describe('Continue this thread (from a previous result). Omit to start a new one.'),
    attachment_urls: attachmentUrls,
    project_uuid: z.string().min(1).max(200).optional().describe('Start the new conversation inside this Project (projects_list). Not with thread_id.'),
    project_visibility: z.enum(['private', 'project']).optional().describe('private (default) or project (all Project members can view). Requires project_uuid.'),
    mode: z.enum(COMPUTER_MODES).optional().describe('light, standard, high or ultra (as models_list offers). Not with model.'),
    model: z.string().min(1).max(200).optional().describe('A model id from models_list. Not with mode.'),
    effort: z.enum(EFFORTS).optional().describe("One of the model's efforts (models_list). Requires model; default: the model's default_effort."),
  },
  outputSchema: ThreadResultShape,
  uses: ['account.models', 'threads.start', 'threads.send', 'threads.wait', 'threads.respond'],
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
            // A follow-up with no message continues the thread (after `waiting`, a form or a sign-in).
            { threadId: args.thread_id, message: args.message?.trim() ? args.message : 'Continue.', attachments, settings, tabCap },
            { signal: context.signal, timeoutMs: SUBMIT_TIMEOUT_MS, onProgress },
          ),
    );
  },
});

// ── answering what a thread waits on ─────────────────────────────────────────

/** What every reply tool does: read what waits, reply, then hold for the next checkpoint. */
const REPLY_USES = ['threads.state', 'threads.respond', 'threads.wait'] as const;

interface ReplyArgs {
  thread_id: string;
  followup_uuid?: string;
  attachment_urls?: string[];
}

/** Checks that the thread waits on `wanted`, builds the reply, sends it and holds for what comes next. */
async function reply(
  context: ToolContext,
  args: ReplyArgs,
  wanted: InteractionType,
  build: (interactions: ThreadCheckpointInteraction[]) => ThreadReply | { problem: string },
): Promise<CallToolResult> {
  const idProblem = threadIdProblem(args.thread_id);
  if (idProblem) return invalid(idProblem);
  const tabCap = context.settings.COMET_THREAD_TABS;
  return onThread(args.thread_id, async () => {
    const state = await context.browser.call('threads.state', { threadId: args.thread_id, tabCap }, { signal: context.signal, timeoutMs: READ_TIMEOUT_MS });
    const picked = pickInteractions(state, wanted, args.followup_uuid);
    if ('problem' in picked) return invalid(picked.problem);
    const built = build(picked.interactions);
    if ('problem' in built) return invalid(built.problem);
    const attachments = context.attachments.payloads(args.attachment_urls);
    // Several questions answered at once go without a followup_uuid: the page routes them by question.
    const followupUuid = picked.interactions.length === 1 ? picked.interactions[0]?.followupUuid : undefined;
    // What *Require approval* shows the person: the prompt's own words.
    const about = clip(picked.interactions.map((i) => (i.type === 'auth_required' ? (i.displayName ?? i.connector ?? i.text) : i.text)).join(' / '), 2000);
    return runTurn(context, args.thread_id, (onProgress) =>
      context.browser.call(
        'threads.respond',
        { threadId: args.thread_id, followupUuid, about, reply: built, attachments, tabCap },
        { signal: context.signal, timeoutMs: SUBMIT_TIMEOUT_MS, onProgress },
      ),
    );
  });
}

const answerValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(50)]);

const answerQuestion = defineTool({
  name: 'answer_question',
  title: 'Answer a question',
  description:
    "Answer Computer's question(s) after an ask_user_question event. answers maps each question (its id or its text, as interactive.questions lists them) to the user's answer; " +
    `when a single question waits, a single answer under any key will do. Then waits like call_perplexity_computer. ${WHAT_TO_DO_NEXT}`,
  inputSchema: {
    thread_id: threadId,
    answers: z.record(z.string().max(10_000), answerValue).describe('Question id or question text → the answer (several choices as an array).'),
    attachment_urls: attachmentUrls,
    followup_uuid: followupUuid,
  },
  outputSchema: ThreadResultShape,
  uses: REPLY_USES,
  taskSupport: 'optional',
  summarize: ({ thread_id, answers }) => `[${thread_id}] ${clip(Object.values(answers).map(String).join(' / '), 80)}`,
  async handler(args, context) {
    const answers = Object.fromEntries(Object.entries(args.answers).map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') : String(value)]));
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
    description:
      `${approve ? 'Approve' : 'Deny'} the sensitive action Computer asked to confirm (a confirm_action event), only on the user's word. ` +
      `result gives the reason. Then waits like call_perplexity_computer. ${WHAT_TO_DO_NEXT}`,
    inputSchema: {
      thread_id: threadId,
      result: z.string().max(5000).describe(approve ? 'Reason or message for the approval.' : 'Reason for denying the action.'),
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
      return reply(context, args, 'confirm_action', () => ({ kind: decision, reason: args.result }));
    },
  });
}

const notifyConnected = defineTool({
  name: 'notify_connected',
  title: 'Sign-in done',
  description:
    'Resume a task after the user completed the sign-in of an auth_required event (opened interactive.auth_url and connected the service). ' +
    `Not for optional_auth_requests. Then waits like call_perplexity_computer. ${WHAT_TO_DO_NEXT}`,
  inputSchema: {
    thread_id: threadId,
    message: z.string().max(5000).describe('A note about the completed connection, e.g. "Slack connected".'),
    attachment_urls: attachmentUrls,
  },
  outputSchema: ThreadResultShape,
  uses: REPLY_USES,
  taskSupport: 'optional',
  summarize: ({ thread_id, message }) => `[${thread_id}] ${clip(message, 80)}`,
  async handler(args, context) {
    return reply(context, args, 'auth_required', () => ({ kind: 'connected', message: args.message }));
  },
});

// ── reading ──────────────────────────────────────────────────────────────────

const readThread = defineTool({
  name: 'read_thread',
  title: 'Read a thread',
  description:
    "Read a thread's status, transcript (Markdown, most recent turns kept) and what it waits on (web_state: thread_status, wake_at, interactions, auth_requests, form_links) without sending anything. " +
    'Use it after a timeout, a dropped connection or a sleep. idle or no interactions does not prove the task is finished; web_state.entries shows each turn\'s status.',
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
  description: 'List the modes, models and efforts this account may choose for call_perplexity_computer (use a model\'s id as model, and one of its efforts as effort).',
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
  description: 'List the Perplexity Projects you can access, 50 at a time, to find the project_uuid for call_perplexity_computer. Keep paging while next_cursor is not null.',
  inputSchema: {
    search_term: z.string().max(500).optional().describe('Filter by a Project described in natural language.'),
    cursor: z.string().max(200).optional().describe('next_cursor from a previous page.'),
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
  description:
    'List the files (and apps, links) a thread produced, with asset_id for create_asset_download. Keep paging while next_cursor is not null, even when a filtered page is empty.',
  inputSchema: {
    thread_id: threadId,
    entry_id: z.string().max(200).optional().describe('Only list assets from this turn.'),
    cursor: z.string().max(200).optional().describe('next_cursor from a previous page.'),
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
  description:
    'Create a fresh download URL for an asset of a thread (asset_id from list_thread_assets). expires_in_seconds says how long it lasts (null for hosted previews); call again for a new one.',
  inputSchema: {
    thread_id: threadId,
    asset_id: z.string().min(1).max(200).describe('An asset_id from list_thread_assets.'),
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
    'Get an upload envelope for a file Computer should use: POST multipart/form-data to upload_url with every upload_fields entry as a field and the bytes as a part named "file" ' +
    '(e.g. curl -F key=… -F token=… -F file=@report.pdf UPLOAD_URL; 204 means stored), then pass attachment_url in attachment_urls of a task tool. ' +
    'The token works once and expires (expires_at); size_bytes must not exceed max_bytes of the setting (25 MB by default).',
  inputSchema: {
    filename: z.string().max(255).describe('The file name with its extension, e.g. report.pdf (a name, not a path).'),
    mime_type: z.string().max(255).describe('Content type, e.g. application/pdf or image/png.'),
    size_bytes: z.number().int().min(0).describe('The file size in bytes.'),
  },
  outputSchema: {
    attachment_url: z.string(),
    upload_url: z.string(),
    upload_fields: z.record(z.string(), z.string()),
    expires_at: z.string(),
    max_bytes: z.number().int(),
  },
  // It writes files that only acting tools can use: the read-only preset leaves it out.
  uses: ['attachments.store'],
  summarize: ({ filename, size_bytes }) => `${filename} (${size_bytes} bytes)`,
  async handler({ filename, mime_type, size_bytes }, context) {
    return jsonResult(await context.attachments.envelope({ filename, mimeType: mime_type, sizeBytes: size_bytes }));
  },
});

// ── shared ───────────────────────────────────────────────────────────────────

const SUBMIT_TIMEOUT_MS = 90_000;
const READ_TIMEOUT_MS = 30_000;

/** Submits a turn and holds the call for its first checkpoint; errors on a known thread keep its thread_id. */
async function runTurn(
  context: ToolContext,
  knownThreadId: string | undefined,
  submit: (onProgress: (step: string) => void) => Promise<TurnSubmission>,
): Promise<CallToolResult> {
  return onThread(knownThreadId, async () => {
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
      // The seed: when a follow-up could not be sent, the result has no task_status.
      return jsonResult({ thread_id: knownThreadId, event: 'error', text: `[${cause.code}] The message could not be sent: ${cause.message}` }, true);
    } finally {
      beat.stop();
    }
    if ('notSent' in submitted) return jsonResult(notSentResult(submitted));
    const settings = context.settings;
    const result = await holdThread(
      {
        browser: context.browser,
        signal: context.signal,
        progress: context.progress,
        holdMs: context.asTask ? settings.COMET_THREAD_TASK_HOLD_MS : settings.COMET_THREAD_HOLD_MS,
        progressMs: settings.COMET_THREAD_PROGRESS_MS,
        tabCap: settings.COMET_THREAD_TABS,
        elicit: context.elicit,
      },
      submitted,
    );
    return jsonResult(result);
  });
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
    return errorText(`[THREAD_NOT_FOUND] thread_id "${id}" names no Perplexity thread this account can open (${cause.message}). Pass a thread_id that an earlier result returned.`);
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
