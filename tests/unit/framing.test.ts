import { describe, expect, it } from 'vitest';
import { ChunkAssembler, encodeFrame, FrameDecoder, MAX_FRAME_DEPTH, nestsTooDeep, splitIntoChunks, utf8Length } from '../../lib/protocol/framing';
import { parseEnvelope } from '../../lib/protocol/messages';

const frameOf = (value: unknown) => encodeFrame(value);

function rawFrame(body: string | Uint8Array): Uint8Array {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return out;
}

describe('FrameDecoder', () => {
  it('decodes a frame split at every possible byte boundary', () => {
    const frame = frameOf({ kind: 'ping', t: 1, text: 'héllo ✓' });
    for (let cut = 0; cut <= frame.length; cut++) {
      const decoder = new FrameDecoder();
      const results = [...decoder.push(frame.subarray(0, cut)), ...decoder.push(frame.subarray(cut))];
      expect(results).toEqual([{ ok: true, value: { kind: 'ping', t: 1, text: 'héllo ✓' } }]);
      expect(decoder.pending).toBe(0);
    }
  });

  it('decodes many frames delivered in one chunk', () => {
    const frames = Array.from({ length: 50 }, (_, i) => frameOf({ i }));
    const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    let offset = 0;
    for (const f of frames) {
      all.set(f, offset);
      offset += f.length;
    }
    const results = new FrameDecoder().push(all);
    expect(results.map((r) => (r.ok ? (r.value as { i: number }).i : -1))).toEqual(frames.map((_, i) => i));
  });

  it('decodes a stream of frames cut into random pieces the same as whole, and joins a big frame once', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const values = Array.from({ length: 60 }, (_, i) => ({ i, pad: 'é✓x'.repeat(Math.floor(random() * (i % 10 === 0 ? 30_000 : 40))) }));
    const stream = new Uint8Array(values.reduce((n, v) => n + frameOf(v).length, 0));
    let at = 0;
    for (const v of values) {
      const f = frameOf(v);
      stream.set(f, at);
      at += f.length;
    }
    const largest = Math.max(...values.map((v) => frameOf(v).length));
    for (let round = 0; round < 20; round++) {
      const decoder = new FrameDecoder();
      const out: unknown[] = [];
      for (let start = 0; start < stream.length; ) {
        const size = 1 + Math.floor(random() * (random() < 0.3 ? 5 : 9000));
        for (const r of decoder.push(stream.subarray(start, start + size))) out.push(r.ok ? r.value : r.error);
        start += size;
        expect(decoder.pending).toBeLessThan(largest + 9000); // never more than a frame and a piece
      }
      expect(out).toEqual(values);
      expect(decoder.pending).toBe(0);
    }
  });

  it('refuses JSON nested deeper than any message before parsing it, keeping the top-level id', () => {
    const nest = (n: number) => `${'{"a":['.repeat(n)}1${']}'.repeat(n)}`;
    const decoder = new FrameDecoder();
    const [deep] = decoder.push(rawFrame(`{"kind":"request","id":"d1","method":"tabs.list","params":${nest(50_000)}}`));
    expect(deep).toEqual({ ok: false, error: `frame nests deeper than ${MAX_FRAME_DEPTH} levels`, tooDeep: { id: 'd1' } });
    const [anonymous] = decoder.push(rawFrame(nest(1000)));
    expect(anonymous).toMatchObject({ ok: false, tooDeep: {} });
    // At the limit it is parsed (and the host's own params check answers it).
    const [allowed] = decoder.push(rawFrame(`[${'['.repeat(MAX_FRAME_DEPTH - 1)}${']'.repeat(MAX_FRAME_DEPTH - 1)}]`));
    expect(allowed?.ok).toBe(true);
  });

  it('counts only brackets outside strings, escaped quotes included, and a nested or escaped "id" is no id', () => {
    const brackets = '[[[[{{{{'.repeat(200);
    expect(nestsTooDeep(JSON.stringify({ id: 'x', text: brackets, more: `a\\"${brackets}` }), 10)).toBeUndefined();
    expect(nestsTooDeep(`{"x":"\\\\"${'['.repeat(20)}`, 10)).toEqual({});
    expect(nestsTooDeep(`{"outer":{"id":"inner"},"deep":${'['.repeat(20)}`, 10)).toEqual({});
    expect(nestsTooDeep(`{"id":"a\\"b","deep":${'['.repeat(20)}`, 10)).toEqual({});
    expect(nestsTooDeep(`{ "id" : "r7" , "deep":${'['.repeat(20)}`, 10)).toEqual({ id: 'r7' });
    expect(nestsTooDeep('"unterminated [[[[[[[[[[[[', 3)).toBeUndefined(); // JSON.parse says what is wrong
  });

  it('reads a little-endian length', () => {
    const frame = frameOf({ a: 'x'.repeat(300) });
    const length = new DataView(frame.buffer).getUint32(0, true);
    expect(length).toBe(frame.length - 4);
    expect(frame[1]).toBe(1); // 300+ bytes: second byte of a little-endian length is set
  });

  it('skips an oversized frame without buffering it, then reads the next one', () => {
    const decoder = new FrameDecoder(100);
    const big = rawFrame(JSON.stringify({ pad: 'x'.repeat(500) }));
    const next = frameOf({ after: true });
    const first = decoder.push(big.subarray(0, 50));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ ok: false });
    expect((first[0] as { error: string }).error).toMatch(/exceeds the limit of 100 bytes/);
    expect(decoder.push(big.subarray(50))).toEqual([]);
    expect(decoder.push(next)).toEqual([{ ok: true, value: { after: true } }]);
  });

  it('reports garbage and keeps going', () => {
    const decoder = new FrameDecoder();
    const results = decoder.push(
      new Uint8Array([...rawFrame('not json'), ...rawFrame(new Uint8Array([0xff, 0xfe])), ...rawFrame(''), ...frameOf({ ok: 1 })]),
    );
    expect(results.map((r) => r.ok)).toEqual([false, false, false, true]);
    expect((results[0] as { error: string }).error).toMatch(/not JSON/);
    expect((results[1] as { error: string }).error).toMatch(/UTF-8/);
    expect((results[2] as { error: string }).error).toMatch(/length 0/);
  });
});

