/**
 * A runtime port as the extension APIs hand it out (native messaging, page and panel ports), played
 * by a test: records what is posted, delivers messages and disconnects on cue. Like Chromium,
 * disconnecting our own end does not fire our own onDisconnect.
 */
export class FakePort {
  readonly sent: unknown[] = [];
  disconnected = false;
  private readonly messageListeners: ((m: unknown) => void)[] = [];
  private readonly disconnectListeners: (() => void)[] = [];

  constructor(readonly init: { name?: string; sender?: { tab: { id: number }; documentId?: string } } = {}) {}

  get name(): string | undefined {
    return this.init.name;
  }

  get sender(): { tab: { id: number }; documentId?: string } | undefined {
    return this.init.sender;
  }

  postMessage(message: unknown): void {
    this.sent.push(message);
  }

  disconnect(): void {
    this.disconnected = true;
  }

  onMessage = { addListener: (l: (m: unknown) => void) => void this.messageListeners.push(l) };
  onDisconnect = { addListener: (l: () => void) => void this.disconnectListeners.push(l) };

  /** A message from the other end. */
  deliver(message: unknown): void {
    for (const l of this.messageListeners) l(message);
  }

  /** The other end went away. */
  drop(): void {
    for (const l of this.disconnectListeners) l();
  }
}
