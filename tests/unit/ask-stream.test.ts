import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AskStream } from '../../lib/page/stream/ask-stream';
import { applyPatch } from '../../lib/page/stream/json-patch';
import { SseParser } from '../../lib/page/stream/sse';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { AskStreamReaderSchema } from '../../lib/selectors/stream/stream-schema';

/**
 * The page's ask stream read as it arrives (lib/page/stream/): SSE framing, JSON patches, and the
 * stream's state, on our own frames and on whole streams captured from the live perplexity.ai by people
 * outside this project (read from COMET_REAL_PERPLEXITY, never copied here; skipped without it).
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('ask-stream: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; skipping the tests against them.');
const read = (name: string) => readFileSync(join(folder, name), 'utf8');

/** The capture's last message frame, parsed on its own (not by the code under test). */
function lastFrame(text: string): Record<string, unknown> {
  const datas = text.split('\r\n\r\n').filter((e) => e.startsWith('event: message')).map((e) => e.slice(e.indexOf('data: ') + 6));
  return JSON.parse(datas.at(-1) as string) as Record<string, unknown>;
}

/** Feeds `text` in pieces of varying sizes (1 to 997 characters), as a network would. */
function feed(stream: AskStream, text: string, seed = 7): void {
  let i = 0;
  let n = seed;
  while (i < text.length) {
    n = (n * 7919 + 13) % 997;
    stream.push(text.slice(i, i + n + 1));
    i += n + 1;
  }
}

const frame = (body: object, crlf = true) => (crlf ? `event: message\r\ndata: ${JSON.stringify(body)}\r\n\r\n` : `event: message\ndata:${JSON.stringify(body)}\n\n`);
const END = 'event: end_of_stream\r\ndata: {}\r\n\r\n';
const newStream = () => new AskStream(askStream2026, { query: 'q?' }, 0);

describe('SSE framing', () => {
  test('both framings, split anywhere, a CR LF split across pieces, comments and multi-line data', () => {
    const text = 'event: message\r\ndata: {"a":1}\r\n\r\n: a comment\n\nevent: message\ndata:{"b":\ndata:2}\n\nevent: end_of_stream\rdata: {}\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(got).toEqual([
        { event: 'message', data: '{"a":1}' },
        { event: 'message', data: '{"b":\n2}' },
        { event: 'end_of_stream', data: '{}' },
      ]);
    }
  });

  test('pieces cut anywhere, with an empty piece between, read the same: a \\r then a \\n in the next piece is one line end', () => {
    const text = 'event: message\r\ndata: {"a":1}\r\n\r\nevent: message\rdata: {"b":2}\r\r';
    const want = [
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: '{"b":2}' },
    ];
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      expect([...p.push(text.slice(0, cut)), ...p.push(''), ...p.push(text.slice(cut))]).toEqual(want);
    }
  });

  test('a frame that comes in many pieces is read whole (the final frame holds the whole answer)', () => {
    const answer = 'x'.repeat(200_000);
    const text = `event: message\r\ndata: {"answer":"${answer}"}\r\n\r\nevent: end_of_stream\r\ndata: {}\r\n\r\n`;
    const p = new SseParser();
    const got: { event: string; data: string }[] = [];
    for (let i = 0; i < text.length; i += 1000) got.push(...p.push(text.slice(i, i + 1000)));
    expect(got.map((e) => e.event)).toEqual(['message', 'end_of_stream']);
    expect((JSON.parse(got[0]?.data ?? '') as { answer: string }).answer).toBe(answer);
  });

  test('an event the stream never closed is dropped at the end', () => {
    const p = new SseParser();
    expect(p.push('event: message\r\ndata: {"a":1}\r\n')).toEqual([]);
    expect(p.end()).toEqual([]);
  });
});

