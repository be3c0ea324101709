import { z } from 'zod';
import { DOORS } from './doors';
import { ERROR_CODES } from './errors';
import { CLI_FORM_MAX, CLI_FORM_REFUSED, CLIENT_NAME_MAX, CLIENT_VERSION_MAX } from './identity';
import { AskBinding } from './page/page-methods';

/**
 * The envelopes every hop speaks: MCP process ⇄ host (local socket), host ⇄ extension (native
 * messaging) and service worker ⇄ page/panel (runtime ports). Each process parses what it receives
 * with `Envelope` at its edge and trusts the result inside.
 */

export const RequestId = z.string().min(1).max(200);

export const ErrorPayload = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  /** lib/protocol/errors.ts ErrorData: what a program needs besides the words (a 429's wait, a taken prompt's turn). */
  data: z
    .object({
      retryAfterMs: z.number().int().min(0).max(86_400_000).optional(),
      taken: AskBinding.strict().optional(),
      notSent: z.literal(true).optional(),
    })
    .strict()
    .optional(),
});

/** Which way a caller came in: lib/protocol/access.ts (DOORS) says who knows it and what each door may do. */
export const Door = z.enum(DOORS);

/** Who started a call: shown in the side panel's activity feed and used for approvals. */
export const CallOrigin = z.object({
  clientId: z.string(),
  clientName: z.string(),
  /** Stamped by the host from the client's hello; the worker takes a request without one as the public door's. */
  door: Door.optional(),
  tool: z.string().optional(),
  summary: z.string().optional(),
});
export type CallOrigin = z.infer<typeof CallOrigin>;

/**
 * Where a call's time went, for the bench's profile: each hop the call passed adds the
 * milliseconds it held the call (`page`, `port`, `worker`, `host`, `relay`, `mcp`) to the result
 * on its way back, and only when the request asked for it with `trace: true`; `kit`, how long the
 * worker waited to load the page kit the call needed, when it loaded one; and moments, the fields
 * ending in `At` (lib/protocol/ports.ts traceClock), among them the thread JSON fetch a finished
 * poll or wait makes for its Markdown answer (`fetchStartAt`, `fetchEndAt` in the page, `jsonGotAt`).
 */
export const Trace = z.record(z.string().max(40), z.number());
export type Trace = z.infer<typeof Trace>;

export const Request = z.object({
  kind: z.literal('request'),
  id: RequestId,
  method: z.string().min(1),
  params: z.unknown(),
  origin: CallOrigin.optional(),
  trace: z.literal(true).optional(),
});

export const Result = z.object({ kind: z.literal('result'), id: RequestId, result: z.unknown(), trace: Trace.optional() });
export const Failure = z.object({ kind: z.literal('error'), id: RequestId, error: ErrorPayload });
export const Cancel = z.object({ kind: z.literal('cancel'), id: RequestId, reason: z.string().optional() });

/** Interim news about a running request (a new agent step, say); forwarded to MCP progress. */
export const Progress = z.object({
  kind: z.literal('progress'),
  id: RequestId,
  message: z.string(),
  progress: z.number().optional(),
  total: z.number().optional(),
  /**
   * The call may now take this much longer than planned (a person is being asked to approve it):
   * callers restart their deadline from here instead of timing out under the person's hand.
   */
  holdMs: z.number().int().min(0).max(3_600_000).optional(),
});

/** A push that belongs to no request: status changes, client lists, page state. */
export const Event = z.object({ kind: z.literal('event'), event: z.string().min(1), data: z.unknown() });

export const ProfileInfo = z.object({ id: z.string().min(8).max(64).regex(/^[A-Za-z0-9_-]+$/), label: z.string().max(200) });
export type ProfileInfo = z.infer<typeof ProfileInfo>;

export const BrowserInfo = z.object({ name: z.string(), version: z.string(), userAgent: z.string() });
export type BrowserInfo = z.infer<typeof BrowserInfo>;

export const ClientInfo = z.object({ name: z.string().max(CLIENT_NAME_MAX), version: z.string().max(CLIENT_VERSION_MAX).optional() });

