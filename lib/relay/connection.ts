import type { Readable, Writable } from 'node:stream';
import { checkEnvelope } from '../protocol/envelope-check';
import { RelayError } from '../protocol/errors';
import { FrameDecoder, MAX_FRAME_BYTES } from '../protocol/framing';
import type { Envelope } from '../protocol/messages';

/**
 * One framed, typed, bidirectional channel over a byte stream (stdin/stdout of the native host,
 * or a local socket). Invalid frames are reported to `onInvalid` and never end the channel. Envelopes
 * are checked without zod (lib/protocol/envelope-check.ts), which keeps it out of the host.
 */
export interface ConnectionHandlers {
  onMessage(envelope: Envelope): void;
  /**
   * `value` is the decoded JSON when the frame was JSON but no valid envelope; for a frame refused
   * as nested too deep (never parsed), `{ id }` with the top-level id it had, and `tooDeep` is set.
   */
  onInvalid?(problem: string, value?: unknown, tooDeep?: boolean): void;
  onClose?(): void;
}

export class FramedConnection {
  private readonly decoder: FrameDecoder;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly handlers: ConnectionHandlers,
    /** The largest frame either side accepts (the other end's decoder skips a larger one unread). */
    private readonly maxFrameBytes = MAX_FRAME_BYTES,
  ) {
    this.decoder = new FrameDecoder(maxFrameBytes);
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('end', () => this.close());
    input.on('close', () => this.close());
    input.on('error', () => this.close());
    output.on('error', () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(envelope: Envelope): boolean {
    if (this.closed) return false;
    return this.sendRaw(JSON.stringify(envelope));
  }

  /**
   * Writes an already-serialised envelope (used when chunking toward the extension): one buffer,
   * header and body. Throws MESSAGE_TOO_LARGE for a frame the other end would skip unread (it
   * could never answer it: it never sees the id), so the sender can answer its caller at once.
   */
  sendRaw(json: string): boolean {
    if (this.closed) return false;
    const length = Buffer.byteLength(json, 'utf8');
    if (length > this.maxFrameBytes) {
      throw new RelayError('MESSAGE_TOO_LARGE', `The message is ${length} bytes; one message between comet-relay's processes may be at most ${this.maxFrameBytes} bytes.`);
    }
    const frame = Buffer.allocUnsafe(4 + length);
    frame.writeUInt32LE(length, 0);
    frame.write(json, 4, 'utf8');
    return this.output.write(frame);
  }

  /** Ends the channel: a socket is destroyed so it no longer keeps the process alive. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if ((this.input as unknown) === this.output) this.input.destroy();
    this.handlers.onClose?.();
  }

  private receive(chunk: Buffer): void {
    for (const frame of this.decoder.push(chunk)) {
      if (!frame.ok) {
        this.handlers.onInvalid?.(frame.error, frame.tooDeep, frame.tooDeep !== undefined);
        continue;
      }
      const parsed = checkEnvelope(frame.value);
      try {
        if (parsed.ok) this.handlers.onMessage(parsed.envelope);
        else this.handlers.onInvalid?.(`unrecognised message (${parsed.error})`, frame.value);
      } catch (error) {
        // One frame whose handling failed must not cost the frames behind it in the same chunk.
        this.handlers.onInvalid?.(`handling failed (${(error as Error).message})`, frame.value);
      }
    }
  }
}
