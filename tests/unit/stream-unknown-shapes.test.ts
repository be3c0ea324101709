import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { PollResult } from '../../lib/page/answer/reader';
import { AskStream } from '../../lib/page/stream/ask-stream';
import { StreamReading } from '../../lib/page/stream/stream-reading';
import { TapChannel } from '../../lib/page/stream/tap-channel';
import type { TapMessage } from '../../lib/page/stream/tap-protocol';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import type { AskStreamReader } from '../../lib/selectors/stream/stream-schema';
import { channel, END, frame } from '../support/stream-frames';

/**
 * A stream is an answer only when the reader read one from it (review 14a): an answer where no path of the reader
 * looks, frames under an event name it does not know, events after the end, a frame that never ends are each a shape
 * the reader names (unknownShape: the log, doctor --page), and the page and the thread JSON answer, never "" as
 * completed. The real 2026-08-04 stream (COMET_REAL_PERPLEXITY, never copied) is read by the reader as it was before
 * the site moved its answer that day.
 */

/**
 * Review 14a, finding 5: a stream whose answer sits where the reader does not look (the site moved it, as it did
 * from `ask_text` to `workflow_root` on 2026-08-04) still ends "completed" (final frame + end_of_stream), with
 * `markdown()` '' (ask-stream.ts:90-92, `?? ''`), and nothing marks its shape unknown. comet_wait answers at once
 * with an empty "completed" answer read from the stream (stream-reading.ts whenDone/outcome), comet_poll says
 * completed with response '' — a guess, where issue 30 item 7 says the DOM and the JSON decide.
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));

const Q = 'What is the capital of Australia?';
const URL_X = 'https://www.perplexity.ai/search/x';
const page = (over: Partial<PollResult> = {}): PollResult => ({
  status: 'working', steps: [], currentStep: '', response: '', hasStopButton: true, hasLoadingSpinner: true, proseCount: 1,
  turnCount: 1, lastTurnIndex: 0, questionText: Q, url: URL_X, truncated: false, totalLength: 0, ...over,
});
const never = () => new Promise<never>(() => {});

describe('a completed stream with no answer the reader can find is not an answer (review 14a, #1)', () => {
  test('the answer in a block the reader does not know: comet_wait does not return "" as completed from the stream', async () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const head = { query_str: Q, backend_uuid: 'b', thread_url_slug: 'x' };
    // The site moves its answer again: a new block, every field well-formed, nothing the reader has a path for.
    const moved = { intended_usage: 'answer_v3', rich_text_block: { text: 'The capital of Australia is **Canberra**.' } };
    send({ kind: 'open', id: 0, at: 10, body: JSON.stringify({ query_str: Q }) });
    send({ kind: 'data', id: 0, text: frame({ ...head, status: 'PENDING', final_sse_message: false, blocks: [moved] }) });
    send({ kind: 'data', id: 0, text: frame({ ...head, status: 'COMPLETED', final_sse_message: true, blocks: [moved] }) + END });
    send({ kind: 'end', id: 0 });
    const binding = { turnIndex: 0, conversationUrl: URL_X, questionKey: Q, askedAt: 5 };
    const outcome = await Promise.race([
      reading.wait(never, binding, 5, undefined, () => URL_X),
      new Promise((r) => setTimeout(() => r('no stream answer: the page decides'), 100)),
    ]);
    expect(outcome).toBe('no stream answer: the page decides');
    const polled = reading.poll(page());
    expect(polled.status === 'completed' && polled.response === '').toBe(false);
  });

  test.skipIf(!present)('the real 2026-08-04 stream read by the reader as it was before that day (ask_text paths only): not an empty completed answer', async () => {
    const sse = readFileSync(join(folder, 'sse-perplexity-ask-perplexity-client-complete-2026-08-04.sse'), 'utf8');
    const before: AskStreamReader = {
      ...askStream2026,
      blocks: {
        answer: ['ask_text.markdown_block.answer'],
        answerChunks: ['ask_text.markdown_block.chunks[]'],
        steps: ['plan.plan_block.goals[].description'],
        sources: askStream2026.blocks.sources,
      },
    };
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => before });
    const q = 'what is the capital of Australia';
    send({ kind: 'open', id: 0, at: 10, body: JSON.stringify({ query_str: q }) });
    for (let i = 0; i < sse.length; i += 4096) send({ kind: 'data', id: 0, text: sse.slice(i, i + 4096) });
    send({ kind: 'end', id: 0 });
    const s = reading.forQuestion(q);
    // The capture's answer is 922 characters; this reader found none of it.
    expect(s?.markdown()).toBe('');
    const done = await reading.whenDone(q, 0, AbortSignal.timeout(100));
    expect(done).toBeNull();
    expect(reading.unknownShape).toBeDefined();
  });
});

/**
 * Review 14a, finding 3: AskStream.push checks `ended` once per piece, then reads EVERY event the piece completes
 * (ask-stream.ts:61-62). A final frame that comes after `end_of_stream` in the same network piece is read and makes
 * the stream "completed"; the same bytes cut between the two leave it "cut". An end_of_stream with no final frame
 * before it is a stream that ended without its answer, whichever way the network cut the bytes.
 */
