/**
 * The passive tap (issue 30), run in the page's main world at document_start on perplexity.ai
 * (entrypoints/perplexity-tap.content.ts): `window.fetch` is wrapped so that for the ask stream's and
 * Stop's URLs the page's own response is cloned and the clone read; the page gets the very Response the
 * browser gave (same bytes, timing, errors, aborts: a clone is a tee the browser feeds both ways, and an
 * aborted fetch errors both), through the browser's promise followed once (below). Nothing else is looked at or
 * changed.
 *
 * What it reads goes to the isolated world's page script as CustomEvents on `window` named by a per-load
 * secret (lib/page/stream/tap-protocol.ts), never through `window.postMessage`, which every script on
 * the page hears and can send. A dispatched event reaches the page script in the same task, so the page
 * script has a frame when the page's own reader does (a MessagePort's message waited for a task of its
 * own: the ask kit had the stream's end 0.6–0.9 ms after the page's reader, 0.2 ms with the event;
 * bench (a), 2026-12-05). The handover of the secret is the one step the page could race: the tap's
 * listener is the first on `window` (it runs before any page script), takes the first hello of the
 * right shape, and stops every hello, that one and any later, from reaching any other listener for the whole load.
 * A page script cannot forge frames: one that sends a hello with our marker before ours takes the tap's
 * frames to a name of its own, and ours, stopped, never reaches it (the page script then hears nothing,
 * and comet-relay reads the page as it would without the tap); an event under our name needs a secret
 * it was never told. `dispatchEvent`, `addEventListener` and `CustomEvent` are the
 * ones the window had before any page script ran (a page script that wraps `addEventListener` later
 * never sees the names the tap listens under).
 *
 * Before the hello (the page script starts at document_idle), messages wait in a queue bounded by the text it holds
 * (a `?q=` load streams before then, in chunks of any size; a bound by count held no bound on memory: stream review
 * #10); past it they are dropped whole (a stream whose start was dropped is never read, not read in part).
 *
 * Left as it is (stream review #5): a page that cancels its reader (`reader.cancel()`, not an abort) no longer stops
 * the download while the clone reads; it runs to the stream's end. An abort, the way the page stops a stream, still
 * stops both. Telling a cancel from the page's side would mean wrapping the page's streams, which the tap never does.
 */
import { type TapMessage, TAP_HELLO, type TapHello, tapEventName, type TapWatch, watchEventName } from './tap-protocol';

/** The queue's bound, in characters: each message's text and 64 for the message itself. */
const QUEUE_CHARS = 8_000_000;

export function installTap(win: Window & typeof globalThis, paths: { ask: readonly string[]; terminate: readonly string[] }): void {
  const original = win.fetch;
  if (typeof original !== 'function') return;
  const dispatch = win.dispatchEvent.bind(win);
  const listen = win.addEventListener.bind(win);
  const Custom = win.CustomEvent;
  let eventName = '';
  let queue: TapMessage[] | null = [];
  let queued = 0;
  let next = 0;
  let ask = paths.ask;
  let terminate = paths.terminate;
  const post = (m: TapMessage) => {
    if (eventName) dispatch(new Custom(eventName, { detail: m }));
    else if (queue) {
      queue.push(m);
      queued += 64 + ((m as { text?: string }).text?.length ?? 0);
      if (queued > QUEUE_CHARS) queue = null;
    }
  };
  const onHello = (e: MessageEvent) => {
    const hello = e.data as TapHello | null;
    if (e.source !== win || hello?.kind !== TAP_HELLO) return;
    // Every hello stops here, for the whole load: ours carries the secret, and none may reach the page's listeners.
    e.stopImmediatePropagation();
    if (eventName || typeof hello.secret !== 'string' || !hello.secret) return;
    eventName = tapEventName(hello.secret);
    // The page script may bring an ask stream reader of its own (a pack): its endpoints from then on, and the built-in
    // ones again when it sends none (the pack removed).
    listen(watchEventName(hello.secret), (w: Event) => {
      const p = (w as CustomEvent<TapWatch | null>).detail;
      const to = Array.isArray(p?.ask) && Array.isArray(p?.terminate) ? (p as typeof paths) : paths;
      ask = to.ask;
      terminate = to.terminate;
    });
    const held = queue;
    queue = null;
    // Said first, streams or none: the page script hears at once that the tap took its hello (doctor --page). What the
    // tap held follows, or nothing when its queue overflowed (a stream whose start was dropped is never read in part).
    post({ kind: 'ready' });
    for (const m of held ?? []) post(m);
  };
  listen('message', onHello, true);

  const read = async (id: number, res: Response) => {
    try {
      const body = res.clone().body;
      if (!body) return post({ kind: 'end', id, error: 'no body' });
      const reader = body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        post({ kind: 'data', id, text: decoder.decode(value, { stream: true }) });
      }
      post({ kind: 'end', id });
    } catch (e) {
      post({ kind: 'end', id, error: String((e as Error)?.message ?? e) });
    }
  };

  win.fetch = function fetch(this: unknown, ...args: [RequestInfo | URL, RequestInit?]) {
    // The page's call first, exactly as it made it (its arguments as they came); what follows only watches its promise.
    // Only the ask stream's promise is followed (below); every other call gets the browser's own promise back.
    const answer: Promise<Response> = Reflect.apply(original, this, args);
    const [input, init] = args;
    try {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request)?.url;
      const url = new URL(String(href), win.location.href);
      // The page's own POSTs only: another script's call to the same path on any host is no answer of the page's and
      // no Stop of its turn (review 14a, #3).
      const path = url.origin === win.location.origin && /^post$/i.test(init?.method ?? (input as Request)?.method ?? '') ? url.pathname : '';
      if (terminate.includes(path)) post({ kind: 'terminate', at: Date.now() });
      else if (ask.includes(path)) {
        const id = next++;
        post({ kind: 'open', id, at: Date.now(), ...(typeof init?.body === 'string' ? { body: init.body } : {}) });
        // The page gets the browser's promise followed once: the same Response (cloned before the page's code can
        // touch its body) or the same error, a microtask later. The tap's reaction is on the browser's promise, so a
        // rejection the page leaves unhandled is still reported as unhandled, on the promise the page holds.
        return answer.then(
          (res) => {
            void read(id, res).catch(() => undefined);
            return res;
          },
          (e: unknown) => {
            post({ kind: 'end', id, error: String((e as Error)?.message ?? e) });
            throw e;
          },
        );
      }
    } catch {
      // A URL we cannot read is not ours to watch.
    }
    return answer;
  } as typeof win.fetch;
}
