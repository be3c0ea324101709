import type { AskStreamReader } from '../../selectors/stream/stream-schema';
import type { PollResult } from '../answer/reader';
import type { WaitBinding, WaitOutcome } from '../answer/observer';
import { questionKey, questionMatch } from '../answer/question';
import { AskStream, type StreamRequest } from './ask-stream';
import type { TapChannel, TapRecord } from './tap-channel';
import { linkCitations } from '../dom/cite-links';
import { firstString } from '../../selectors/language/json-path';
import { traceClock } from '../../protocol/ports';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';

/**
 * Reading turns from the page's own ask streams (issue 30), loaded with the ask kit: each stream the
 * tap saw (lib/page/stream/tap-channel.ts) read from its first frame (lib/page/stream/ask-stream.ts),
 * bound to its turn by what the page sent and what came back: the question (whole, or its 200-character head), the
 * thread's slug or uuid against the page's URL, and for a bound wait the moment its ask was submitted (the first
 * stream of its words after it), and read in place of the page where it can be: comet_poll's
 * status, response and steps while frames come, comet_wait's end, comet_get_sources' list. A stream
 * that is cut (no final frame, an error, an abort) or that holds a frame shape the reader does not know
 * never answers: the page and the thread JSON decide, as without it. One per channel (the ask kit makes it once): it
 * lets go of each raw text it has read.
 */
export interface StreamReadingOptions {
  reader: () => AskStreamReader;
  now?: () => number;
}

/** How long a page that drew the turn's end waits for the end of the turn's stream, still open, before the page's reading stands. */
const STREAM_GRACE_MS = 3000;

/** What comet-relay read from a stream, beside a result: where the result was read. */
export const STREAM_SOURCE = 'stream' as const;

export class StreamReading {
  private readonly streams = new Map<TapRecord, { stream: AskStream; fed: number; closed: boolean }>();
  /** When each stream's end reached the channel (lib/protocol/ports.ts traceClock), for a traced wait's `streamAt`. */
  private readonly doneAt = new WeakMap<AskStream, number>();
  /** The first unknown frame shape seen, named once (doctor --page, the log). */
  unknownShape?: string;
  /** Bumped by every message of the tap's: a frame, an end, a new stream. */
  private version = 0;
  /** pollThrough's last answer, and the page read and version it was made from. */
  private lastPoll?: { page: PollResult; version: number; result: ReturnType<StreamReading['poll']> };

  constructor(
    private readonly channel: TapChannel,
    private readonly options: StreamReadingOptions,
  ) {
    for (const record of channel.records) this.sync(record);
    channel.subscribe((record) => this.sync(record));
  }

  /** The streams read so far, oldest first. */
  all(): AskStream[] {
    return this.channel.records.flatMap((r) => {
      const s = this.streams.get(r);
      return s ? [s.stream] : [];
    });
  }

  /**
   * The newest stream whose question is `question` (as the page or an ask shows it), started at or after
   * `since` (ms): the turn's own stream; with `first`, the first of them (an ask's own, `since` its submit). Null when
   * none: the turn is read from the page.
   */
  forQuestion(question: string, since = 0, url?: string, first = false): AskStream | null {
    const key = questionKey(question);
    if (!key) return null;
    const all = this.all();
    // A page whose URL names the thread of some stream seen is on that thread: only its streams can be its turns. On a
    // conversation no stream names, only a stream with no frame yet can be (its first frame names its thread in every
    // capture): never another thread's, nor one whose frames name none (a renamed field).
    // A stream with no frame yet names no thread but may be this page's newest turn: it stays in the pool (review 14a,
    // #2: a question asked again read the earlier turn's finished stream until the new one's first frame).
    const here = all.filter((s) => onThread(s, url));
    const pool = here.length ? all.filter((s) => s.frames === 0 || here.includes(s)) : threadIdOfUrl(url) ? all.filter((s) => s.frames === 0) : all;
    const matching = pool.filter((s) => s.startedAt >= since && s.query !== undefined && questionMatch(question, questionKey(s.query)) === 'same');
    const found = (first ? matching[0] : matching.at(-1)) ?? null;
    // A newer stream whose question is not known yet (its body unread, no frame) may be this turn's: the page answers.
    if (found && !first && pool.some((s) => s.startedAt > found.startedAt && s.query === undefined && s.state() === 'working')) return null;
    return found;
  }

