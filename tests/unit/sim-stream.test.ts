import { describe, expect, test } from 'vitest';
import { AskStream } from '../../lib/page/stream/ask-stream';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { answerMarkdown } from '../sim/json/thread-json';
import { createSimSite, type SimSite } from '../sim/site';
import type { AskResponse } from '../sim/types';

/**
 * The simulated site's answer stream (tests/sim/json/ask-stream.ts) read by the product's own stream reader:
 * the real frame shapes (chunks growing by patches, the last frame whole), the turn's whole answer at
 * the end, a stopped turn ending COMPLETED with what it had, a turn that waits on the person ending
 * with no final frame.
 */
async function ask(site: SimSite, query: string, mode = 'standard'): Promise<AskResponse> {
  const res = await site.handle({ method: 'POST', url: '/_sim/api/ask', body: JSON.stringify({ query, mode, model: 'Best' }) });
  return JSON.parse(String(res.body)) as AskResponse;
}

async function play(site: SimSite, r: AskResponse, during?: (stream: AskStream) => Promise<void> | void): Promise<{ stream: AskStream; text: string }> {
  const res = await site.handle({
    method: 'POST',
    url: '/rest/sse/perplexity_ask',
    body: JSON.stringify({ query_str: r.turn.query, params: { frontend_uuid: r.turn.uuid, thread: r.thread.id, turn: r.turn.index } }),
  });
  expect(res.contentType).toMatch(/^text\/event-stream/);
  const stream = new AskStream(askStream2026, { query: r.turn.query }, 0);
  let text = '';
  let asked = false;
  await res.stream?.((piece) => {
    text += piece;
    stream.push(piece);
    if (!asked && during && stream.markdown()) {
      asked = true;
      void during(stream);
    }
  }, () => false);
  stream.close();
  return { stream, text };
}

describe('the sim’s ask stream', () => {
  test('a search answer: chunks added by patches while it plays, the last frame whole, the end; its Markdown is the turn’s', async () => {
    // The site's clock moves 15 ms each time it is read: the stream samples the script at fixed moments, however loaded the machine.
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, clock: () => (t += 15) });
    const r = await ask(site, 'What is the capital of Australia?');
    const seen: string[] = [];
    const { stream, text } = await play(site, r, (s) => void seen.push(s.markdown()));
    expect(stream.unknown).toBeUndefined();
    expect(stream.state()).toBe('completed');
    const turn = site.thread(r.thread.id)?.turns[0];
    expect(turn).toBeDefined();
    const whole = answerMarkdown(turn?.script.answer ?? [], turn?.script.sources ?? [], Number.POSITIVE_INFINITY);
    expect(stream.markdown()).toBe(whole);
    expect(text).toMatch(/"op":"add","path":"\/steps\/\d+\/items\/0\/payload\/text_payload\/chunks\/1"/);
    expect(text.startsWith('event: message\r\ndata: {')).toBe(true);
    expect(text.endsWith('event: end_of_stream\r\ndata: {}\r\n\r\n')).toBe(true);
    expect(seen[0]?.length).toBeLessThan(whole.length);
    expect(stream.sources().length).toBe(turn?.script.sources.length);
    expect(stream).toMatchObject({ query: r.turn.query, slug: r.thread.slug, threadUuid: r.thread.id });
  });

  test('Deep Research: the answer in ask_text’s markdown_block, as the 2026-07-31 stream', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, scenario: 'short', clock: () => (t += 15) });
    const r = await ask(site, 'Research the capital of Australia', 'deep-research');
    const { stream, text } = await play(site, r);
    expect(text).toContain('"intended_usage":"ask_text","diff_block":{"field":"markdown_block","patches":[{"op":"add","path":"/chunks/1"');
    expect(stream.state()).toBe('completed');
    expect(stream.markdown().length).toBeGreaterThan(0);
  });

  test('stopped while it streams: the last frame still COMPLETED, the answer as far as it got', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, scenario: 'slow', clock: () => (t += 15) });
    const r = await ask(site, 'Tell me slowly');
    const { stream } = await play(site, r, async () => {
      await site.handle({ method: 'POST', url: '/_sim/api/stop', body: JSON.stringify({ thread: r.thread.id, turn: r.turn.index, applied: 3 }) });
    });
    expect(stream.finalSeen).toBe(true);
    expect(stream.ended).toBe(true);
    stream.terminated = true;
    expect(stream.state()).toBe('stopped');
  });

  test('an unknown turn is a 404, and Stop’s call answers', async () => {
    const site = createSimSite({ generation: 'B', speed: 20 });
    const res = await site.handle({ method: 'POST', url: '/rest/sse/perplexity_ask', body: JSON.stringify({ query_str: 'q', params: { thread: 'nope', turn: 0 } }) });
    expect(res.status).toBe(404);
    expect((await site.handle({ method: 'POST', url: '/rest/sse/perplexity_terminate', body: '{}' })).status).toBe(200);
  });
});
