import { MAX_PARAMS_DEPTH } from './limits';
import type { Chunk } from './messages';

/**
 * Native messaging framing: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.
 * The local socket between MCP processes and the host uses the same framing, so one decoder
 * serves both. Written on Uint8Array so it runs in Node and in the extension alike.
 */

/** Host → extension messages may not exceed 1 MB; we chunk above this to keep a margin. */
export const MAX_TO_EXTENSION_BYTES = 900 * 1024;
/** Largest frame we accept from anyone (Chromium allows 64 MiB extension → host). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeFrame(value: unknown): Uint8Array {
  const body = encoder.encode(JSON.stringify(value));
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, true);
  frame.set(body, 4);
  return frame;
}

/**
 * A frame's JSON, or why there is none. `tooDeep`: the frame nests deeper than any message may
 * (MAX_FRAME_DEPTH), refused before JSON.parse built it, with the top-level `id` when it had one
 * so the sender can be answered under it.
 */
export type FrameResult = { ok: true; value: unknown } | { ok: false; error: string; tooDeep?: { id?: string } };

/**
 * How deep a frame may nest: an envelope's own levels (request → params) plus MAX_PARAMS_DEPTH.
 * Deeper JSON is refused before parsing: parsed, 50,000 levels are 100,000 objects, and a burst of
 * such frames raised the host's peak to 122 MB (bench g, 2026-12-01).
 */
export const MAX_FRAME_DEPTH = MAX_PARAMS_DEPTH + 8;

/**
 * Incremental decoder: feed it whatever the stream delivers (half a header, three frames at once)
 * and it hands back each complete frame. A frame that is too big is skipped, not buffered; a frame
 * that is not JSON is reported; either way the stream stays usable for the next frame.
 *
 * The pieces of a frame still arriving are kept as they came and joined once, when the frame is
 * whole: a 30 MB frame in 64 kB pieces is copied once, not once per piece.
 */
export class FrameDecoder {
  private pieces: Uint8Array[] = [];
  private buffered = 0;
  /** Bytes the frame being received needs in all, header included (4 while its header is unknown). */
  private needed = 4;
  private skipping = 0;

  constructor(private readonly maxFrameBytes = MAX_FRAME_BYTES) {}

  push(chunk: Uint8Array): FrameResult[] {
    const results: FrameResult[] = [];
    let data = chunk;
    if (this.skipping > 0) {
      const skip = Math.min(this.skipping, data.length);
      this.skipping -= skip;
      data = data.subarray(skip);
    }
    if (data.length === 0) return results;
    this.pieces.push(data);
    this.buffered += data.length;
    if (this.buffered < this.needed) return results;
    const buffer = this.pieces.length === 1 ? data : concat(this.pieces, this.buffered);
    this.pieces = [];
    this.buffered = 0;
    this.needed = 4;
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const length = new DataView(buffer.buffer, buffer.byteOffset + offset, 4).getUint32(0, true);
      if (length === 0) {
        results.push({ ok: false, error: 'empty frame (length 0)' });
        offset += 4;
        continue;
      }
      if (length > this.maxFrameBytes) {
        results.push({ ok: false, error: `frame of ${length} bytes exceeds the limit of ${this.maxFrameBytes} bytes; skipped` });
        const available = buffer.length - offset - 4;
        const skip = Math.min(length, available);
        this.skipping = length - skip;
        offset += 4 + skip;
        continue;
      }
      if (buffer.length - offset - 4 < length) {
        this.needed = 4 + length;
        break;
      }
      const body = buffer.subarray(offset + 4, offset + 4 + length);
      offset += 4 + length;
      results.push(parseBody(body));
    }
    if (offset < buffer.length) {
      // A copy of the rest only: a view would keep the whole chunk (or joined buffer) alive.
      const rest = buffer.slice(offset);
      this.pieces = [rest];
      this.buffered = rest.length;
    }
    return results;
  }

  /** Bytes of an incomplete frame still waiting for the rest. */
  get pending(): number {
    return this.buffered;
  }
}

