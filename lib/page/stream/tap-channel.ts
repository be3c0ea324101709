import { TAP_HELLO, type TapMessage, tapEventName, type TapWatch, watchEventName } from './tap-protocol';

/**
 * The page script's end of the tap (lib/page/stream/tap.ts explains the design): hands the main world a
 * per-load secret once, hears the tap's events under the name made of it, and keeps what the tap sends as
 * it came, for the last few ask streams (bounded; in a tab with no reader yet, the newest that ended and those still
 * open), so the ask kit's reader (lib/page/stream/stream-reading.ts)
 * can read a stream from its first frame whenever it is loaded. No parsing here: every Perplexity page
 * runs this.
 */
export interface TapRecord {
  id: number;
  at: number;
  body?: string;
  texts: string[];
  size: number;
  end?: { error?: string };
  /**
   * A terminate was sent while this stream ran: how many of its texts had come by then (a terminate after the final
   * frame stopped nothing, lib/page/stream/stream-reading.ts).
   */
  terminated?: number;
}

const KEEP = 8;
/** One stream kept whole up to this (the real 2026-07-31 search answer's stream: 0.6 M). */
const MAX_CHARS = 4_000_000;

export class TapChannel {
  records: TapRecord[] = [];
  private readonly listeners = new Set<(record: TapRecord) => void>();
  private win: Window | null = null;
  /** The event name the page script's endpoints go to the tap under (tap-protocol.ts), made of this load's secret. */
  private watchName = '';
  /** Whether the tap answered: it says `ready` the moment it takes the hello, then what it held. */
  heard = false;

  /** Offers the secret to the tap; a window with no tap (blocked, or no main-world script) simply never answers. */
  connect(win: Window): void {
    this.win = win;
    const secret = win.crypto.randomUUID();
    this.watchName = watchEventName(secret);
    win.addEventListener(tapEventName(secret), (e) => this.receive((e as CustomEvent<TapMessage | null>).detail));
    win.postMessage({ kind: TAP_HELLO, secret }, win.location.origin);
  }

  /** The endpoints the tap watches, from an ask stream reader added as a pack; none: the tap's built-in ones again. */
  watch(paths?: { ask: readonly string[]; terminate: readonly string[] }): void {
    this.win?.dispatchEvent(new CustomEvent<TapWatch>(this.watchName, { detail: paths ?? {} }));
  }

  /** Called with each record that changed. */
  subscribe(listener: (record: TapRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(m: TapMessage | null): void {
    if (!m) return;
    this.heard = true;
    let record: TapRecord | undefined;
    if (m.kind === 'open') {
      record = { id: m.id, at: m.at, body: typeof m.body === 'string' ? m.body.slice(0, 200_000) : undefined, texts: [], size: 0 };
      this.records.push(record);
      if (this.records.length > KEEP) this.records.shift();
    } else if (m.kind === 'terminate') {
      // The first terminate's moment stands (a second, after the final frame, must not make a stopped turn completed).
      for (const r of this.records) if (!r.end) this.changed(Object.assign(r, { terminated: r.terminated ?? r.texts.length }));
      return;
    } else {
      record = this.records.find((r) => r.id === m.id);
      if (!record || record.end) return;
      if (m.kind === 'data' && typeof m.text === 'string') {
        record.texts.push(m.text);
        record.size += m.text.length;
        // Too big to keep whole: cut (never read in part) and let it go.
        if (record.size > MAX_CHARS) {
          record.texts = [];
          record.end = { error: 'too large to keep' };
        }
      } else if (m.kind === 'end') {
        record.end = typeof m.error === 'string' ? { error: m.error } : {};
        // With no reader here yet (the ask kit lets go of each text it reads), a stream that ended is kept whole only
        // while it is the newest: a kit loaded later reads the last turn from its first frame, and older turns from the
        // page and the thread JSON, so a tab comet-relay never used does not hold every answer the person streamed.
        if (!this.listeners.size) this.records = this.records.filter((r) => r === record || !r.end);
      }
    }
    this.changed(record);
  }

  private changed(record: TapRecord): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(record);
      } catch {
        // a reader's failure is its own
      }
    }
  }
}