describe('JSON patch', () => {
  test('add, replace, remove, append, the whole document, escapes', () => {
    const doc = { a: { 'b/c': [1, 2] }, s: 'x' };
    applyPatch(doc, [
      { op: 'add', path: '/a/b~1c/1', value: 9 },
      { op: 'add', path: '/a/b~1c/-', value: 3 },
      { op: 'replace', path: '/s', value: 'y' },
      { op: 'remove', path: '/a/b~1c/0' },
      { op: 'add', path: '/n', value: null },
    ]);
    expect(doc).toEqual({ a: { 'b/c': [9, 2, 3] }, s: 'y', n: null });
    expect(applyPatch(doc, [{ op: 'replace', path: '', value: { z: 1 } }])).toEqual({ z: 1 });
  });

  test('what cannot apply throws, and nothing goes through a prototype', () => {
    expect(() => applyPatch({}, [{ op: 'add', path: '/x/y', value: 1 }])).toThrow(/no \/x\/y/);
    expect(() => applyPatch({ a: [] }, [{ op: 'add', path: '/a/2', value: 1 }])).toThrow();
    expect(() => applyPatch({ a: 1 }, [{ op: 'move', path: '/a' }])).toThrow(/unknown patch op/);
    expect(() => applyPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: 1 }])).toThrow(/refused/);
    expect(() => applyPatch({}, [{ op: 'add', path: '/constructor/prototype/polluted', value: 1 }])).toThrow(/refused/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('one ask stream', () => {
  const ask = (chunks: string[]) => ({ intended_usage: 'ask_text', diff_block: { field: 'markdown_block', patches: [{ op: 'replace', path: '', value: { chunks } }] } });
  const more = (i: number, chunk: string) => ({ intended_usage: 'ask_text', diff_block: { field: 'markdown_block', patches: [{ op: 'add', path: `/chunks/${i}`, value: chunk }] } });
  const head = { backend_uuid: 'b-1', frontend_uuid: 'f-1', query_str: 'q?', thread_url_slug: 'q-slug', context_uuid: 'c-1', status: 'PENDING', final_sse_message: false };

  test('working while frames come; completed on the final frame and the end; the final text is the answer', () => {
    const s = newStream();
    s.push(frame({ ...head, blocks: [ask(['Hel'])] }));
    s.push(frame({ ...head, blocks: [more(1, 'lo')] }, false));
    expect(s.state()).toBe('working');
    expect(s.markdown()).toBe('Hello');
    expect(s).toMatchObject({ backendUuid: 'b-1', frontendUuid: 'f-1', slug: 'q-slug', threadUuid: 'c-1', frames: 2 });
    s.push(frame({ ...head, final_sse_message: true, blocks: [more(2, '!')] }));
    expect(s.state()).toBe('working'); // a final frame still PENDING is not the end
    s.push(frame({ ...head, status: 'COMPLETED', final_sse_message: true, blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Hello!'], answer: 'Hello![1]' } }] }));
    expect(s.state()).toBe('working'); // no end yet
    s.push(END);
    expect(s.state()).toBe('completed');
    expect(s.markdown()).toBe('Hello![1]');
  });

  test('a stream cut before its end is never completed; a terminated one that ended is stopped', () => {
    const cut = newStream();
    cut.push(frame({ ...head, blocks: [ask(['Hel'])] }));
    cut.close('The operation was aborted.');
    expect(cut.state()).toBe('cut');
    expect(cut.readable()).toBe(false);
    const early = newStream();
    early.push(frame({ ...head, status: 'COMPLETED', final_sse_message: true, blocks: [ask(['Hel'])] }));
    early.close();
    expect(early.state()).toBe('cut');
    const stopped = newStream();
    stopped.push(frame({ ...head, blocks: [ask(['Hel'])] }));
    stopped.terminated = true;
    stopped.push(frame({ ...head, status: 'COMPLETED', final_sse_message: true, blocks: [ask(['Hel'])] }) + END);
    expect(stopped.state()).toBe('stopped');
    expect(stopped.markdown()).toBe('Hel');
  });

  test('a frame shape it does not know is named once and nothing more is read from the stream', () => {
    const s = newStream();
    s.push(frame({ ...head, blocks: [ask(['Hel'])] }));
    s.push('event: message\r\ndata: not json\r\n\r\n');
    expect(s.unknown).toMatch(/^frame 2 is not JSON/);
    s.push(frame({ ...head, blocks: [{ no_usage: 1 }] }));
    expect(s.unknown).toMatch(/^frame 2 /);
    expect(s.readable()).toBe(false);
    const orphan = newStream();
    orphan.push(frame({ ...head, blocks: [more(1, 'x')] }));
    expect(orphan.unknown).toBe('frame 1: ask_text.markdown_block: no /chunks/1 to add');
  });

  test('the built-in reader passes its own schema', () => {
    expect(AskStreamReaderSchema.safeParse(askStream2026).success).toBe(true);
  });
});

describe.skipIf(!present)('the ask stream on real perplexity_ask captures', () => {
  test('2026-08-04: the answer in workflow_root text_payload chunks, then whole; completed; sources and steps', () => {
    const text = read('sse-perplexity-ask-perplexity-client-complete-2026-08-04.sse');
    const last = lastFrame(text) as { blocks: { intended_usage: string; workflow_block?: { steps: { items: { payload: { text_payload?: { text: string } } }[] }[] }; web_result_block?: { web_results: { url: string }[] } }[] };
    const expected = last.blocks.find((b) => b.intended_usage === 'workflow_root')?.workflow_block?.steps[1]?.items[0]?.payload.text_payload?.text;
    const s = new AskStream(askStream2026, {}, 0);
    const seen: string[] = [];
    s.onChange(() => seen.push(s.markdown()));
    feed(s, text);
    expect(s.unknown).toBeUndefined();
    expect(s.state()).toBe('completed');
    expect(expected).toMatch(/^The capital of Australia is \*\*Canberra\*\*/);
    expect(s.markdown()).toBe(expected);
    // While it streamed, the Markdown grew from the chunks, each reading a prefix of the next.
    const growing = seen.filter((m) => m !== '');
    expect(growing.length).toBeGreaterThan(10);
    expect(growing[0]).toBe('The capital of Australia is **Canberr');
    expect(s.steps()).toEqual(['Searching the web']);
    const sources = last.blocks.find((b) => b.intended_usage === 'web_results')?.web_result_block?.web_results ?? [];
    expect(s.sources().map((x) => x.url)).toEqual(sources.map((x) => x.url));
    expect(s.sources()[0]).toEqual({ title: 'Australia | History, Cities, Population, Capital, Map, & Facts', url: 'https://www.britannica.com/place/Australia' });
    expect(s).toMatchObject({ query: 'what is the capital of Australia', backendUuid: 'cab3a882-c4e2-494b-bc19-64e6832108e7', slug: 'cab3a882-c4e2-494b-bc19-64e6832108e7' });
  });

  test('2026-07-31: the answer in ask_text markdown_block; the last frame\'s text, not the chunks joined', () => {
    const text = read('sse-perplexity-ask-perplexity-client-complete-2026-07-31.sse');
    const last = lastFrame(text) as { blocks: { intended_usage: string; markdown_block?: { answer: string; chunks: string[] } }[] };
    const block = last.blocks.find((b) => b.intended_usage === 'ask_text')?.markdown_block;
    const s = new AskStream(askStream2026, {}, 0);
    let beforeEnd = '';
    s.onChange(() => {
      if (s.state() === 'working' && !s.finalSeen) beforeEnd = s.markdown();
    });
    feed(s, text, 3);
    expect(s.unknown).toBeUndefined();
    expect(s.state()).toBe('completed');
    expect(s.markdown()).toBe(block?.answer);
    // The chunks cite in another order at one place: the last frame's text is what the answer is.
    expect(block?.chunks.join('')).not.toBe(block?.answer);
    expect(beforeEnd).toBe(block?.chunks.join(''));
    expect(s.steps()).toEqual(['Searching the web']);
    expect(s.sources()[0]?.url).toBe('https://en.wikipedia.org/wiki/Canberra');
    expect(s.sources().length).toBe(15);
  });

  test('2026-08-01 research frames: patches with no block before them are named, never guessed', () => {
    const { asked } = JSON.parse(read('sse-frames-research-clarify-perplexity-client-2026-08-01.json')) as { asked: object };
    const s = new AskStream(askStream2026, {}, 0);
    s.push(frame(asked));
    expect(s.unknown).toMatch(/^frame 1: plan\.plan_block: no \//);
    expect(s.readable()).toBe(false);
  });
});
