import type { AskStreamReader } from '../../selectors/stream/stream-schema';
import { answerText, firstString, isObject, pick } from '../../selectors/language/json-path';
import { applyPatch, type PatchOp } from './json-patch';
import { type SseEvent, SseParser } from './sse';

/**
 * One answer stream of the page (`POST /rest/sse/perplexity_ask`), read as it arrives: the SSE
 * framing, the blocks as the frames build them (whole blocks and JSON-patch `diff_block`s), and from
 * them the Markdown so far, the steps, the sources; whether the final frame came, whether the stream
 * ended, or was cut. Where everything sits is the reader's data (lib/selectors/stream/ask-stream.ts).
 * A frame the reader does not know (not JSON, a block with no name, a patch that does not apply) is
 * named once in `unknown`, and from then on nothing is read from this stream: the page and the thread
 * JSON answer, never a guess.
 */
export interface StreamRequest {
  query?: string;
  frontendUuid?: string;
  lastBackendUuid?: string;
}

/** `working` while frames may come; `completed` on a final frame and the stream's end; `stopped` the same after a terminate; `cut` with no end. */
export type StreamState = 'working' | 'completed' | 'stopped' | 'cut';

export interface StreamSource {
  title: string;
  url?: string;
}

/** The most characters one frame may hold before it ends: as many as the tap's channel keeps of a stream unread. */
const MAX_FRAME = 4_000_000;

export class AskStream {
  frames = 0;
  backendUuid?: string;
  frontendUuid?: string;
  query?: string;
  slug?: string;
  threadUuid?: string;
  /** A final frame (`final_sse_message`) that also says COMPLETED. */
  finalSeen = false;
  /** The end event came. */
  ended = false;
  /** Why the stream stopped before its end (an abort, a network error, a body closed early). */
  cut?: string;
  /** The first frame shape the reader does not know; nothing is read from this stream once set. */
  unknown?: string;
  /** A terminate (Stop) was sent while this stream ran. */
  terminated = false;
  private readonly blocks: Record<string, Record<string, unknown>> = Object.create(null);
  private readonly parser = new SseParser();
  private readonly listeners = new Set<() => void>();
  /** The first event name that is neither a frame's nor the end's. */
  private foreign?: string;

  constructor(
    readonly reader: AskStreamReader,
    readonly request: StreamRequest,
    readonly startedAt: number,
  ) {
    this.query = request.query;
    this.frontendUuid = request.frontendUuid;
  }

  /** A piece of the response body, as text. */
  push(text: string): void {
    if (this.ended || this.cut) return;
    for (const event of this.parser.push(text)) this.onEvent(event);
    // A frame that never ends is cut where the channel would cut the same text unread (review 14a, #6).
    if (!this.ended && !this.cut && this.parser.pending > MAX_FRAME) {
      this.cut = `a frame of more than ${MAX_FRAME} characters`;
      this.unknown ??= this.cut;
      this.changed();
    }
  }

  /** The body closed (`error` when it failed or was aborted). */
  close(error?: string): void {
    this.parser.end();
    if (!this.ended && !this.cut) this.cut = error ?? 'the stream closed before its end';
    this.nameForeign();
    this.changed();
  }

  /** Called on every frame and at the end (and once at once if the stream is already over). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  state(): StreamState {
    if (this.ended && this.finalSeen) return this.terminated ? 'stopped' : 'completed';
    if (this.ended || this.cut) return this.terminated && this.ended ? 'stopped' : 'cut';
    return 'working';
  }

  /** Whether this stream can be read from: nothing unknown came, and it is not cut. */
  readable(): boolean {
    return !this.unknown && this.state() !== 'cut';
  }

  /** The answer's Markdown as the frames have built it: the whole text once a frame holds it, else the chunks so far. */
  markdown(): string {
    return answerText(this.blocks, this.reader.blocks.answer, this.reader.blocks.answerChunks) ?? '';
  }