describe('chunking toward the extension', () => {
  it('leaves small messages whole', () => {
    expect(splitIntoChunks('{"a":1}', 'c1')).toEqual(['{"a":1}']);
  });

  it('splits a large message into chunks under the limit and reassembles it in any order', () => {
    const value = { kind: 'result', id: 'r1', result: { text: 'ü"\\\n'.repeat(150_000), more: '✓'.repeat(200_000) } };
    const json = JSON.stringify(value);
    const limit = 100_000;
    const chunks = splitIntoChunks(json, 'c9', limit);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(utf8Length(chunk)).toBeLessThanOrEqual(limit);
    const assembler = new ChunkAssembler();
    const parsed = chunks.map((c) => parseEnvelope(JSON.parse(c))).map((p) => (p.ok && p.envelope.kind === 'chunk' ? p.envelope : undefined));
    const shuffled = [...parsed].reverse();
    let whole: unknown;
    for (const chunk of shuffled) {
      const result = assembler.add(chunk!);
      if (result) whole = result;
    }
    expect(whole).toEqual({ ok: true, value });
  });

  it('rejects a chunk that contradicts its message', () => {
    const assembler = new ChunkAssembler();
    expect(assembler.add({ kind: 'chunk', chunkId: 'x', index: 0, count: 2, data: '{' })).toBeUndefined();
    expect(assembler.add({ kind: 'chunk', chunkId: 'x', index: 1, count: 3, data: '}' })).toMatchObject({ ok: false });
  });
});