/** Opens every connection. The extension says which profile it is; a client says who it is. */
export const Hello = z.object({
  kind: z.literal('hello'),
  protocolVersion: z.number().int(),
  version: z.string(),
  role: z.enum(['extension', 'client']),
  profile: ProfileInfo.optional(),
  browser: BrowserInfo.optional(),
  client: ClientInfo.optional(),
  transport: z.enum(['stdio', 'http']).optional(),
  /** A client's door, as the relay knows it; the host takes a client that names none as the public door's. */
  door: Door.optional(),
  /**
   * The extension's: when its worker opened this native port (ms since the epoch, later for every
   * port it opens). Of two hosts of one profile alive at once, the later port is the browser's: the
   * other was abandoned during its handshake and must not take the socket or the record.
   */
  portOpenedAt: z.number().optional(),
  /** A client's, new for each connection: the host answers it with `proof` (lib/relay/host-proof.ts). */
  challenge: z.string().max(128).optional(),
});

/**
 * The words that run comet-relay where its host was installed (`comet-relay`, `npx /abs/comet-relay-0.1.0.tgz`,
 * `node /abs/dist/cli.js`): one line a person can type, without control characters. The host computes
 * it (lib/relay/invocation.ts) and sends it in its welcome; the extension says every command with it
 * (`cliHint` in lib/protocol/identity.ts).
 */
export const CliForm = z
  .string()
  .min(1)
  .max(CLI_FORM_MAX)
  .refine((value) => !CLI_FORM_REFUSED.test(value), 'a control character');

export const Welcome = z.object({
  kind: z.literal('welcome'),
  protocolVersion: z.number().int(),
  version: z.string(),
  pid: z.number().int(),
  clientId: z.string().optional(),
  /** The HMAC of the client's challenge with the key in the host's record: this is the host the record names. */
  proof: z.string().max(128).optional(),
  /** To the extension: how a person runs this host's comet-relay (additive: an older host sends none, an older extension drops it). */
  command: CliForm.optional(),
  /** With `command`: the state folder the host was installed with, one word of the person's shell (HostForm, lib/protocol/identity.ts; additive too). */
  home: CliForm.optional(),
});

/** Sent instead of Welcome when the two sides cannot talk; `message` is for a person. */
export const Incompatible = z.object({
  kind: z.literal('incompatible'),
  protocolVersion: z.number().int(),
  version: z.string(),
  message: z.string(),
});

export const Ping = z.object({ kind: z.literal('ping'), t: z.number() });
export const Pong = z.object({ kind: z.literal('pong'), t: z.number() });

/** Native messaging caps host→extension messages at 1 MB: larger envelopes travel as chunks. */
export const Chunk = z.object({
  kind: z.literal('chunk'),
  chunkId: z.string(),
  index: z.number().int().min(0),
  count: z.number().int().min(1),
  data: z.string(),
});

export const Envelope = z.discriminatedUnion('kind', [
  Request,
  Result,
  Failure,
  Cancel,
  Progress,
  Event,
  Hello,
  Welcome,
  Incompatible,
  Ping,
  Pong,
  Chunk,
]);

export type Request = z.infer<typeof Request>;
export type Result = z.infer<typeof Result>;
export type Failure = z.infer<typeof Failure>;
export type Cancel = z.infer<typeof Cancel>;
export type Progress = z.infer<typeof Progress>;
/** How a handler sends interim news to its caller; `holdMs` says the call may now take that much longer. */
export type ProgressSink = (message: string, holdMs?: number) => void;
export type Event = z.infer<typeof Event>;
export type Hello = z.infer<typeof Hello>;
export type Welcome = z.infer<typeof Welcome>;
export type Incompatible = z.infer<typeof Incompatible>;
export type Chunk = z.infer<typeof Chunk>;
export type Envelope = z.infer<typeof Envelope>;

/** Parses an untrusted value; the error message names the offending field for the log. */
export function parseEnvelope(value: unknown): { ok: true; envelope: Envelope } | { ok: false; error: string } {
  const parsed = Envelope.safeParse(value);
  if (parsed.success) return { ok: true, envelope: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid message' };
}
