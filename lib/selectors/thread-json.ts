import type { ThreadJsonReader } from './thread-schema';

/**
 * How to read the web app's own thread data (same origin, the user's cookies), and where in it
 * each fact sits. Paths use the small language of lib/selectors/language/json-path.ts (`a.b[]`, `a[k=v]`,
 * `a[0]`, `a{}`); each fact lists candidates, newest location first. Every fact below is dated
 * with the capture it was read from in lib/selectors/README.md ("The web app's JSON").
 *
 * From real captures (`GET /rest/thread/…` bodies of 2026-07-31 and 2026-08-01, the ask stream of
 * 2026-08-04) and what the client that captured them wrote down (2026-08-01): the frontend asks
 * with `with_schematized_response=true` (bare, entries come back with no `blocks`), `version`,
 * `source`, `limit`, `offset`, `from_first`; the answer sits in the `workflow_root` block as a
 * `WORKFLOW_ITEM_TEXT` item whose `payload.text_payload` has variant `answer` (since 2026-08-04;
 * before, an `ask_text` block's `markdown_block.answer`, which 2026-08-01 bodies still carry);
 * step titles at `workflow_block.steps[].title`; questions as a `WORKFLOW_ITEM_USER_QUESTIONS`
 * item (`payload.user_questions_payload`: `title`, `fields[]` with `field_name`, `options[].title`,
 * `allow_multichoice`, `answer_submission_uuid`) and the person's answers as a
 * `WORKFLOW_ITEM_USER_RESPONSE` item with the same `id` (`payload.user_response_payload.responses`,
 * empty until answered, and left empty when the questions time out and the research goes on); the
 * workflow is `WORKFLOW_AWAITING_USER` while questions are open; the thread's kind in
 * `entries[].search_mode` (SEARCH, RESEARCH, … ASI for Computer) and `thread_metadata.mode` ("2"
 * search and research, "4" Computer); `thread_metadata.wake_at` and `locked_reason`.
 *
 * From bodies marked simulated by their authors (production-shaped Computer threads, ranked below
 * the real captures): a Computer thread's files in `thread_metadata.workflow_snapshots
 * .SHARED_FILES.shared_files.items[]`, each with `uuid`, `asset_type`, `download_info[]` (when it
 * can be downloaded), `is_primary_asset`, `root_asset_id`, `parent_asset_id`; the credits block
 * as `thread_status_summary_enum: "add_credits"`.
 *
 * Still our guesses (2026-12-01, the simulated site only; nothing public shows them): the kinds
 * other than questions (confirm, connector sign-in, two-factor, form) as `WORKFLOW_ITEM_USER_INPUT`
 * items with a `payload.user_input_payload`, question expiry, `waiting_reason`, `error_message`,
 * FAILED, the per-entry assets block's fields beyond `download_info`, the other locked reasons,
 * and paging by `next_cursor` (both real bodies say `has_next_page: false`, `next_cursor: null`).
 */
