import { describe, expect, test } from 'vitest';
import { installTap } from '../../lib/page/stream/tap';
import { TapChannel } from '../../lib/page/stream/tap-channel';
import { TAP_HELLO, tapEventName } from '../../lib/page/stream/tap-protocol';
import { StreamReading } from '../../lib/page/stream/stream-reading';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { ASK_STREAM_ENDPOINTS } from '../../lib/selectors/stream/endpoints';

/**
 * The passive tap (lib/page/stream/tap.ts) and the page script's end of its channel (tap-channel.ts),
 * on a window of our own: one listener list per event type shared by both worlds (as the real window's
 * events reach the listeners of every world), the page's fetch a stub whose responses we feed. The page
 * must get the very Response, bytes, errors (handled or not) and aborts it would without the tap.
 */
type Listener = (e: MessageEvent) => void;

function fakeWindow() {
  const listeners: { fn: Listener; capture: boolean }[] = [];
  const controllers: ReadableStreamDefaultController<Uint8Array>[] = [];
  const calls: { input: unknown; init?: RequestInit; self: unknown }[] = [];
  // Every other event type: a real EventTarget (the tap's and the page script's CustomEvents, dispatched synchronously).
  const events = new EventTarget();
  const win = {
    CustomEvent,
    dispatchEvent: (e: Event) => events.dispatchEvent(e),
    location: { href: 'https://www.perplexity.ai/search/x', origin: 'https://www.perplexity.ai' },
    crypto: globalThis.crypto,
    fetch(this: unknown, input: unknown, init?: RequestInit) {
      calls.push({ input, init, self: this });
      if (init?.signal?.aborted) return Promise.reject(new DOMException('The operation was aborted.', 'AbortError'));
      const body = new ReadableStream<Uint8Array>({ start: (c) => void controllers.push(c) });
      init?.signal?.addEventListener('abort', () => controllers.at(-1)?.error(new DOMException('The operation was aborted.', 'AbortError')));
      return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    },
    addEventListener(type: string, fn: Listener, capture?: boolean) {
      if (type === 'message') listeners.push({ fn, capture: !!capture });
      else events.addEventListener(type, fn as EventListener);
    },
    removeEventListener(type: string, fn: Listener) {
      const i = listeners.findIndex((l) => l.fn === fn);
      if (type === 'message' && i >= 0) listeners.splice(i, 1);
      else events.removeEventListener(type, fn as EventListener);
    },
    /** Like the window's: every listener hears it (capture first), unless one stops it. */
    postMessage(data: unknown, _origin: string) {
      let stopped = false;
      const stop = () => {
        stopped = true;
      };
      const event = { data, source: win, ports: [], stopImmediatePropagation: stop } as unknown as MessageEvent;
      for (const l of [...listeners].sort((a, b) => Number(b.capture) - Number(a.capture))) {
        if (stopped) break;
        l.fn(event);
      }
    },
  };
  return { win: win as unknown as Window & typeof globalThis, listeners, controllers, calls };
}