const headers = { query_str: 'q?', thread_url_slug: 'x', backend_uuid: 'b' };
const pending = frame({ ...headers, status: 'PENDING', final_sse_message: false, blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Hal'] } }] });
const final = frame({ ...headers, status: 'COMPLETED', final_sse_message: true, blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Half'], answer: 'Half an answer' } }] });

describe('nothing after end_of_stream is read (review 14a, #4)', () => {
  test('end_of_stream then a final frame: the same reading whatever the pieces, and never completed', () => {
    const states = [
      [pending + END + final], // one piece
      [pending + END, final], // cut at the end event
    ].map((pieces) => {
      const s = new AskStream(askStream2026, { query: 'q?' }, 0);
      for (const p of pieces) s.push(p);
      s.close();
      return s.state();
    });
    expect(states[0]).toBe(states[1]);
    expect(states[0]).not.toBe('completed');
  });
});

/**
 * Review 14a, finding 6: a stream whose frames come under an event name the reader does not know (the site renames
 * `message`) is skipped frame by frame in silence (ask-stream.ts:128, "another kind of event is not a frame"): no
 * frame is read, `unknown` is never set, so StreamReading.unknownShape, the log and doctor --page say nothing, and
 * every turn is read from the page with no word why. Issue 30 item 7: a frame shape no reader knows is named once.
 */
describe('frames under an event name the reader does not know are named (review 14a, #5)', () => {
  test('every frame as `event: delta`, then end_of_stream: the stream says its shape is unknown', () => {
    const s = new AskStream(askStream2026, { query: 'q?' }, 0);
    const body = { query_str: 'q?', thread_url_slug: 'x', status: 'COMPLETED', final_sse_message: true, blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Hi'], answer: 'Hi' } }] };
    s.push(`event: delta\r\ndata: ${JSON.stringify(body)}\r\n\r\n`);
    s.push('event: end_of_stream\r\ndata: {}\r\n\r\n');
    s.close();
    expect(s.readable()).toBe(false);
    expect(s.unknown).toBeDefined();
  });
});

/**
 * Review 14a, finding 4: the channel's bound on a stream (tap-channel.ts MAX_CHARS, 4 M characters: "too large to
 * keep: cut") counts only text not yet read (stream-reading.ts sync subtracts each text it hands on). Once the ask
 * kit reads the channel, a frame that never ends (no blank line) is handed to the SSE parser piece by piece and
 * grows its pending line (sse.ts `rest`) without any bound: nothing in the page script caps one frame, and the
 * stream stays "working". 12 M characters here, three times the bound a stream has when nobody reads it.
 */
describe('one frame is bounded once a reader reads the channel too (review 14a, #6)', () => {
  test('a 12 M-character frame with no end is cut, as the same text unread would be', () => {
    const ch = new TapChannel();
    const send = (m: TapMessage) => (ch as unknown as { receive(m: unknown): void }).receive(m);
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: 'q?' }) });
    send({ kind: 'data', id: 0, text: 'event: message\r\ndata: {"answer":"' });
    const piece = 'x'.repeat(200_000);
    for (let i = 0; i < 60; i++) send({ kind: 'data', id: 0, text: piece });
    const s = reading.forQuestion('q?');
    const cut = ch.records[0]?.end?.error !== undefined || s?.state() === 'cut' || s?.readable() === false;
    expect(cut).toBe(true);
  });
});