export const threadJson2026: ThreadJsonReader = {
  name: 'thread-json-2026-12',
  version: 1,
  checked: '2026-12-01 (real thread bodies of 2026-07-31 and 2026-08-01, the ask stream of 2026-08-04; simulated Computer bodies; the simulated site)',
  request: {
    path: '/rest/thread/{id}',
    query: {
      with_parent_info: 'true',
      with_schematized_response: 'true',
      version: '2.18',
      source: 'default',
      limit: '10',
      offset: '0',
      from_first: 'true',
    },
    headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' },
    cursorParam: 'cursor',
    // Later pages: `limit=100&cursor=<next_cursor>` until there is none or it repeats (a public HAR analysis of the web
    // app, 2026-08, and Complexity's export, which pages the same way). With 10 at first, 10 pages read 910 entries.
    nextQuery: { limit: '100' },
    minIntervalMs: 3000,
    emptyBackoffMs: 30_000,
    maxPages: 10,
  },
  thread: {
    entries: ['entries'],
    nextCursor: ['next_cursor', 'thread_metadata.next_cursor'],
    // RECORDED: `has_next_page: false` beside `next_cursor: null` in both real bodies (2026-07-31, 2026-08-01); the web
    // app pages on while it is true (NOTES §F, the HAR analysis of 2026-02-21).
    hasNext: ['has_next_page'],
    title: ['thread_metadata.title', 'entries[0].thread_title'],
    uuid: ['thread_metadata.uuid', 'entries[0].context_uuid'],
    slug: ['thread_metadata.slug', 'entries[0].thread_url_slug'],
    modeType: ['entries[-1].search_mode', 'thread_metadata.mode'],
    lockedReason: ['thread_metadata.locked_reason', 'thread_metadata.thread_status_summary_enum'],
    billingUrl: ['thread_metadata.billing_url'],
    quotaResetDate: ['thread_metadata.quota_reset_date'],
    wakeAt: ['thread_metadata.wake_at'],
    assets: ['thread_metadata.workflow_snapshots.SHARED_FILES.shared_files.items[]'],
    // RECORDED: "completed" in thread-json-perplexity-client-research-resume-2026-07-31 (and "completed", "blocked" in
    // the SIMULATED- Computer bodies of the captures folder), read 2026-12-06.
    status: ['thread_metadata.thread_status'],
  },
  entry: {
    id: ['uuid', 'backend_uuid'],
    query: ['query_str'],
    status: ['status'],
    answer: [
      'blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].payload.text_payload[variant=answer].text',
      'blocks[intended_usage=ask_text].markdown_block.answer',
    ],
    answerChunks: [
      'blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].payload.text_payload[variant=answer].chunks[]',
      'blocks[intended_usage=ask_text].markdown_block.chunks[]',
    ],
    steps: ['blocks[intended_usage=workflow_root].workflow_block.steps[].title'],
    workflowStatus: ['blocks[intended_usage=workflow_root].workflow_block.status'],
    wakeAt: ['blocks[intended_usage=workflow_root].workflow_block.wake_at'],
    waitingReason: ['blocks[intended_usage=workflow_root].workflow_block.waiting_reason'],
    errorMessage: ['blocks[intended_usage=workflow_root].workflow_block.error_message', 'error_message'],
    sources: ['blocks[intended_usage=web_results].web_result_block.web_results[]', 'blocks[intended_usage=sources_answer_mode].sources_mode_block.web_results[]'],
    userResponses: ['blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_USER_QUESTIONS|WORKFLOW_ITEM_USER_INPUT]'],
    userAnswers: ['blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_USER_RESPONSE]'],
    assets: ['blocks[intended_usage=assets_answer_mode].assets_mode_block.assets[]'],
  },
  source: { title: ['name', 'title'], url: ['url'], snippet: ['snippet'] },
  blockKinds: {
    kind: ['blocks[].intended_usage'],
    // RECORDED: every kind of the entries of thread-json-perplexity-client-multiturn-2026-08-01,
    // thread-json-perplexity-client-research-resume-2026-07-31 and the two SIMULATED- Computer bodies of the captures
    // folder, read 2026-12-06; assets_answer_mode is the per-entry files block the reader already reads (simulated site).
    read: ['ask_text', 'workflow_root', 'web_results', 'sources_answer_mode', 'assets_answer_mode'],
    // plan: the step list the workflow repeats; answer_tabs: the page's tab names; pending_followups: suggested next
    // questions; ask_text_N_markdown: the answer's sections again, which ask_text holds whole (the 2026-08-01 body).
    ignored: ['plan', 'answer_tabs', 'pending_followups', 'ask_text_{n}_markdown'],
    // The images shown beside a search answer (inline_entity_block.media_block.media_items[] in the 2026-08-01 body):
    // pictures from the web, not the answer's words; the export says they were left out rather than embed them.
    unexported: { 'ask_text_{n}_images': 'images shown with the answer' },
  },
  userResponse: {
    itemId: ['id'],
    id: ['payload.user_questions_payload.answer_submission_uuid', 'payload.user_input_payload.answer_submission_uuid', 'id'],
    kind: ['payload.user_input_payload.kind', 'type'],
    prompt: ['payload.user_questions_payload.title', 'payload.user_input_payload.prompt'],
    required: ['payload.user_input_payload.requires_user_response'],
    responses: ['payload.user_response_payload.responses'],
    answers: ['payload.user_response_payload.responses[]'],
    answerQuestion: ['question'],
    answerText: ['answer'],
    expiresAt: ['payload.user_questions_payload.expires_at', 'payload.user_input_payload.expires_at'],
    questions: ['payload.user_questions_payload.fields[]'],
    questionId: ['field_id', 'field_name'],
    questionText: ['field_name'],
    questionOptions: ['options[].title'],
    questionMultiple: ['allow_multichoice'],
    connectorId: ['payload.user_input_payload.connector.id'],
    connectorName: ['payload.user_input_payload.connector.display_name'],
    authUrl: ['payload.user_input_payload.connector.auth_url'],
    title: ['payload.user_input_payload.connector.title'],
    description: ['payload.user_input_payload.connector.description'],
    formTitle: ['payload.user_input_payload.form.title'],
    formUrl: ['payload.user_input_payload.form.url'],
  },
  asset: {
    id: ['uuid', 'asset_id'],
    type: ['asset_type'],
    primary: ['is_primary_asset', 'is_primary'],
    rootId: ['root_asset_id', 'root_asset_uuid'],
    parentId: ['parent_asset_id', 'parent_asset_uuid'],
    createdAt: ['created_at'],
    publishedUrl: ['published_url'],
    url: ['download_info[0].url'],
    filename: ['download_info[0].filename', 'pdf_file.filename', 'doc_file.filename', 'code_file.filename', 'filename'],
    size: ['download_info[0].size', 'pdf_file.file_size'],
    mediaType: ['download_info[0].media_type', 'preview_info[type=text].media_type'],
    expiresAt: ['download_info[0].expires_at'],
  },
  values: {
    entryRunning: ['PENDING', 'IN_PROGRESS', 'RUNNING'],
    // Every finished entry of the captures thread-json-perplexity-client-multiturn-2026-08-01 and
    // thread-json-perplexity-client-research-resume-2026-07-31 says `status: "COMPLETED"` (read 2026-12-05).
    entryComplete: ['COMPLETED'],
    workflow: {
      complete: ['WORKFLOW_COMPLETED'],
      error: ['WORKFLOW_ERROR', 'WORKFLOW_FAILED'],
      cancelled: ['WORKFLOW_CANCELED', 'WORKFLOW_CANCELLED'],
      awaiting: ['WORKFLOW_AWAITING_NEXT_STEPS'],
      awaitingUser: ['WORKFLOW_AWAITING_USER'],
    },
    userResponseKinds: {
      ask_user_question: ['WORKFLOW_ITEM_USER_QUESTIONS'],
      confirm_action: ['CONFIRM_ACTION'],
      auth_required: ['CONNECTOR_AUTH'],
      two_factor_required: ['TWO_FACTOR'],
      interaction_required: ['FORM'],
    },
    lockedReasons: {
      insufficient_credits: ['spending_limit_exceeded', 'add_credits', 'insufficient_credits', 'quota_exhausted'],
      access_denied: ['access_denied', 'computer_not_enabled'],
    },
    // thread_metadata.mode "2" is on a search and a research thread alike (the two real bodies of 2026-07-31 and
    // 2026-08-01): no kind; only entries' search_mode tells them apart (captures review 2026-12-05, M4).
    threadKinds: { computer: ['ASI', '4'], research: ['RESEARCH', 'AGENTIC_RESEARCH'], search: ['SEARCH', 'STUDIO', 'STUDY'] },
  },
};

/** Built-in JSON readers, newest first. */
export const THREAD_JSON_READERS: readonly ThreadJsonReader[] = [threadJson2026];
