/** Names of the runtime ports inside the extension (content script → worker, panel → worker). */
export const PAGE_PORT = 'comet-relay/page';
export const PANEL_PORT = 'comet-relay/panel';

/**
 * A traced call's moments (lib/protocol/messages.ts Trace; fields ending in `At`: `seenAt` when the
 * page saw a wait's turn end, `pageSentAt`, `workerGotAt`, `workerSentAt`, and the thread JSON's
 * `fetchStartAt`, `fetchEndAt`, `jsonGotAt`; from the ask stream, `streamAt` when the ask kit's reader had its end and
 * `streamReadAt` when the wait's answer was made from it; `hostGotAt` when the host had the reply (this same clock, in the host);
 * `relayGotAt`, `mcpSentAt` in the MCP process): epoch ms with a fraction,
 * comparable between the processes of one machine, so a result's way back, which no single clock
 * holds, is timed hop by hop. Here, not beside Trace, because the page script carries no zod.
 */
export function traceClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Events the content script pushes to the worker. */
export interface PageReady {
  url: string;
  title: string;
  selectorSet: string | null;
  /** Where that set came from: `built-in` or the path of the file it was added from. */
  selectorSource?: string;
  /** The on-demand parts this page holds (lib/protocol/page/page-kits.ts). */
  kits?: string[];
}

/**
 * The worker → content script push of data packs it has validated (lib/protocol/packs.ts): every
 * kind's whole list, whenever it changes. Types only here: the content script carries no zod.
 */
export const PACKS_APPLY_EVENT = 'packs.apply';

/** The kind of a selector-set pack (lib/packs/kinds.ts; the reader kinds are in lib/selectors/reader-shelf.ts). */
export const SELECTOR_SET_KIND = 'selector-set';

export interface AppliedPack {
  kind: string;
  name: string;
  /** `built-in` never: the path of the file it was added from. */
  source: string;
  /** The validated item (for `selector-set`, a SelectorSet). */
  item: unknown;
}

export interface PacksApply {
  packs: AppliedPack[];
  /**
   * The built-in selector sets' words in the languages beyond English (lib/selectors/words.ts: the
   * page script carries English alone), in every event, so no request finds a page without them.
   */
  labels?: unknown;
  /** The built-in readers the kits do not carry, by kind (lib/selectors/reader-shelf.ts setBuiltIns), in every event. */
  readers?: Record<string, unknown>;
}
