/**
 * What the tap (main world, lib/page/stream/tap.ts) and the page script (isolated world,
 * lib/page/stream/tap-channel.ts) say to each other. The hello goes through `window.postMessage`
 * once, carrying the per-load secret; everything else is a CustomEvent on `window` whose name holds
 * that secret: dispatched, it reaches the other world's listener at once, in the same task (a port's
 * message waits for a task of its own, behind whatever the page is doing), and no listener of the
 * page's hears it unless it knows the name.
 */
export const TAP_HELLO = 'comet-relay-stream-tap';

/** The tap's messages (TapMessage) to the page script. */
export const tapEventName = (secret: string) => `${TAP_HELLO}:${secret}`;
/** The page script's endpoints to the tap (TapWatch). */
export const watchEventName = (secret: string) => `${TAP_HELLO}:watch:${secret}`;

/** The endpoints the tap is to watch from now on; none: its built-in ones. */
export interface TapWatch {
  ask?: readonly string[];
  terminate?: readonly string[];
}

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
  /** The hello was taken: sent first, before what the tap held (it opens no record, so it carries no id). */
  | { kind: 'ready'; id?: undefined };
