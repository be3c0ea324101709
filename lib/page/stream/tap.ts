/**
 * The passive tap (issue 30), run in the page's main world at document_start on perplexity.ai
 * (entrypoints/perplexity-tap.content.ts): `window.fetch` is wrapped so that for the ask stream's and
 * Stop's URLs the page's own response is cloned and the clone read; the page gets the very promise and
 * Response the browser gave (same bytes, timing, errors, aborts: a clone is a tee the browser feeds both
 * ways, and an aborted fetch errors both). Nothing else is looked at or changed.
 *
 * What it reads goes to the isolated world's page script over a MessageChannel port that script made
 * and handed over once (lib/page/stream/tap-channel.ts), never through `window.postMessage`, which
 * every script on the page hears and can send. The handover is the one step the page could race: the
 * tap's listener is the first on `window` (it runs before any page script), takes the first hello
 * that carries a port and the hello's shape, stops it reaching any other listener, and ignores every
 * later one. A page script cannot forge frames by accident: it would have to send a hello with our
 * marker before ours (the page script would then get nothing, and comet-relay reads the page as it
 * would without the tap), or hold our port, which no listener of theirs is given. Every message
 * carries the hello's per-load secret, and the page script drops any without it.
 *
 * Before the hello (the page script starts at document_idle), messages wait in a bounded queue; past
 * its bound they are dropped whole (a stream whose start was dropped is never read, not read in part).
 */
import { type TapMessage, TAP_HELLO, type TapHello } from './tap-protocol';

const QUEUE_MAX = 4000;

export function installTap(win: Window & typeof globalThis, paths: { ask: readonly string[]; terminate: readonly string[] }): void {
  const original = win.fetch;
  if (typeof original !== 'function') return;
  let port: MessagePort | null = null;
  let secret = '';
  let queue: TapMessage[] | null = [];
  let next = 0;
  let ask = paths.ask;
  let terminate = paths.terminate;
  const post = (m: TapMessage) => {
    if (port) port.postMessage({ ...m, secret });
    else if (queue) {
      queue.push(m);
      if (queue.length > QUEUE_MAX) queue = null;
    }
  };
  const onHello = (e: MessageEvent) => {
    const hello = e.data as TapHello | null;
    if (port || e.source !== win || !hello || hello.kind !== TAP_HELLO || typeof hello.secret !== 'string' || !e.ports[0]) return;
    e.stopImmediatePropagation();
    win.removeEventListener('message', onHello, true);
    port = e.ports[0];
    secret = hello.secret;
    // The page script may bring an ask stream reader of its own (a pack): its endpoints from then on, and the built-in
    // ones again when it sends none (the pack removed).
    port.onmessage = (m) => {
      const p = m.data as { secret?: string; ask?: string[]; terminate?: string[] };
      if (p?.secret !== secret) return;
      const to = Array.isArray(p.ask) && Array.isArray(p.terminate) ? (p as typeof paths) : paths;
      ask = to.ask;
      terminate = to.terminate;
    };
    for (const m of queue ?? []) port.postMessage({ ...m, secret });
    if (!queue) port.postMessage({ kind: 'lost', secret });
    queue = null;
  };
  win.addEventListener('message', onHello, true);

  const read = async (id: number, res: Response) => {
    const body = res.clone().body;
    if (!body) return post({ kind: 'end', id, error: 'no body' });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
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
    const answer: Promise<Response> = Reflect.apply(original, this, args);
    const [input, init] = args;
    try {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request)?.url;
      const path = new URL(String(href), win.location.href).pathname;
      if (terminate.includes(path)) post({ kind: 'terminate', at: Date.now() });
      else if (ask.includes(path)) {
        const id = next++;
        post({ kind: 'open', id, at: Date.now(), ...(typeof init?.body === 'string' ? { body: init.body } : {}) });
        answer.then(
          (res) => void read(id, res).catch(() => undefined),
          (e: unknown) => post({ kind: 'end', id, error: String((e as Error)?.message ?? e) }),
        );
      }
    } catch {
      // A URL we cannot read is not ours to watch.
    }
    return answer;
  } as typeof win.fetch;
}
