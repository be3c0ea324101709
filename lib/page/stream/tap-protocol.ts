/**
 * What the tap (main world, lib/page/stream/tap.ts) and the page script (isolated world,
 * lib/page/stream/tap-channel.ts) say to each other. The hello goes through `window.postMessage`
 * once, carrying a port; everything else goes over that port, each message with the hello's secret.
 */
export const TAP_HELLO = 'comet-relay-stream-tap';

export interface TapHello {
  kind: typeof TAP_HELLO;
  secret: string;
}

export type TapMessage =
  /** The page POSTed to the ask stream's URL; `body` is its JSON text when it was a string. */
  | { kind: 'open'; id: number; at: number; body?: string }
  /** A piece of that response's body, decoded. */
  | { kind: 'data'; id: number; text: string }
  /** The body ended (`error`: it failed or was aborted). */
  | { kind: 'end'; id: number; error?: string }
  /** The page POSTed to Stop's URL. */
  | { kind: 'terminate'; at: number }
  /** The queue before the hello overflowed: what was in it is gone. */
  | { kind: 'lost' };
