import type { ErrorCode, ErrorData, ErrorPayload } from './codes';

/**
 * The error class every hop throws, without the code list (codes.ts), so the page script and
 * its kits, which only make errors of their own codes, do not carry it (~0.25 kB gzip each). Everything
 * outside lib/page imports it from lib/protocol/errors.ts, which hands it the list: there a bare payload (`{ code, message }`
 * off the wire) counts as ours only with one of our codes, so a foreign `ENOENT` never passes as one.
 */
export class RelayError extends Error {
  override readonly name = 'RelayError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: ErrorData,
  ) {
    super(message);
  }

  toPayload(): ErrorPayload {
    return { code: this.code, message: this.message, ...(this.data ? { data: this.data } : {}) };
  }

  static from(error: unknown, fallback: ErrorCode = 'INTERNAL'): RelayError {
    if (error instanceof RelayError) return error;
    if (isOurs(error)) return new RelayError(error.code, error.message, error.data);
    if (error instanceof Error && error.name === 'AbortError') return new RelayError('CANCELLED', 'The call was cancelled.');
    return new RelayError(fallback, error instanceof Error ? error.message : String(error));
  }
}

let codes: readonly string[] = [];

/** errors.ts hands over the code list once, where a program carries it (never in the page script). */
export function knowCodes(list: readonly string[]): void {
  codes = list;
}

/**
 * Ours: a `{ code, message }` marked by this class's name (thrown by the page script's or a kit's copy of
 * this class, or a kit's bare payload with `name: 'RelayError'`), or, where the list is known, one of our codes.
 */
export function isOurs(value: unknown): value is ErrorPayload {
  const v = value as Partial<ErrorPayload> & { name?: unknown };
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof v.message === 'string' &&
    typeof v.code === 'string' &&
    (v.name === 'RelayError' || codes.includes(v.code))
  );
}
