import { ASK_STREAM_ENDPOINTS } from './endpoints';
import type { AskStreamReader } from './stream-schema';

/**
 * The page's own answer stream: every answer reaches perplexity.ai's page as one
 * `POST /rest/sse/perplexity_ask` whose response is Server-Sent Events (`event: message` +
 * `data: {…}` frames, then `event: end_of_stream`); Stop sends `POST /rest/sse/perplexity_terminate`.
 * Paths use lib/selectors/language/json-path.ts's language.
 *
 * From real captures (the whole streams of 2026-07-31 and 2026-08-04, two frames of 2026-08-01,
 * `shared/real-perplexity/sse-*`; NOTES §B, §D): frames are framed `\r\n\r\n` and `data: ` (the
 * reconnect stream `\n\n` and `data:`, both read); each frame carries the turn's `backend_uuid`,
 * `frontend_uuid`, `query_str`, `thread_url_slug`, `context_uuid`, `status` (`PENDING` … `COMPLETED`)
 * and `blocks[]`, each named by `intended_usage` and holding either a whole block (`markdown_block`,
 * `workflow_block`, `web_result_block`, …) or a `diff_block` `{ field, patches }` of JSON-patch
 * operations on it (path `""` replaces the whole block). The last frame has `final_sse_message: true`,
 * `status: "COMPLETED"`, `message_mode: "FULL"` and every block whole; a `final_sse_message` frame can
 * come before it still `PENDING`, so the end is both. The answer: since 2026-08-04 a
 * `WORKFLOW_ITEM_TEXT` item of `workflow_root` whose `text_payload` (`variant: "answer"`) grows by
 * `chunks` and gets its whole `text` at the end; before (and still for Deep Research, NOTES §D) the
 * `ask_text` block's `markdown_block.chunks`, its `answer` whole only in the last frame (whose
 * citation order may differ from the chunks': the last frame's text is the answer). Sources: the
 * `web_results` block, numbered as the answer cites them ([1] is the first). Steps: the workflow's
 * step titles, or the `plan` block's goals (2026-07-31).
 *
 * From public clients' source, not a capture (helallao/perplexity-ai, jacob-bd/perplexity-web-mcp,
 * 2026): the POST's body is `{ query_str, params: { frontend_uuid, last_backend_uuid, … } }`.
 */
export const askStream2026: AskStreamReader = {
  name: 'ask-stream-2026-08',
  version: 1,
  checked: '2026-12-04 (real streams of 2026-07-31 and 2026-08-04, frames of 2026-08-01)',
  endpoints: { ask: [...ASK_STREAM_ENDPOINTS.ask], terminate: [...ASK_STREAM_ENDPOINTS.terminate] },
  events: { message: ['message'], end: ['end_of_stream'] },
  request: { query: ['query_str'], frontendUuid: ['params.frontend_uuid', 'frontend_uuid'], lastBackendUuid: ['params.last_backend_uuid'] },
  frame: {
    blocks: ['blocks[]'],
    usage: ['intended_usage'],
    diff: ['diff_block'],
    diffField: ['field'],
    diffPatches: ['patches'],
    final: ['final_sse_message'],
    status: ['status'],
    frontendUuid: ['frontend_uuid', 'uuid'],
    backendUuid: ['backend_uuid'],
    query: ['query_str'],
    slug: ['thread_url_slug'],
    threadUuid: ['context_uuid'],
  },
  blocks: {
    answer: [
      'workflow_root.workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].payload.text_payload[variant=answer].text',
      'ask_text.markdown_block.answer',
    ],
    answerChunks: [
      'workflow_root.workflow_block.steps[].items[type=WORKFLOW_ITEM_TEXT].payload.text_payload[variant=answer].chunks[]',
      'ask_text.markdown_block.chunks[]',
    ],
    steps: ['workflow_root.workflow_block.steps[].title', 'plan.plan_block.goals[].description'],
    sources: ['web_results.web_result_block.web_results[]', 'sources_answer_mode.sources_mode_block.web_results[]'],
  },
  source: { title: ['name', 'title'], url: ['url'] },
  values: { completed: ['COMPLETED'] },
};

/** Built-in ask stream readers, newest first. */
export const ASK_STREAM_READERS: readonly AskStreamReader[] = [askStream2026];
