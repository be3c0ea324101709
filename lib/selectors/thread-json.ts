import type { ThreadJsonReader } from './thread-schema';

/**
 * How to read the web app's own thread data (same origin, the user's cookies), and where in it
 * each fact sits. Paths use the small language of lib/page/json-path.ts (`a.b[]`, `a[k=v]`,
 * `a[0]`); each fact lists candidates, newest location first.
 *
 * Public record (unofficial clients, late 2025 – August 2026): `GET /rest/thread/{uuid or slug}
 * ?version=2.18&source=default` with `x-app-apiclient: default` and `x-app-apiversion: 2.18`
 * (without them lists come back empty or cut); `entries[]`, `background_entries[]`,
 * `thread_metadata`, a cursor; entry `status` PENDING / COMPLETED; blocks by `intended_usage`
 * (`ask_text` with `markdown_block.answer` or `chunks`, `web_results`, `workflow_root` with
 * `workflow_block.steps[].items[]` and the final answer in a `WORKFLOW_ITEM_TEXT` item of variant
 * `answer`, `plan_block`, assets with `download_info[]`); workflow statuses WORKFLOW_COMPLETED /
 * _AWAITING_NEXT_STEPS / _CANCELED / _ERROR; a research task asking questions stays PENDING with
 * a user-response item whose `responses` are empty; `locked_reason: "spending_limit_exceeded"`;
 * `GET /rest/thread/list_recent`; empty bodies once rate-limited (about 150 requests at one every
 * 5 s). The answer's location moved three times in mid-2026, hence the candidates.
 *
 * Our guesses (checked 2026-12-01 only against the simulated site): the user-response kinds and
 * their fields, `wake_at`, `waiting_reason`, `error_message`, FAILED, the assets block's fields
 * beyond `download_info`, `expires_at`, the other locked reasons and the cursor's place.
 */
export const threadJson2026: ThreadJsonReader = {
  name: 'thread-json-2026-08',
  version: 1,
  checked: '2026-12-01 (simulated site; public facts from unofficial clients up to 2026-08)',
  request: {
    path: '/rest/thread/{id}',
    query: { version: '2.18', source: 'default' },
    headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' },
    cursorParam: 'cursor',
    minIntervalMs: 3000,
    emptyBackoffMs: 30_000,
    maxPages: 10,
  },
  thread: {
    entries: ['entries'],
    nextCursor: ['next_cursor', 'thread_metadata.next_cursor'],
    title: ['thread_metadata.title', 'entries[0].thread_title'],
    uuid: ['thread_metadata.uuid', 'entries[0].context_uuid'],
    slug: ['thread_metadata.slug', 'entries[0].thread_url_slug'],
    modeType: ['thread_metadata.mode_type'],
    lockedReason: ['thread_metadata.locked_reason', 'locked_reason'],
    billingUrl: ['thread_metadata.billing_url', 'billing_url'],
    quotaResetDate: ['thread_metadata.quota_reset_date', 'quota_reset_date'],
  },
  entry: {
    id: ['uuid', 'backend_uuid'],
    query: ['query_str', 'query'],
    status: ['status'],
    answer: [
      'blocks[].workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].text_payload[variant=answer].text',
      'blocks[intended_usage=ask_text].markdown_block.answer',
    ],
    answerChunks: ['blocks[intended_usage=ask_text].markdown_block.chunks[]'],
    steps: ['blocks[].workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].text_payload[variant=progress].text'],
    workflowStatus: ['blocks[intended_usage=workflow_root].workflow_block.status', 'blocks[].workflow_block.status'],
    wakeAt: ['blocks[].workflow_block.wake_at', 'blocks[].workflow_block.scheduled_wake_at'],
    waitingReason: ['blocks[].workflow_block.waiting_reason'],
    errorMessage: ['blocks[].workflow_block.error_message', 'error_message'],
    sources: ['blocks[intended_usage=web_results].web_result_block.web_results[]', 'blocks[].web_result_block.web_results[]'],
    userResponses: ['blocks[].workflow_block.steps[].items[type=WORKFLOW_ITEM_USER_RESPONSE]'],
    assets: ['blocks[].assets_mode_block.assets[]'],
  },
  source: { title: ['name', 'title'], url: ['url'], snippet: ['snippet'] },
  userResponse: {
    id: ['user_response_payload.answer_submission_uuid', 'uuid'],
    kind: ['user_response_payload.kind'],
    prompt: ['user_response_payload.prompt'],
    required: ['user_response_payload.requires_user_response'],
    responses: ['user_response_payload.responses'],
    expiresAt: ['user_response_payload.expires_at'],
    questions: ['user_response_payload.questions[]'],
    questionId: ['id'],
    questionText: ['text', 'question'],
    questionOptions: ['options[].label', 'options[]'],
    questionMultiple: ['multi_select'],
    connectorId: ['user_response_payload.connector.id'],
    connectorName: ['user_response_payload.connector.display_name'],
    authUrl: ['user_response_payload.connector.auth_url', 'user_response_payload.auth_url'],
    title: ['user_response_payload.connector.title', 'user_response_payload.title'],
    description: ['user_response_payload.connector.description', 'user_response_payload.description'],
    formTitle: ['user_response_payload.form.title'],
    formUrl: ['user_response_payload.form.url'],
  },
  asset: {
    id: ['uuid', 'asset_id'],
    type: ['asset_type'],
    primary: ['is_primary'],
    rootId: ['root_asset_uuid'],
    parentId: ['parent_asset_uuid'],
    createdAt: ['created_at'],
    publishedUrl: ['published_url'],
    url: ['download_info[0].url'],
    filename: ['download_info[0].filename', 'filename'],
    size: ['download_info[0].size'],
    mediaType: ['download_info[0].media_type'],
    expiresAt: ['download_info[0].expires_at'],
  },
  values: {
    entryRunning: ['PENDING', 'IN_PROGRESS', 'RUNNING'],
    workflow: {
      complete: ['WORKFLOW_COMPLETED'],
      error: ['WORKFLOW_ERROR', 'WORKFLOW_FAILED'],
      cancelled: ['WORKFLOW_CANCELED', 'WORKFLOW_CANCELLED'],
      awaiting: ['WORKFLOW_AWAITING_NEXT_STEPS'],
    },
    userResponseKinds: {
      ask_user_question: ['ASK_USER_QUESTION', 'CLARIFYING_QUESTIONS'],
      confirm_action: ['CONFIRM_ACTION'],
      auth_required: ['CONNECTOR_AUTH'],
      two_factor_required: ['TWO_FACTOR'],
      interaction_required: ['FORM'],
    },
    lockedReasons: {
      insufficient_credits: ['insufficient_credits', 'quota_exhausted', 'spending_limit_exceeded'],
      access_denied: ['access_denied', 'computer_not_enabled'],
    },
  },
};

/** Built-in JSON readers, newest first. */
export const THREAD_JSON_READERS: readonly ThreadJsonReader[] = [threadJson2026];
