import { describe, expect, test } from 'vitest';
import type { PollResult } from '../../lib/page/answer/reader';
import { StreamReading } from '../../lib/page/stream/stream-reading';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { channel, END, frame, text } from '../support/stream-frames';

/**
 * Turns read from their own ask stream (lib/page/stream/stream-reading.ts): which stream is a turn's,
 * and what comet_poll and comet_wait say from it; a cut or unreadable stream leaves the page's reading as it is.
 */

const add = (n: number, chunk: string) => ({ intended_usage: 'workflow_root', diff_block: { field: 'workflow_block', patches: [{ op: 'add', path: `/steps/1/items/0/payload/text_payload/chunks/${n}`, value: chunk }] } });
// Every frame names its thread, as in every capture: the page's, `/search/x` (page() below).
const head = (query: string) => ({ query_str: query, backend_uuid: 'b', thread_url_slug: 'x', status: 'PENDING', final_sse_message: false });
const last = (query: string, whole: string) => frame({ ...head(query), status: 'COMPLETED', final_sse_message: true, blocks: [text([whole], { text: whole })] });

const page = (over: Partial<PollResult> = {}): PollResult => ({
  status: 'working',
  steps: ['Searching'],
  currentStep: 'Searching',
  response: 'He',
  hasStopButton: true,
  hasLoadingSpinner: false,
  proseCount: 1,
  turnCount: 1,
  lastTurnIndex: 0,
  questionText: 'What is the capital of Australia?',
  url: 'https://www.perplexity.ai/search/x',
  truncated: false,
  totalLength: 2,
  ...over,
});

const Q = 'What is the capital of Australia?';

