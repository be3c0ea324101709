import { describe, expect, test } from 'vitest';
import type { PollResult } from '../../lib/page/answer/reader';
import { StreamReading } from '../../lib/page/stream/stream-reading';
import type { TapMessage } from '../../lib/page/stream/tap-protocol';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { channel, END, frame, text } from '../support/stream-frames';

/**
 * A new turn is never read from an older turn's finished stream (review 14a, #2): comet_ask returns once the page
 * took the prompt, and the agent's next comet_poll (or comet_get_sources, which binds the same way) comes before the
 * new stream's first frame names its thread. The new stream, known by the question its request carried, is the
 * turn's; the page answers while it has said nothing.
 */
const head = (query: string) => ({ query_str: query, backend_uuid: 'b', thread_url_slug: 'x', status: 'PENDING', final_sse_message: false });
const URL_X = 'https://www.perplexity.ai/search/x';
const page = (over: Partial<PollResult> = {}): PollResult => ({
  status: 'working',
  steps: [],
  currentStep: '',
  response: '',
  hasStopButton: true,
  hasLoadingSpinner: true,
  proseCount: 1,
  turnCount: 2,
  lastTurnIndex: 1,
  questionText: '',
  url: URL_X,
  truncated: false,
  totalLength: 0,
  ...over,
});

/** Turn 1 of thread x: asked, streamed and completed. */
function firstTurn(send: (m: TapMessage) => void, q: string) {
  send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: q }) });
  send({ kind: 'data', id: 0, text: frame({ ...head(q), blocks: [text(['Old'])] }) });
  send({ kind: 'data', id: 0, text: frame({ ...head(q), status: 'COMPLETED', final_sse_message: true, blocks: [text(['Old answer'], { text: 'Old answer' })] }) + END });
  send({ kind: 'end', id: 0 });
}

describe('a new turn is never read from an older turn’s completed stream', () => {
  test('the same question asked again in the thread: before the new stream’s first frame, comet_poll is not "completed" with the old answer', () => {
    const Q = 'What is the capital of Australia?';
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    firstTurn(send, Q);
    // Turn 2, the same words (an agent's "again"): the page POSTed, the page shows the turn working, no frame yet.
    send({ kind: 'open', id: 1, at: 100, body: JSON.stringify({ query_str: Q }) });
    const polled = reading.poll(page({ questionText: Q }));
    expect(polled.response).not.toBe('Old answer');
    expect(polled.status).toBe('working');
    // comet_get_sources binds with the same call (lib/page/kits/source-reader.ts streamSources): not turn 1's stream.
    const bound = reading.forQuestion(Q, 0, URL_X);
    expect(bound?.state() ?? 'none').not.toBe('completed');
  });

  test('a new question that is a 24+ character head of an earlier one, shown whole (no fold mark): not the earlier turn’s stream', () => {
    const long = 'what is the capital of Australia and why is it not Sydney'; // the 2026-07-31 capture's question
    const short = 'what is the capital of Australia'; // the 2026-08-04 capture's
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    firstTurn(send, long);
    send({ kind: 'open', id: 1, at: 100, body: JSON.stringify({ query_str: short }) });
    const polled = reading.poll(page({ questionText: short }));
    expect(polled.response).not.toBe('Old answer');
    expect(polled.status).toBe('working');
  });
  test('two prompts sharing a long preamble (a pasted document, then different questions): the new turn is not the old one’s stream', () => {
    const preamble = 'Here is the report we discussed, pasted whole for context. '.repeat(10); // 590 characters
    const first = `${preamble}\n\nQuestion: what does it say about Canberra?`;
    const second = `${preamble}\n\nQuestion: what does it say about Sydney?`;
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    firstTurn(send, first);
    send({ kind: 'open', id: 1, at: 100, body: JSON.stringify({ query_str: second }) });
    const polled = reading.poll(page({ questionText: second }));
    expect(polled.response).not.toBe('Old answer');
    expect(polled.status).toBe('working');
  });
});

describe('a newer stream whose question is not known yet', () => {
  test('keeps comet_poll on the page until it says which turn it is (its request body unread)', () => {
    const Q = 'What is the capital of Australia?';
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    firstTurn(send, Q);
    send({ kind: 'open', id: 1, at: 100 });
    expect(reading.forQuestion(Q, 0, URL_X)).toBeNull();
    expect(reading.poll(page({ questionText: Q })).status).toBe('working');
    // Its first frame names the question and the thread: it is the turn's.
    send({ kind: 'data', id: 1, text: frame({ ...head(Q), blocks: [text(['New'])] }) });
    expect(reading.forQuestion(Q, 0, URL_X)?.markdown()).toBe('New');
  });
});