const enc = new TextEncoder();
const frame = (body: object) => enc.encode(`event: message\r\ndata: ${JSON.stringify(body)}\r\n\r\n`);
const END = enc.encode('event: end_of_stream\r\ndata: {}\r\n\r\n');
const ASK_URL = 'https://www.perplexity.ai/rest/sse/perplexity_ask';
/** Lets the ports and the streams deliver what is pending. */
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the tap', () => {
  test('the page gets the same Response, every byte, and its own errors', async () => {
    const { win, controllers, calls } = fakeWindow();
    const original = win.fetch;
    installTap(win, ASK_STREAM_ENDPOINTS);
    expect(win.fetch).not.toBe(original);
    const p = win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"q?"}' });
    const res = await p;
    expect(calls[0]?.self).toBe(win);
    const reading = res.text();
    controllers[0]?.enqueue(enc.encode('event: message\r\ndata: {"a":1}\r\n\r\n'));
    controllers[0]?.close();
    expect(await reading).toBe('event: message\r\ndata: {"a":1}\r\n\r\n');
    // Another URL: untouched, not read.
    const other = await win.fetch('/rest/thread/abc');
    expect(other.bodyUsed).toBe(false);
    // A rejected fetch rejects for the page as it would have.
    await expect(win.fetch(ASK_URL, { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
  });

  test('a rejection the page leaves unhandled is still reported unhandled, on the promise it holds; one it handles is not (review 2026-12-05 #7)', async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const unhandled: unknown[] = [];
    const note = (_reason: unknown, promise: unknown) => void unhandled.push(promise);
    const theirs = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', note);
    try {
      const left = win.fetch(ASK_URL, { method: 'POST', signal: AbortSignal.abort() });
      const handled = win.fetch(ASK_URL, { method: 'POST', signal: AbortSignal.abort() });
      const caught = handled.catch((e: Error) => e.name);
      const stopCall = win.fetch('https://www.perplexity.ai/rest/sse/perplexity_terminate', { signal: AbortSignal.abort() });
      await settle();
      expect(await caught).toBe('AbortError');
      expect(unhandled).toEqual([left, stopCall]);
    } finally {
      process.removeAllListeners('unhandledRejection');
      for (const l of theirs) process.on('unhandledRejection', l);
    }
  });

  test('an abort still aborts the page’s read, and the page script hears the stream was cut', async () => {
    const { win, controllers } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const channel = new TapChannel();
    channel.connect(win);
    const abort = new AbortController();
    const res = await win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"q?"}', signal: abort.signal });
    const reading = res.text();
    controllers[0]?.enqueue(frame({ query_str: 'q?', blocks: [] }));
    await settle();
    abort.abort();
    await expect(reading).rejects.toThrow(/aborted/);
    await settle();
    expect(channel.records[0]).toMatchObject({ body: '{"query_str":"q?"}', end: { error: expect.stringMatching(/aborted/) } });
  });

  test("only the page's own POSTs are its ask stream and its Stop: another host's, or a GET, are neither (review 14a, #3)", async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const channel = new TapChannel();
    channel.connect(win);
    await settle();
    // A third-party script on the page, at the same paths on its own host, or the page's path with another method.
    await win.fetch('https://tracker.example/rest/sse/perplexity_ask', { method: 'POST', body: '{"query_str":"q?"}' });
    await win.fetch(ASK_URL);
    await win.fetch(new Request('https://tracker.example/rest/sse/perplexity_ask', { method: 'POST' }));
    await settle();
    expect(channel.records).toEqual([]);
    // The page's own ask, as a Request too; a foreign Stop does not mark it.
    await win.fetch(new Request(ASK_URL, { method: 'POST', body: '{"query_str":"q?"}' }));
    await win.fetch('https://tracker.example/rest/sse/perplexity_terminate', { method: 'POST', body: '{}' });
    await settle();
    expect(channel.records).toHaveLength(1);
    expect(channel.records[0]?.terminated).toBeUndefined();
    await win.fetch('/rest/sse/perplexity_terminate', { method: 'post', body: '{}' });
    await settle();
    expect(channel.records[0]?.terminated).toBe(0);
  });

  test('what streamed before the page script came is handed over with the hello, then frames as they come', async () => {
    const { win, controllers } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const res = await win.fetch(ASK_URL, { method: 'POST', body: JSON.stringify({ query_str: 'what is q?', params: { frontend_uuid: 'f-1' } }) });
    void res.text();
    controllers[0]?.enqueue(frame({ query_str: 'what is q?', status: 'PENDING', blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Hel'] } }] }));
    await settle();
    const channel = new TapChannel();
    channel.connect(win);
    await settle();
    expect(channel.heard).toBe(true);
    const reading = new StreamReading(channel, { reader: () => askStream2026 });
    const s = reading.forQuestion('what is q?');
    expect(s?.markdown()).toBe('Hel');
    expect(s?.frontendUuid).toBe('f-1');
    controllers[0]?.enqueue(frame({ query_str: 'what is q?', status: 'COMPLETED', final_sse_message: true, blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Hello'], answer: 'Hello' } }] }));
    controllers[0]?.enqueue(END);
    controllers[0]?.close();
    await settle();
    expect(s?.state()).toBe('completed');
    expect(s?.markdown()).toBe('Hello');
    // Stop's call marks the streams still running; this one had ended.
    await win.fetch('/rest/sse/perplexity_terminate', { method: 'POST', body: '{}' });
    await settle();
    expect(channel.records[0]?.terminated).toBeUndefined();
  });

  test('before the hello the queue is bounded by the text it holds, not by how many chunks came (stream review #10)', async () => {
    const small = fakeWindow();
    installTap(small.win, ASK_STREAM_ENDPOINTS);
    void (await small.win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"q?"}' })).text();
    // 5,000 small chunks (a count bound of 4,000 dropped them all): kept, 0.3 MB together.
    for (let i = 0; i < 5000; i++) small.controllers[0]?.enqueue(enc.encode('x'));
    await settle();
    const kept = new TapChannel();
    kept.connect(small.win);
    await settle();
    expect(kept.records[0]?.texts.join('')).toHaveLength(5000);

    const big = fakeWindow();
    installTap(big.win, ASK_STREAM_ENDPOINTS);
    void (await big.win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"q?"}' })).text();
    // Nine chunks of a million characters each: past the bound, dropped whole, the stream's start with them.
    for (let i = 0; i < 9; i++) big.controllers[0]?.enqueue(enc.encode('y'.repeat(1_000_000)));
    await settle();
    const dropped = new TapChannel();
    dropped.connect(big.win);
    await settle();
    expect(dropped.heard).toBe(true);
    expect(dropped.records).toEqual([]);
  });

  test('a page script cannot hand frames in: its hello before ours gets the frames (we hear nothing), any other event is not heard', async () => {
    const { win, controllers } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    // A page script that happens to post our hello shape first (it would have to mean to).
    const got: unknown[] = [];
    win.addEventListener(tapEventName('theirs'), ((e: CustomEvent) => got.push(e.detail)) as never);
    win.postMessage({ kind: TAP_HELLO, secret: 'theirs' }, '*');
    const channel = new TapChannel();
    channel.connect(win);
    const res = await win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"q"}' });
    void res.text();
    controllers[0]?.enqueue(frame({ query_str: 'q', blocks: [] }));
    await settle();
    expect(got.length).toBeGreaterThan(0);
    expect(channel.heard).toBe(false);
    expect(channel.records).toEqual([]);
  });

  test('the tap answers the hello at once, before any stream: the page script knows it is there (doctor --page says tap: true) (review 2026-12-05 #8)', async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const channel = new TapChannel();
    channel.connect(win);
    expect(channel.heard).toBe(true);
    expect(channel.records).toEqual([]);
    // No tap (blocked on perplexity.ai, or no main-world script): nobody answers.
    const bare = new TapChannel();
    bare.connect(fakeWindow().win);
    expect(bare.heard).toBe(false);
  });

  test('our hello never reaches the page, even after a page script said hello first: no page script learns the secret (review 2026-12-05 #2)', async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    // A page script listening for hellos, then posting its own first, as script on the page before document_idle could.
    const heard: unknown[] = [];
    win.addEventListener('message', ((e: MessageEvent) => heard.push(e.data)) as never);
    win.postMessage({ kind: TAP_HELLO, secret: 'theirs' }, '*');
    const channel = new TapChannel();
    channel.connect(win);
    // Neither hello got past the tap: the page's listener heard none, so our secret is nobody's but ours.
    expect(heard).toEqual([]);
    // And a channel whose hello was taken hears nothing at all: read from the page, never from a forged stream.
    expect(channel.heard).toBe(false);
  });

  test('the page script hears nothing under a name it did not make, and none of the page’s own window messages', async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const heardByPage: unknown[] = [];
    win.addEventListener('message', (e: MessageEvent) => heardByPage.push(e.data));
    const channel = new TapChannel();
    channel.connect(win);
    // Our hello never reached the page's listener: the tap stopped it.
    expect(heardByPage).toEqual([]);
    win.dispatchEvent(new CustomEvent(tapEventName('guess'), { detail: { kind: 'open', id: 1, at: 0 } }));
    win.postMessage({ kind: 'open', id: 2, at: 0 }, '*');
    // Heard: only the tap's own "ready" (no record), nothing of either.
    expect(channel.records).toEqual([]);
  });

  test('a page script that wraps addEventListener after the tap never sees the name the tap listens under', async () => {
    const { win } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const original = win.addEventListener;
    const seen: string[] = [];
    win.addEventListener = ((type: string, ...rest: unknown[]) => {
      seen.push(type);
      return (original as (...a: unknown[]) => void)(type, ...rest);
    }) as typeof win.addEventListener;
    new TapChannel().connect(win);
    // The page script's own listener goes through it here (one window for both worlds); the tap's never does.
    expect(seen.filter((t) => t.includes(':watch:'))).toEqual([]);
  });

  test('a tab with no reader yet keeps whole only the newest stream that ended and those still open; with one, the last 8 (review 2026-12-05 #9)', async () => {
    const { win, controllers } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const channel = new TapChannel();
    channel.connect(win);
    await settle();
    const stream = async (q: string, end: boolean) => {
      void (await win.fetch(ASK_URL, { method: 'POST', body: JSON.stringify({ query_str: q }) })).text();
      const c = controllers.at(-1);
      c?.enqueue(frame({ query_str: q, status: 'PENDING', blocks: [] }));
      if (end) {
        c?.enqueue(END);
        c?.close();
      }
      await settle();
    };
    const asked = () => channel.records.map((r) => JSON.parse(r.body ?? '{}').query_str);
    await stream('one', true);
    await stream('two', false);
    await stream('three', true);
    // "one" ended before "three" did: let go; "two" is still open and kept whole.
    expect(asked()).toEqual(['two', 'three']);
    expect(channel.records.find((r) => r.body?.includes('two'))?.texts.join('')).toContain('"query_str":"two"');
    // A reader came (the ask kit): from now on every stream is kept, its text let go as it is read, the last 8.
    new StreamReading(channel, { reader: () => askStream2026 });
    for (const q of ['4', '5', '6', '7', '8', '9']) await stream(q, true);
    expect(asked()).toEqual(['two', 'three', '4', '5', '6', '7', '8', '9']);
    await stream('10', true);
    expect(asked()).toEqual(['three', '4', '5', '6', '7', '8', '9', '10']);
    expect(channel.records.every((r) => r.size === 0)).toBe(true);
  });

  test('a pack moves the endpoints the tap watches', async () => {
    const { win, controllers } = fakeWindow();
    installTap(win, ASK_STREAM_ENDPOINTS);
    const channel = new TapChannel();
    channel.connect(win);
    await settle();
    channel.watch({ ask: ['/rest/sse/ask_v2'], terminate: ['/rest/sse/stop_v2'] });
    await settle();
    const res = await win.fetch('/rest/sse/ask_v2', { method: 'POST', body: '{"query_str":"q"}' });
    void res.text();
    controllers[0]?.close();
    await win.fetch(ASK_URL, { method: 'POST' });
    await settle();
    expect(channel.records.map((r) => r.body)).toEqual(['{"query_str":"q"}']);
    // The pack removed: the page script sends no endpoints, and the tap watches its built-in ones again.
    channel.watch();
    await settle();
    await win.fetch('/rest/sse/ask_v2', { method: 'POST', body: '{"query_str":"old"}' });
    await win.fetch(ASK_URL, { method: 'POST', body: '{"query_str":"again"}' });
    await settle();
    expect(channel.records.map((r) => r.body)).toEqual(['{"query_str":"q"}', '{"query_str":"again"}']);
  });
});
