import { ERROR_CODES } from './errors';
import { DOORS } from './doors';
import { CLI_FORM_MAX, CLI_FORM_REFUSED, CLIENT_NAME_MAX, CLIENT_VERSION_MAX } from './identity';
import type { Envelope } from './messages';

/**
 * The envelope check of every hop a call passes (the host, its clients, the worker's native link
 * and page ports), written without zod: loading zod costs the host ~10 MB of its ~50 MB resident
 * memory, for a host that otherwise only passes messages along, and this check is a third of
 * zod's time per message (0.2 vs 0.6 µs, JIT-compiled), on the path of every call.
 *
 * `Envelope` in messages.ts (zod) stays the definition: this accepts exactly what it accepts and
 * returns what it returns (known fields only, unknown ones dropped). tests/unit/envelope-check.test.ts
 * holds the two to that over every kind and a wrong value in every field.
 */
export type CheckResult = { ok: true; envelope: Envelope } | { ok: false; error: string };

type Obj = Record<string, unknown>;

/** A field that does not fit, with the path zod would name. */
class Refused extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const CODES = new Set<string>(ERROR_CODES);
const PROFILE_ID = /^[A-Za-z0-9_-]+$/;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: unknown, path: string): Obj {
  if (!isObject(value)) throw new Refused(path, 'expected an object');
  return value;
}

function string(o: Obj, key: string, path: string, min = 0, max = Number.POSITIVE_INFINITY): string {
  const value = o[key];
  if (typeof value !== 'string') throw new Refused(path + key, 'expected a string');
  if (value.length < min) throw new Refused(path + key, `too short (at least ${min})`);
  if (value.length > max) throw new Refused(path + key, `too long (at most ${max})`);
  return value;
}

