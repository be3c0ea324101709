// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { questionKey } from '../../lib/page/answer/question';
import { createPageDriver } from '../../lib/page/driver';
import { StreamReading } from '../../lib/page/stream/stream-reading';
import { TapChannel } from '../../lib/page/stream/tap-channel';
import type { TapMessage } from '../../lib/page/stream/tap-protocol';
import { pageMethods } from '../../lib/protocol/page/page-methods';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { loadFixture } from '../fixtures/reader/load';

/**
 * The driver's narrow hooks into the stream reading (lib/page/driver.ts): a bound comet_wait whose page shows the
 * turn done while its stream is still open answers from the stream's end; a stream cut instead leaves the page's
 * reading; the results keep `answerSource` through the schemas the relay parses them with.
 */
const frame = (body: object) => `event: message\r\ndata: ${JSON.stringify(body)}\r\n\r\n`;
const END = 'event: end_of_stream\r\ndata: {}\r\n\r\n';
// Every frame names its thread, as in every capture: the fixtures' page, https://www.perplexity.ai/search/x.
const answer = (text: string, done: boolean) => ({
  query_str: '',
  thread_url_slug: 'x',
  status: done ? 'COMPLETED' : 'PENDING',
  final_sse_message: done,
  blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: [text], ...(done ? { answer: text } : {}) } }],
});

/** A page (by default one whose last turn is done), its driver reading streams, and a channel to feed them. */
async function world(fixture = 'A-thread.html', status = 'completed') {
  loadFixture(fixture);
  const driver = createPageDriver(window);
  const shown = await driver.poll();
  expect(shown.status).toBe(status);
  const channel = new TapChannel();
  const send = (m: TapMessage) => (channel as unknown as { receive(m: unknown): void }).receive(m);
  driver.useStreams(new StreamReading(channel, { reader: () => askStream2026 }));
  const q = shown.questionText;
  // Asked a moment ago: the turn's own stream is the first of its words opened after that.
  const binding = { turnIndex: shown.lastTurnIndex, conversationUrl: location.href, questionKey: questionKey(q), askedAt: Date.now() - 1, timeoutMs: 5000 };
  const frameOf = (text: string, done: boolean) => frame({ ...answer(text, done), query_str: q });
  return { driver, send, binding, frameOf, shown, channel };
}

describe('a bound wait and its turn’s stream', () => {
  it('the page shows the turn done, its stream still open: the wait answers at the stream’s end, from it', async () => {
    const { driver, send, binding, frameOf } = await world();
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('Streamed so', false) });
    const waiting = driver.wait(binding);
    await new Promise((r) => setTimeout(r, 30));
    send({ kind: 'data', id: 0, text: frameOf('Streamed so far, and whole.', true) + END });
    const result = pageMethods['page.wait'].result.parse(await waiting);
    expect(result).toMatchObject({ status: 'completed', response: 'Streamed so far, and whole.', answerSource: 'stream', turnIndex: binding.turnIndex });
    const polled = pageMethods['page.poll'].result.parse(await driver.poll());
    expect(polled).toMatchObject({ status: 'completed', response: 'Streamed so far, and whole.', answerSource: 'stream' });
  });

  it('a traced wait answered by its stream notes when the channel had the stream’s end and when the answer was made from it (bench (a)’s hops)', async () => {
    const { driver, send, binding, frameOf } = await world();
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('Streamed so', false) });
    const trace: Record<string, number> = {};
    const waiting = driver.wait(binding, { trace });
    await new Promise((r) => setTimeout(r, 30));
    const before = performance.timeOrigin + performance.now();
    send({ kind: 'data', id: 0, text: frameOf('Streamed so far, and whole.', true) + END });
    expect((await waiting) as object).toMatchObject({ answerSource: 'stream' });
    expect(trace.streamAt).toBeGreaterThanOrEqual(before);
    expect(trace.streamReadAt).toBeGreaterThanOrEqual(trace.streamAt as number);
  });

  it('a page still typing its answer when the stream ends: the stream answers, and the page’s own wait stops in the next task (the answer goes out first)', async () => {
    const { driver, send, binding, frameOf } = await world('B-thread-streaming.html', 'working');
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('Typed so', false) });
    const watching = () => (driver.watcher as unknown as { listeners: Set<unknown> }).listeners.size;
    const waiting = driver.wait({ ...binding, stallMs: 60_000 });
    await new Promise((r) => setTimeout(r, 30));
    expect(watching()).toBe(1);
    send({ kind: 'data', id: 0, text: frameOf('Typed so far, whole.', true) + END });
    expect(await waiting).toMatchObject({ status: 'completed', response: 'Typed so far, whole.', answerSource: 'stream' });
    expect(watching()).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(watching()).toBe(0);
  });

  it('the stream is cut instead: the page’s reading answers, and comet_poll reads the page', async () => {
    const { driver, send, binding, frameOf, shown } = await world();
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('Streamed so', false) });
    const waiting = driver.wait(binding);
    await new Promise((r) => setTimeout(r, 30));
    send({ kind: 'end', id: 0, error: 'network error' });
    const result = await waiting;
    expect(result.status).toBe('completed');
    expect(result.response).toBe(shown.response);
    expect((result as { answerSource?: string }).answerSource).toBeUndefined();
    expect((await driver.poll()).response).toBe(shown.response);
  });

  it('a wait bound to an ask answers from that ask’s own stream, never from a later stream of the same words, and a binding without its ask’s time from the page (review 2026-12-05 #3)', async () => {
    const { driver, send, binding, frameOf } = await world();
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('This turn’s own answer.', true) + END });
    send({ kind: 'end', id: 0 });
    // The same words asked again since (another session, a retry): its stream is newer and still streaming.
    await new Promise((r) => setTimeout(r, 5));
    send({ kind: 'open', id: 1, at: Date.now() });
    send({ kind: 'data', id: 1, text: frameOf('Another turn’s', false) });
    const later = setTimeout(() => send({ kind: 'data', id: 1, text: frameOf('Another turn’s answer.', true) + END }), 30);
    const result = await driver.wait(binding);
    clearTimeout(later);
    expect(result).toMatchObject({ status: 'completed', response: 'This turn’s own answer.', answerSource: 'stream' });
    // Bound without the moment its ask was sent, no stream can be told to be its own: the page answers.
    const { askedAt: _unknown, ...unsure } = binding;
    expect((await driver.wait(unsure)) as object).not.toHaveProperty('answerSource');
  });

  it('a bound wait cancelled by its caller (the kit runs the race, lib/page/stream/stream-reading.ts) leaves nothing listening to the stream, and one cancelled before it starts never waits', async () => {
    const { driver, send, binding, frameOf, channel } = await world();
    const listening = () => (channel as unknown as { listeners: Set<unknown> }).listeners.size;
    const before = listening();
    send({ kind: 'open', id: 0, at: Date.now() });
    send({ kind: 'data', id: 0, text: frameOf('Streamed so', false) });
    const caller = new AbortController();
    const waiting = driver.wait({ ...binding, stallMs: 60_000 }, { signal: caller.signal });
    await new Promise((r) => setTimeout(r, 30));
    expect(listening()).toBe(before + 1);
    // The page shows the turn done and the wait holds for the stream's end: the cancel ends that hold at once (its
    // caller is gone; the agent sends nothing for a cancelled call).
    caller.abort();
    await waiting.catch(() => undefined);
    expect(listening()).toBe(before);
    // Already cancelled before it starts: it does not wait.
    const late = new AbortController();
    late.abort();
    await expect(driver.wait(binding, { signal: late.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(listening()).toBe(before);
  });
});
