/**
 * The ask stream's and Stop's URLs (real captures of 2026-07-31 and 2026-08-04; lib/selectors/stream/ask-stream.ts
 * dates them), apart from the rest of the reader: the main-world tap carries these and nothing else.
 */
export const ASK_STREAM_ENDPOINTS = { ask: ['/rest/sse/perplexity_ask'], terminate: ['/rest/sse/perplexity_terminate'] } as const;