function number(o: Obj, key: string, path: string): number {
  const value = o[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Refused(path + key, 'expected a number');
  return value;
}

function integer(o: Obj, key: string, path: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const value = number(o, key, path);
  if (!Number.isInteger(value)) throw new Refused(path + key, 'expected an integer');
  if (value < min || value > max) throw new Refused(path + key, `out of range (${min}…${max})`);
  return value;
}

/** A field zod declares `z.unknown()`: any value, but the key must be there. */
function present(o: Obj, key: string, path: string): unknown {
  if (!(key in o)) throw new Refused(path + key, 'missing');
  return o[key];
}

/** Adds `key` to `out` when the input has it (not undefined), checked by `check`. */
function optional<T>(out: Obj, o: Obj, key: string, check: () => T): void {
  if (o[key] !== undefined) out[key] = check();
}

function oneOf<T extends string>(o: Obj, key: string, path: string, allowed: readonly T[]): T {
  const value = o[key];
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw new Refused(path + key, `expected one of ${allowed.join(', ')}`);
  return value as T;
}

function cliForm(o: Obj, key: 'command' | 'home'): string {
  const value = string(o, key, '', 1, CLI_FORM_MAX);
  if (CLI_FORM_REFUSED.test(value)) throw new Refused(key, 'a control character');
  return value;
}

/** The longest id an envelope may carry (the host's own prefix included in the ids it forwards). */
export const MAX_ENVELOPE_ID = 200;
const id = (o: Obj) => string(o, 'id', '', 1, MAX_ENVELOPE_ID);

function origin(value: unknown): Obj {
  const o = object(value, 'origin');
  const out: Obj = { clientId: string(o, 'clientId', 'origin.'), clientName: string(o, 'clientName', 'origin.') };
  optional(out, o, 'tool', () => string(o, 'tool', 'origin.'));
  optional(out, o, 'summary', () => string(o, 'summary', 'origin.'));
  optional(out, o, 'door', () => oneOf(o, 'door', 'origin.', DOORS));
  return out;
}

function trace(value: unknown): Obj {
  const o = object(value, 'trace');
  const out: Obj = Object.create(null); // a "__proto__" key stays a key
  for (const key of Object.keys(o)) {
    if (key.length > 40) throw new Refused('trace', 'a key is too long (at most 40)');
    out[key] = number(o, key, 'trace.');
  }
  return out;
}

/** ErrorPayload's `data` (strict: a key it does not declare is refused, as zod's `.strict()` refuses it). */
function errorData(value: unknown): Obj {
  const o = object(value, 'error.data');
  const unknown = Object.keys(o).find((key) => key !== 'retryAfterMs' && key !== 'taken' && key !== 'notSent');
  if (unknown !== undefined) throw new Refused('error.data', `unrecognized key "${unknown}"`);
  const out: Obj = {};
  optional(out, o, 'retryAfterMs', () => integer(o, 'retryAfterMs', 'error.data.', 0, 86_400_000));
  optional(out, o, 'taken', () => takenAsk(o.taken));
  optional(out, o, 'notSent', () => {
    if (o.notSent !== true) throw new Refused('error.data.notSent', 'expected true');
    return true;
  });
  return out;
}

/** ErrorData's `taken`: page-methods.ts's AskBinding, strict as messages.ts takes it. */
function takenAsk(value: unknown): Obj {
  const o = object(value, 'error.data.taken');
  const unknown = Object.keys(o).find((key) => !['turnIndex', 'conversationUrl', 'questionKey', 'askedAt'].includes(key));
  if (unknown !== undefined) throw new Refused('error.data.taken', `unrecognized key "${unknown}"`);
  const at = 'error.data.taken.';
  return {
    turnIndex: integer(o, 'turnIndex', at, 0),
    conversationUrl: string(o, 'conversationUrl', at, 0, 4000),
    questionKey: string(o, 'questionKey', at, 0, 1000),
    askedAt: number(o, 'askedAt', at),
  };
}

function profile(value: unknown): Obj {
  const o = object(value, 'profile');
  const profileId = string(o, 'id', 'profile.', 8, 64);
  if (!PROFILE_ID.test(profileId)) throw new Refused('profile.id', 'expected letters, digits, _ or -');
  return { id: profileId, label: string(o, 'label', 'profile.', 0, 200) };
}

function browser(value: unknown): Obj {
  const o = object(value, 'browser');
  return { name: string(o, 'name', 'browser.'), version: string(o, 'version', 'browser.'), userAgent: string(o, 'userAgent', 'browser.') };
}

function client(value: unknown): Obj {
  const o = object(value, 'client');
  const out: Obj = { name: string(o, 'name', 'client.', 0, CLIENT_NAME_MAX) };
  optional(out, o, 'version', () => string(o, 'version', 'client.', 0, CLIENT_VERSION_MAX));
  return out;
}

const KINDS: Record<string, (o: Obj) => Obj> = {
  request(o) {
    const out: Obj = { kind: 'request', id: id(o), method: string(o, 'method', '', 1), params: present(o, 'params', '') };
    optional(out, o, 'origin', () => origin(o.origin));
    optional(out, o, 'trace', () => {
      if (o.trace !== true) throw new Refused('trace', 'expected true');
      return true;
    });
    return out;
  },
  result(o) {
    const out: Obj = { kind: 'result', id: id(o), result: present(o, 'result', '') };
    optional(out, o, 'trace', () => trace(o.trace));
    return out;
  },
  error(o) {
    const payload = object(o.error, 'error');
    const code = payload.code;
    if (typeof code !== 'string' || !CODES.has(code)) throw new Refused('error.code', 'expected a known error code');
    const error: Obj = { code, message: string(payload, 'message', 'error.') };
    optional(error, payload, 'data', () => errorData(payload.data));
    return { kind: 'error', id: id(o), error };
  },
  cancel(o) {
    const out: Obj = { kind: 'cancel', id: id(o) };
    optional(out, o, 'reason', () => string(o, 'reason', ''));
    return out;
  },
  progress(o) {
    const out: Obj = { kind: 'progress', id: id(o), message: string(o, 'message', '') };
    optional(out, o, 'progress', () => number(o, 'progress', ''));
    optional(out, o, 'total', () => number(o, 'total', ''));
    optional(out, o, 'holdMs', () => integer(o, 'holdMs', '', 0, 3_600_000));
    return out;
  },
  event(o) {
    return { kind: 'event', event: string(o, 'event', '', 1), data: present(o, 'data', '') };
  },
  hello(o) {
    const out: Obj = {
      kind: 'hello',
      protocolVersion: integer(o, 'protocolVersion', ''),
      version: string(o, 'version', ''),
      role: oneOf(o, 'role', '', ['extension', 'client']),
    };
    optional(out, o, 'profile', () => profile(o.profile));
    optional(out, o, 'browser', () => browser(o.browser));
    optional(out, o, 'client', () => client(o.client));
    optional(out, o, 'transport', () => oneOf(o, 'transport', '', ['stdio', 'http']));
    optional(out, o, 'door', () => oneOf(o, 'door', '', DOORS));
    optional(out, o, 'portOpenedAt', () => number(o, 'portOpenedAt', ''));
    optional(out, o, 'challenge', () => string(o, 'challenge', '', 0, 128));
    return out;
  },
  welcome(o) {
    const out: Obj = { kind: 'welcome', protocolVersion: integer(o, 'protocolVersion', ''), version: string(o, 'version', ''), pid: integer(o, 'pid', '') };
    optional(out, o, 'clientId', () => string(o, 'clientId', ''));
    optional(out, o, 'proof', () => string(o, 'proof', '', 0, 128));
    optional(out, o, 'command', () => cliForm(o, 'command'));
    optional(out, o, 'home', () => cliForm(o, 'home'));
    return out;
  },
  incompatible(o) {
    return { kind: 'incompatible', protocolVersion: integer(o, 'protocolVersion', ''), version: string(o, 'version', ''), message: string(o, 'message', '') };
  },
  ping(o) {
    return { kind: 'ping', t: number(o, 't', '') };
  },
  pong(o) {
    return { kind: 'pong', t: number(o, 't', '') };
  },
  chunk(o) {
    return {
      kind: 'chunk',
      chunkId: string(o, 'chunkId', ''),
      index: integer(o, 'index', '', 0),
      count: integer(o, 'count', '', 1),
      data: string(o, 'data', ''),
    };
  },
};

export function checkEnvelope(value: unknown): CheckResult {
  if (!isObject(value)) return { ok: false, error: 'message: expected an object' };
  const check = typeof value.kind === 'string' && Object.hasOwn(KINDS, value.kind) ? KINDS[value.kind] : undefined;
  if (!check) return { ok: false, error: `kind: expected one of ${Object.keys(KINDS).join(', ')}` };
  try {
    return { ok: true, envelope: check(value) as Envelope };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, error: `${error.path}: ${error.message}` };
    throw error;
  }
}

/** The id rule of every envelope (1–200 characters), for answering a frame that failed the check. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_ENVELOPE_ID;
}