  /**
   * comet_poll's result with what the turn's stream says: its status (working while frames come,
   * completed on the final frame and the end, stopped after a terminate), its Markdown and its steps.
   * Unchanged when the turn has no readable stream, or waits on the person (the page says what for).
   */
  poll(result: PollResult): PollResult & { answerSource?: typeof STREAM_SOURCE } {
    if (result.waitingFor || result.lastTurnIndex < 0) return result;
    const s = this.forQuestion(result.questionText, 0, result.url);
    if (!s?.readable()) return result;
    const state = s.state();
    const response = linked(s);
    if (state === 'working' && !response && result.status !== 'working') return result; // nothing yet the page does not show
    const steps = s.steps();
    const { unconfirmed: _u, stopped: _s, ...rest } = result;
    return {
      ...rest,
      status: state === 'working' ? 'working' : 'completed',
      response,
      truncated: false,
      totalLength: response.length,
      ...(steps.length ? { steps, currentStep: state === 'working' ? (steps.at(-1) ?? '') : '' } : state === 'working' ? {} : { currentStep: '' }),
      ...(state === 'stopped' ? { stopped: true } : {}),
      answerSource: STREAM_SOURCE,
    };
  }

  /**
   * comet_poll through the page's `read`: on a thread with a readable stream the page is read without the answer's
   * prose, which the stream gives (a poll while the answer streams costs no more than one of the page, bench b), and
   * read whole when the stream does not answer for the page's turn after all.
   */
  async pollThrough(read: (prose: boolean) => Promise<PollResult>, url: string): Promise<PollResult> {
    if (this.all().some((s) => s.readable() && onThread(s, url))) {
      const page = await read(false);
      // The page's kept read (it held still) and no message from the tap since: the last answer stands.
      const kept = this.lastPoll?.page === page && this.lastPoll.version === this.version ? this.lastPoll.result : undefined;
      const bare = kept ?? this.poll(page);
      this.lastPoll = { page, version: this.version, result: bare };
      if (bare.answerSource) return bare;
    }
    return this.poll(await read(true));
  }

  /**
   * Resolves when the stream of the question `question` (asked at or after `since`) ends: completed or
   * stopped, with its whole Markdown as a wait's result; null when it is cut, holds an unknown frame,
   * or no stream of that question is seen before `signal` fires (the page's wait decides then).
   */
  whenDone(question: string, since: number, signal: AbortSignal, url?: () => string, first = false): Promise<AskStream | null> {
    return new Promise((resolve) => {
      let unsubscribe = () => {};
      const finish = (s: AskStream | null) => {
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
        resolve(s);
      };
      const onAbort = () => finish(null);
      const check = () => {
        const s = this.forQuestion(question, since, url?.(), first);
        if (!s) return;
        if (!s.readable()) return finish(null);
        if (s.state() === 'completed' || s.state() === 'stopped') finish(s);
      };
      if (signal.aborted) return resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
      unsubscribe = this.channel.subscribe(check);
      check();
    });
  }