function parseBody(body: Uint8Array): FrameResult {
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    return { ok: false, error: 'frame is not valid UTF-8' };
  }
  const deep = nestsTooDeep(text, MAX_FRAME_DEPTH);
  if (deep) return { ok: false, error: `frame nests deeper than ${MAX_FRAME_DEPTH} levels`, tooDeep: deep };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: `frame is not JSON (${(error as Error).message})` };
  }
}

const TOP_LEVEL_ID = /\s*:\s*"([^"\\]{1,200})"/y;

/**
 * Whether JSON text opens more than `limit` objects or arrays at once, found without parsing it:
 * outside strings every character counts, a string is skipped to its closing quote by indexOf
 * (an attachment's megabytes of base64 cost one native search). Stops at the first level too
 * many, so a hostile frame costs a few hundred characters. Returns the top-level "id" string seen
 * before that point, if any. Malformed text is left for JSON.parse to report.
 */
export function nestsTooDeep(text: string, limit: number): { id?: string } | undefined {
  let depth = 0;
  let id: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return undefined;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      if (depth === 1 && id === undefined && end === i + 3 && text.startsWith('id', i + 1)) {
        TOP_LEVEL_ID.lastIndex = end + 1;
        const value = TOP_LEVEL_ID.exec(text);
        if (value) id = value[1];
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return id === undefined ? {} : { id };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * Splits a serialised message into Chunk envelopes whose own serialisation stays under `limit`
 * bytes, or returns it whole when it already fits.
 */
export function splitIntoChunks(json: string, chunkId: string, limit = MAX_TO_EXTENSION_BYTES): string[] {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most messages fit without encoding them to count.
  if (json.length * 3 <= limit || utf8Length(json) <= limit) return [json];
  const pieces: string[] = [];
  let start = 0;
  let size = Math.floor(limit / 3);
  while (start < json.length) {
    let piece = json.slice(start, start + size);
    // Escaping can grow a piece (quotes, backslashes, non-ASCII): shrink until the envelope fits.
    while (utf8Length(JSON.stringify(piece)) > limit - 200) {
      size = Math.floor(size / 2);
      piece = json.slice(start, start + size);
    }
    pieces.push(piece);
    start += piece.length;
  }
  return pieces.map((data, index) =>
    JSON.stringify({ kind: 'chunk', chunkId, index, count: pieces.length, data } satisfies Chunk),
  );
}

/** Collects chunks until a message is whole. Keeps at most `maxPartial` unfinished messages. */
export class ChunkAssembler {
  private partial = new Map<string, { parts: string[]; received: number }>();

  constructor(private readonly maxPartial = 16) {}

  /** Returns the reassembled value once the last chunk arrives, otherwise undefined. */
  add(chunk: Chunk): FrameResult | undefined {
    let entry = this.partial.get(chunk.chunkId);
    if (!entry) {
      if (this.partial.size >= this.maxPartial) {
        const oldest = this.partial.keys().next().value as string;
        this.partial.delete(oldest);
      }
      entry = { parts: new Array<string>(chunk.count), received: 0 };
      this.partial.set(chunk.chunkId, entry);
    }
    if (chunk.count !== entry.parts.length || chunk.index >= chunk.count) {
      this.partial.delete(chunk.chunkId);
      return { ok: false, error: `chunk ${chunk.index}/${chunk.count} of ${chunk.chunkId} does not fit its message` };
    }
    if (entry.parts[chunk.index] === undefined) entry.received++;
    entry.parts[chunk.index] = chunk.data;
    if (entry.received < chunk.count) return undefined;
    this.partial.delete(chunk.chunkId);
    try {
      return { ok: true, value: JSON.parse(entry.parts.join('')) };
    } catch (error) {
      return { ok: false, error: `reassembled message is not JSON (${(error as Error).message})` };
    }
  }
}