  steps(): string[] {
    return pick(this.blocks, this.reader.blocks.steps)
      .values.filter((v): v is string => typeof v === 'string')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }

  /** The sources in the order the answer numbers them ([1] is the first). */
  sources(): StreamSource[] {
    const { source } = this.reader;
    return pick(this.blocks, this.reader.blocks.sources).values.flatMap((s) => {
      const title = firstString(s, source.title) ?? '';
      const url = firstString(s, source.url);
      return title || url ? [{ title: title || (url as string), ...(url ? { url } : {}) }] : [];
    });
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // a reader's failure is its own
      }
    }
  }

  private onEvent({ event, data }: SseEvent): void {
    // Nothing after the end counts: the same bytes read the same whatever pieces the network cut them in (review 14a, #4).
    if (this.ended || this.cut) return;
    const { events } = this.reader;
    if (events.end.includes(event)) {
      this.ended = true;
      // A final frame whose answer sits where no path of the reader looks is a shape it does not know, not an empty
      // answer: the page and the thread JSON answer it (review 14a, #1; the answer moved once, on 2026-08-04).
      if (this.finalSeen && !this.terminated && !this.unknown && answerText(this.blocks, this.reader.blocks.answer, this.reader.blocks.answerChunks) === undefined) {
        this.unknown = `the final frame holds no answer at ${this.reader.blocks.answer[0]} or ${this.reader.blocks.answerChunks[0]}`;
      }
      this.nameForeign();
      this.changed();
      return;
    }
    if (!events.message.includes(event)) {
      this.foreign ??= event; // another kind of event is not a frame: nothing to read from it, but named if no frame comes
      return;
    }
    this.frames += 1;
    if (!this.unknown) this.readFrame(data);
    this.changed();
  }

  /** A stream that ended with no frame read but events of another name: the frames' event was renamed (review 14a, #5). */
  private nameForeign(): void {
    if (this.frames === 0 && this.foreign !== undefined) this.unknown ??= `no "${this.reader.events.message[0]}" event, only "${this.foreign.slice(0, 40)}"`;
  }

  private readFrame(data: string): void {
    const f = this.reader.frame;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      this.unknown = `frame ${this.frames} is not JSON (${data.slice(0, 40)}…)`;
      return;
    }
    if (!isObject(frame)) {
      this.unknown = `frame ${this.frames} is not a JSON object`;
      return;
    }
    this.backendUuid = firstString(frame, f.backendUuid) ?? this.backendUuid;
    this.frontendUuid ??= firstString(frame, f.frontendUuid);
    this.query ??= firstString(frame, f.query);
    this.slug = firstString(frame, f.slug) ?? this.slug;
    this.threadUuid = firstString(frame, f.threadUuid) ?? this.threadUuid;
    for (const block of pick(frame, f.blocks).values) {
      const usage = firstString(block, f.usage);
      if (!usage || !isObject(block) || usage === '__proto__') {
        this.unknown = `frame ${this.frames}: a block with no ${f.usage[0]}`;
        return;
      }
      const diff = pick(block, f.diff).values[0];
      if (diff === undefined) {
        this.blocks[usage] = block;
        continue;
      }
      const field = firstString(diff, f.diffField);
      const patches = pick(diff, f.diffPatches).values[0];
      if (!field || field === '__proto__' || !Array.isArray(patches)) {
        this.unknown = `frame ${this.frames}: ${usage}'s ${f.diff[0]} has no ${f.diffField[0]} or ${f.diffPatches[0]}`;
        return;
      }
      this.blocks[usage] ??= Object.create(null) as Record<string, unknown>;
      const target = this.blocks[usage];
      try {
        target[field] = applyPatch(target[field], patches as PatchOp[]);
      } catch (e) {
        this.unknown = `frame ${this.frames}: ${usage}.${field}: ${(e as Error).message}`;
        return;
      }
    }
    const status = firstString(frame, f.status);
    if (pick(frame, f.final).values[0] === true && status !== undefined && this.reader.values.completed.includes(status)) this.finalSeen = true;
  }
}
