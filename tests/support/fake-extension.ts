import { PassThrough } from 'node:stream';
import { encodeFrame, FrameDecoder } from '../../lib/protocol/framing';
import { PROTOCOL_VERSION } from '../../lib/protocol/identity';
import type { Envelope, Request } from '../../lib/protocol/messages';

/**
 * The extension's side of native messaging, played by the test: frames in and out of a host's
 * stdin/stdout (an in-process NativeHost, or a spawned `comet-relay host` process). Collects what
 * the host sends; can answer every request itself.
 */
export class FakeExtension {
  readonly toHost = new PassThrough();
  readonly fromHost = new PassThrough();
  readonly received: Envelope[] = [];
  private readonly decoder = new FrameDecoder();
  private waiters: Array<() => void> = [];
  private answer?: (request: Request) => unknown;

  constructor(readonly profile = { id: 'testprofile01', label: 'Test profile' }) {
    this.fromHost.on('data', (chunk: Buffer) => this.take(chunk));
  }

  /** Feeds bytes that came from the host (for a spawned host, its stdout). */
  take(chunk: Buffer): void {
    for (const frame of this.decoder.push(chunk)) {
      if (!frame.ok) continue;
      const message = frame.value as Envelope;
      if (message.kind === 'request' && this.answer) {
        this.send({ kind: 'result', id: message.id, result: this.answer(message) });
        continue;
      }
      this.received.push(message);
    }
    for (const w of this.waiters.splice(0)) w();
  }

  send(message: unknown): void {
    this.toHost.write(encodeFrame(message));
  }

  /** `portOpenedAt`: when the worker opened this port (which of two hosts of one profile is the browser's). */
  hello(protocolVersion = PROTOCOL_VERSION, portOpenedAt?: number): void {
    this.send({
      kind: 'hello',
      role: 'extension',
      protocolVersion,
      version: '0.1.0',
      profile: this.profile,
      browser: { name: 'Chromium', version: '156.0.0.1', userAgent: 'ua' },
      ...(portOpenedAt !== undefined ? { portOpenedAt } : {}),
    });
  }

  /** From now on every request is answered at once with `answer(request)` (and not collected). */
  answerRequests(answer: (request: Request) => unknown): void {
    this.answer = answer;
  }

  async next(kind: Envelope['kind'], predicate: (m: Envelope) => boolean = () => true): Promise<Envelope> {
    for (;;) {
      const index = this.received.findIndex((m) => m.kind === kind && predicate(m));
      if (index >= 0) return this.received.splice(index, 1)[0] as Envelope;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}