  /**
   * A bound comet_wait (the driver's, lib/page/driver.ts): `viaPage` is the page's own wait, run here with a signal of
   * ours, and the turn's stream (asked at or after `since`) beside it. The stream's end answers when it comes first; a
   * stream cut or unreadable, or none, leaves the page's outcome. A turn the page calls completed while its stream is
   * still open and readable is answered by that stream's end (the site's own word; the paint is never ahead of it on
   * the live site), or by the page's reading if the stream has not ended within STREAM_GRACE_MS. Both stop with the
   * caller's signal, and whichever lost stops when the other answers.
   */
  wait(
    viaPage: (signal: AbortSignal) => Promise<WaitOutcome>,
    binding: WaitBinding,
    since: number,
    maxLength: number | undefined,
    url: () => string,
    signal?: AbortSignal,
    trace?: Record<string, number>,
  ): Promise<WaitOutcome> {
    const inner = new AbortController();
    const stopInner = () => inner.abort();
    signal?.addEventListener('abort', stopInner, { once: true });
    if (signal?.aborted) inner.abort();
    const started = (this.options.now ?? Date.now)();
    // Its stream is on the conversation it is bound to, wherever the tab is now (a tab moved to another thread where
    // the same words were asked is not this turn's); a binding made before the URL named its thread: where the tab is.
    const bound = threadIdOfUrl(binding.conversationUrl) ? binding.conversationUrl : undefined;
    const where = () => bound ?? url();
    const viaStream = this.whenDone(binding.questionKey, since, inner.signal, where, true).then((s) => {
      if (!s) return null;
      const o = this.outcome(s, { turnIndex: binding.turnIndex, url: url(), started }, maxLength);
      // A traced call (the bench): when the channel had the stream's end, and when this wait's answer was made from it.
      if (trace) Object.assign(trace, { streamAt: this.doneAt.get(s) ?? 0, streamReadAt: traceClock() });
      return o;
    });
    const byPage = viaPage(inner.signal).then((outcome) => {
      const s = outcome.status === 'completed' ? this.forQuestion(binding.questionKey, since, where(), true) : null;
      if (!s?.readable() || s.state() !== 'working') return outcome;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), STREAM_GRACE_MS);
      });
      return Promise.race([viaStream, late])
        .then((o) => o ?? outcome)
        .finally(() => clearTimeout(timer));
    });
    return Promise.race([byPage, viaStream.then((o) => o ?? new Promise<WaitOutcome>(() => {}))]).finally(() => {
      signal?.removeEventListener('abort', stopInner);
      // The loser stops in the next task, once the answer is on its way (its cleanup is not the caller's wait).
      setTimeout(() => inner.abort(), 0);
    });
  }

  /** A wait's outcome from a stream that ended (whenDone), cut to `maxLength` like the page's. */
  outcome(s: AskStream, base: { turnIndex: number; url: string; started: number }, maxLength?: number): WaitOutcome & { answerSource: typeof STREAM_SOURCE } {
    const whole = linked(s);
    const cut = maxLength !== undefined && whole.length > maxLength;
    return {
      status: s.state() === 'stopped' ? 'stopped' : 'completed',
      response: cut ? whole.slice(0, maxLength) : whole,
      steps: s.steps(),
      currentStep: '',
      turnIndex: base.turnIndex,
      questionText: s.query ?? '',
      truncated: cut,
      totalLength: whole.length,
      hasStopButton: false,
      url: base.url,
      elapsedMs: Math.max(0, (this.options.now ?? Date.now)() - base.started),
      answerSource: STREAM_SOURCE,
    };
  }

  private sync(record: TapRecord): void {
    this.version++;
    let entry = this.streams.get(record);
    if (!entry) {
      const reader = this.options.reader();
      entry = { stream: new AskStream(reader, requestOf(record.body, reader), record.at), fed: 0, closed: false };
      this.streams.set(record, entry);
      for (const gone of [...this.streams.keys()]) if (!this.channel.records.includes(gone)) this.streams.delete(gone);
    }
    const { stream } = entry;
    // A terminate stops the turn only when it came before the final frame (the stopped turn's last frame says COMPLETED
    // too, NOTES §D); one sent after the whole answer had come cut nothing.
    const stopping = () => {
      if (entry.fed === record.terminated && !stream.finalSeen) stream.terminated = true;
    };
    for (; entry.fed < record.texts.length; entry.fed++) {
      stopping();
      const text = record.texts[entry.fed] as string;
      stream.push(text);
      // Read, the raw text is let go (the stream keeps what it built from it): the page script's cap on a stream's size
      // then counts only what waits to be read, not every frame's copy of a long prompt (review 2026-12-05 #6).
      record.texts[entry.fed] = '';
      record.size -= text.length;
    }
    stopping();
    if (record.end && !entry.closed) {
      entry.closed = true;
      stream.close(record.end.error);
    }
    if (!this.doneAt.has(stream) && stream.state() !== 'working') this.doneAt.set(stream, traceClock());
    if (stream.unknown && !this.unknownShape) {
      this.unknownShape = `${stream.reader.name}: ${stream.unknown}`;
      console.warn(`comet-relay: the page's ask stream has a frame shape ${stream.reader.name} does not know (${stream.unknown}); its turns are read from the page`);
    }
  }
}

const linkedOf = new WeakMap<AskStream, { frames: number; text: string }>();

/**
 * The stream's Markdown with its `[n]` citations linked to its sources, as the thread JSON's answers are; made once
 * a frame (polls between two frames, and a wait's end after a poll, reuse it).
 */
function linked(s: AskStream): string {
  const kept = linkedOf.get(s);
  if (kept?.frames === s.frames) return kept.text;
  const text = linkCitations(s.markdown(), s.sources().map((x) => x.url));
  linkedOf.set(s, { frames: s.frames, text });
  return text;
}

/** Whether the page at `url` names the stream's thread (its slug or id) in its path. */
function onThread(s: AskStream, url: string | undefined): boolean {
  if (!url) return false;
  try {
    const parts = new URL(url).pathname.split('/');
    return (!!s.slug && parts.includes(s.slug)) || (!!s.threadUuid && parts.includes(s.threadUuid));
  } catch {
    return false;
  }
}

/** What the page sent, from the POST's JSON body (absent or not JSON: only the frames say). */
function requestOf(body: string | undefined, reader: AskStreamReader): StreamRequest {
  if (!body) return {};
  try {
    const json = JSON.parse(body) as unknown;
    const query = firstString(json, reader.request.query);
    const frontendUuid = firstString(json, reader.request.frontendUuid);
    const lastBackendUuid = firstString(json, reader.request.lastBackendUuid);
    return { ...(query ? { query } : {}), ...(frontendUuid ? { frontendUuid } : {}), ...(lastBackendUuid ? { lastBackendUuid } : {}) };
  } catch {
    return {};
  }
}
