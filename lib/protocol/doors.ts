/**
 * The doors of comet-relay, in a file of their own with no imports: the zod-free envelope check
 * (the host's) and the zod envelope (messages.ts) both name them. What each door may do is the
 * access table in access.ts.
 */

/**
 * Which way a caller came in. `loopback`: a client on this machine (stdio, or `serve` on
 * 127.0.0.1). `public`: a caller through the tunnel `serve --public-url` names (the Perplexity
 * Agent API, from its cloud). The relay knows the door (the Host and token a request came with),
 * never the MCP client: `serve` says it in its hello, the host stamps it on every request it
 * forwards (`origin.door`, lib/protocol/messages.ts), and the worker judges the call by it.
 */
export const DOORS = ['loopback', 'public'] as const;
export type Door = (typeof DOORS)[number];

/**
 * How approvals, the activity feed and the client list name a public-door caller, whatever its
 * MCP client calls itself: a name a client declares is no identity, and through the tunnel anyone
 * with the public token could claim to be "Claude Code".
 */
export const PUBLIC_DOOR_NAME = 'Agent API (public door)';

/** The name the person sees for a caller: the door's for the public door, else the client's own. */
export function callerName(origin: { door?: Door; clientName?: string } | undefined): string {
  if (doorOf(origin) === 'public') return PUBLIC_DOOR_NAME;
  return origin?.clientName || 'An MCP client';
}

/**
 * The door of a call that reached the worker. The host stamps every request it forwards, so one
 * without a door did not come through a host of this version: it gets the narrowest grants.
 */
export function doorOf(origin: { door?: Door } | undefined): Door {
  return origin?.door ?? 'public';
}