describe('reading a turn from its ask stream', () => {
  test('comet_poll: working with the Markdown so far while frames come, then completed with the final text, read from the stream', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: Q, params: { frontend_uuid: 'f' } }) });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) + frame({ ...head(Q), blocks: [add(1, 'berra')] }) });
    expect(reading.poll(page())).toMatchObject({ status: 'working', response: 'Canberra', steps: ['Searching the web'], answerSource: 'stream' });
    send({ kind: 'data', id: 0, text: last(Q, 'Canberra.[1]') });
    // The final frame alone is not the end.
    expect(reading.poll(page())).toMatchObject({ status: 'working' });
    send({ kind: 'data', id: 0, text: END });
    // The page still types (its stop control up), and has no answer block it knows: the stream says it all.
    const done = reading.poll(page({ unconfirmed: '[SELECTOR_MISS] answer: …' }));
    expect(done).toMatchObject({ status: 'completed', response: 'Canberra.[1]', totalLength: 12, currentStep: '', answerSource: 'stream' });
    expect(done.unconfirmed).toBeUndefined();
  });

  test('comet_poll on a thread whose stream is read: the page is read without the answer\'s prose, and whole when the stream does not answer for its turn', async () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const reads: boolean[] = [];
    const read = (over: Partial<PollResult>) => async (prose: boolean) => {
      reads.push(prose);
      return page({ ...over, response: prose ? 'He' : '' });
    };
    // No stream of this thread yet: the page alone, whole.
    expect(await reading.pollThrough(read({}), page().url)).toMatchObject({ response: 'He' });
    expect(reads.splice(0)).toEqual([true]);
    send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: Q }) });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), thread_url_slug: 'x', blocks: [text(['Can'])] }) });
    expect(await reading.pollThrough(read({}), page().url)).toMatchObject({ status: 'working', response: 'Can', answerSource: 'stream' });
    expect(reads.splice(0)).toEqual([false]);
    // The page's turn is another question (asked since, its stream not seen): read again, whole, and returned as the page has it.
    const other = await reading.pollThrough(read({ questionText: 'Something else entirely' }), page().url);
    expect(reads.splice(0)).toEqual([false, true]);
    expect(other).toMatchObject({ response: 'He' });
    expect(other).not.toHaveProperty('answerSource');
  });

  test('comet_poll again while neither the page nor the stream moved gives the same answer, and a frame since is read', async () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const kept = page({ response: '' });
    const read = async () => kept; // the page's read cache: the same read while the page holds still
    send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: Q }) });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), thread_url_slug: 'x', blocks: [text(['Can'])] }) });
    const first = await reading.pollThrough(read, page().url);
    expect(await reading.pollThrough(read, page().url)).toBe(first);
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), thread_url_slug: 'x', blocks: [add(1, 'berra')] }) });
    expect(await reading.pollThrough(read, page().url)).toMatchObject({ response: 'Canberra', answerSource: 'stream' });
  });

  test('a cut stream, one of another question, or one with a frame it does not know leave the page’s reading as it is', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1 });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) });
    send({ kind: 'end', id: 0, error: 'network error' });
    expect(reading.poll(page())).toEqual(page());
    send({ kind: 'open', id: 1, at: 2 });
    send({ kind: 'data', id: 1, text: frame({ ...head('Another question entirely?'), blocks: [text(['x'])] }) });
    expect(reading.poll(page())).toEqual(page());
    send({ kind: 'open', id: 2, at: 3 });
    send({ kind: 'data', id: 2, text: `${frame({ ...head(Q), blocks: [text(['Can'])] })}event: message\r\ndata: {oops\r\n\r\n` });
    expect(reading.poll(page())).toEqual(page());
    expect(reading.unknownShape).toMatch(/^ask-stream-2026-08: frame 2 is not JSON/);
  });

  test('the same question asked in two threads: the page on one thread reads its own thread’s stream', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const on = (slug: string) => ({ ...head(Q), thread_url_slug: slug });
    send({ kind: 'open', id: 0, at: 1 });
    send({ kind: 'data', id: 0, text: frame({ ...on('first-thread'), blocks: [text(['First'])] }) });
    send({ kind: 'open', id: 1, at: 2 });
    send({ kind: 'data', id: 1, text: frame({ ...on('second-thread'), blocks: [text(['Second'])] }) });
    expect(reading.poll(page({ url: 'https://www.perplexity.ai/search/first-thread' })).response).toBe('First');
    expect(reading.poll(page({ url: 'https://www.perplexity.ai/search/second-thread' })).response).toBe('Second');
    // A page that names neither (the home page, or a URL the site shapes otherwise): the newest.
    expect(reading.poll(page({ url: 'https://www.perplexity.ai/' })).response).toBe('Second');
  });

  test('a conversation whose own stream was never seen is read from the page, never from another thread’s stream of the same words (review 2026-12-05 #1)', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1 });
    send({ kind: 'data', id: 0, text: `${frame({ ...head(Q), thread_url_slug: 'thread-a', status: 'COMPLETED', final_sse_message: true, blocks: [text(["Thread A's answer"], { text: "Thread A's answer" })] })}${END}` });
    send({ kind: 'end', id: 0 });
    // The person opened thread B from the sidebar (same page load), whose last question is the same.
    const onB = page({ status: 'completed', response: "B's own answer", url: 'https://www.perplexity.ai/search/thread-b' });
    expect(reading.poll(onB)).toEqual(onB);
    expect(reading.forQuestion(Q, 0, onB.url)).toBeNull();
    // A stream that has not said its thread yet (an ask's first moments, the URL already moved) is still a candidate;
    // one whose frames name no thread (the field renamed) is not: it might be any thread's.
    send({ kind: 'open', id: 1, at: 2, body: JSON.stringify({ query_str: Q }) });
    expect(reading.forQuestion(Q, 0, onB.url)).not.toBeNull();
    const { thread_url_slug: _renamed, ...nameless } = head(Q);
    send({ kind: 'data', id: 1, text: frame({ ...nameless, blocks: [text(['Whose?'])] }) });
    expect(reading.forQuestion(Q, 0, onB.url)).toBeNull();
  });

  test('a bound wait reads the stream of the conversation it is bound to, not of the one the tab moved to (review of the fixes, 2026-12-05 #1)', async () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const done = (id: number, at: number, slug: string, answer: string) => {
      send({ kind: 'open', id, at });
      send({ kind: 'data', id, text: `${frame({ ...head(Q), thread_url_slug: slug, status: 'COMPLETED', final_sse_message: true, blocks: [text([answer], { text: answer })] })}${END}` });
      send({ kind: 'end', id });
    };
    done(0, 10, 'x', 'Thread x, this turn.');
    done(1, 20, 'y', 'Thread y, the same words.');
    const binding = { turnIndex: 0, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: Q, askedAt: 5 };
    const outcome = await reading.wait(() => new Promise(() => {}), binding, 5, undefined, () => 'https://www.perplexity.ai/search/y');
    expect(outcome).toMatchObject({ status: 'completed', response: 'Thread x, this turn.', answerSource: 'stream' });
  });

  test('a question is its stream’s only when it is the same question: a longer one that starts with it is another (review 2026-12-05 #1)', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1 });
    send({ kind: 'data', id: 0, text: frame({ ...head('Tell me more'), blocks: [text(['More about the first topic'])] }) });
    const longer = page({ questionText: "Tell me more about Canberra's water supply" });
    expect(reading.poll(longer)).toEqual(longer);
    expect(reading.poll(page({ questionText: 'Tell me more' })).response).toBe('More about the first topic');
  });

  test('a terminate sent while the stream ran, then its end: completed and stopped', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    send({ kind: 'open', id: 0, at: 1 });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) });
    send({ kind: 'terminate', at: 2 });
    send({ kind: 'data', id: 0, text: last(Q, 'Can') + END });
    send({ kind: 'end', id: 0 });
    expect(reading.poll(page({ hasStopButton: false }))).toMatchObject({ status: 'completed', stopped: true, response: 'Can', answerSource: 'stream' });
  });

  test('two terminates, the first before the final frame: stopped, read live or by a kit loaded afterwards (review of the fixes, 2026-12-05 #4)', () => {
    for (const live of [true, false]) {
      const { ch, send } = channel();
      const early = live ? new StreamReading(ch, { reader: () => askStream2026 }) : undefined;
      send({ kind: 'open', id: 0, at: 1 });
      send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) });
      send({ kind: 'terminate', at: 2 }); // the person's Stop
      send({ kind: 'data', id: 0, text: last(Q, 'Can') });
      send({ kind: 'terminate', at: 3 }); // a second one, after the final frame
      send({ kind: 'data', id: 0, text: END });
      send({ kind: 'end', id: 0 });
      const reading = early ?? new StreamReading(ch, { reader: () => askStream2026 });
      expect(reading.poll(page({ hasStopButton: false })), live ? 'live' : 'late').toMatchObject({ status: 'completed', stopped: true });
    }
  });

  test('a terminate that comes after the final frame stopped nothing: completed, not stopped, even read by a kit that came later (review 2026-12-05 #4)', () => {
    // Read as it comes, and by an ask kit loaded afterwards (every text at once).
    const readings = [true, false].map((live) => {
      const { ch, send } = channel();
      const reading = live ? new StreamReading(ch, { reader: () => askStream2026 }) : undefined;
      send({ kind: 'open', id: 0, at: 1 });
      send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) });
      send({ kind: 'data', id: 0, text: last(Q, 'Canberra.') });
      send({ kind: 'terminate', at: 2 }); // another stream's Stop, or a late clean-up: the answer was whole already
      send({ kind: 'data', id: 0, text: END });
      send({ kind: 'end', id: 0 });
      return reading ?? new StreamReading(ch, { reader: () => askStream2026 });
    });
    for (const reading of readings) {
      const polled = reading.poll(page({ hasStopButton: false }));
      expect(polled).toMatchObject({ status: 'completed', response: 'Canberra.', answerSource: 'stream' });
      expect(polled).not.toHaveProperty('stopped');
    }
  });

  test('a long prompt’s stream, its question repeated in every frame, is read whole: read frames are let go, so the page script’s cap counts only what waits (review 2026-12-05 #6)', () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026 });
    const long = `${'A long prompt, pasted whole. '.repeat(1900)}What is the capital of Australia?`; // ~55,000 characters
    send({ kind: 'open', id: 0, at: 1, body: JSON.stringify({ query_str: long }) });
    send({ kind: 'data', id: 0, text: frame({ ...head(long), blocks: [text([''])] }) });
    // 80 frames of ~55,000 characters each: 4.4 M in all, past the 4 M a stream may keep unread.
    for (let n = 1; n <= 80; n++) send({ kind: 'data', id: 0, text: frame({ ...head(long), blocks: [add(n - 1, n === 1 ? 'Can' : '.')] }) });
    send({ kind: 'data', id: 0, text: last(long, `Can${'.'.repeat(79)}`) + END });
    send({ kind: 'end', id: 0 });
    const record = ch.records[0];
    expect(record?.end).toEqual({});
    expect(record?.size).toBe(0);
    const s = reading.forQuestion(long);
    expect(s?.state()).toBe('completed');
    expect(s?.markdown()).toBe(`Can${'.'.repeat(79)}`);
  });

  test('comet_wait: resolves at the stream’s end with its final text; null when it is cut or the wait is cancelled', async () => {
    const { ch, send } = channel();
    const reading = new StreamReading(ch, { reader: () => askStream2026, now: () => 1_000 });
    const waiting = reading.whenDone(Q, 0, new AbortController().signal);
    send({ kind: 'open', id: 0, at: 10 });
    send({ kind: 'data', id: 0, text: frame({ ...head(Q), blocks: [text(['Can'])] }) + last(Q, 'Canberra.') + END });
    const s = await waiting;
    expect(s && reading.outcome(s, { turnIndex: 0, url: 'u', started: 400 }, 4)).toMatchObject({
      status: 'completed',
      response: 'Canb',
      truncated: true,
      totalLength: 9,
      elapsedMs: 600,
      questionText: Q,
      answerSource: 'stream',
    });
    // A stream that started before the ask is not this ask's.
    const early = reading.whenDone(Q, 11, AbortSignal.timeout(50));
    expect(await early).toBeNull();
    const cut = reading.whenDone('Why?', 0, new AbortController().signal);
    send({ kind: 'open', id: 1, at: 20 });
    send({ kind: 'data', id: 1, text: frame({ ...head('Why?'), blocks: [text(['Be'])] }) });
    send({ kind: 'end', id: 1, error: 'The operation was aborted.' });
    expect(await cut).toBeNull();
  });
});
