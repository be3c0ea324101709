/**
 * Server-Sent Events framing, fed in pieces as they arrive: lines end in `\r\n`, `\n` or `\r` (a `\r`
 * at the end of one piece and `\n` at the start of the next are one line end), `event:` names the
 * event, `data:` lines are joined with `\n` (one leading space dropped: `data: {…}` and `data:{…}`
 * alike), a blank line dispatches. The ask stream frames with `\r\n\r\n` and `data: `, the reconnect
 * stream with `\n\n` and `data:` (lib/selectors/stream/ask-stream.ts).
 */
export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private rest = '';
  private skipLf = false;
  private event = '';
  private data: string[] = [];
  private dataChars = 0;

  /** Characters of the event not dispatched yet (its lines so far): what a frame that never ends grows. */
  get pending(): number {
    return this.rest.length + this.dataChars;
  }

  /** The events completed by this piece of text. */
  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let s = text;
    // A `\r` that ended the last piece and a `\n` that starts this one are one line end (an empty piece leaves it open).
    if (this.skipLf && s !== '') {
      if (s.startsWith('\n')) s = s.slice(1);
      this.skipLf = false;
    }
    let start = 0;
    // Only the new piece is scanned, by the engine's own search for line ends (what was kept holds none), not by a loop
    // over every character of the line so far again with each piece: a final frame holds the whole answer (117 kB on
    // the sim's long one) and may come in many pieces, and a comet_wait answers once it has been read.
    const ends = /\r\n?|\n/g;
    for (let m = ends.exec(s); m; m = ends.exec(s)) {
      this.line(this.rest + s.slice(start, m.index), out);
      this.rest = '';
      start = ends.lastIndex;
      if (m[0] === '\r' && start === s.length) this.skipLf = true;
    }
    this.rest += s.slice(start);
    return out;
  }

  /** At the stream's end: an event the stream did not close with a blank line is dropped, as the standard says. */
  end(): SseEvent[] {
    this.rest = '';
    this.event = '';
    this.data = [];
    this.dataChars = 0;
    return [];
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0 || this.event) out.push({ event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.data.push(value);
      this.dataChars += value.length;
    }
  }
}
