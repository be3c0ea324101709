import { ERROR_CODES } from './error/codes';
import { knowCodes, RelayError } from './error/relay-error';

export { ERROR_CODES, RelayError };
export type { ErrorCode, ErrorData, ErrorPayload } from './error/codes';

/**
 * The errors every hop throws and sends as { code, message }: the codes (error/codes.ts), the class
 * (error/relay-error.ts, which the page script and its kits import alone, without the list), and here
 * the list's one use at run time: a bare payload is ours only with one of our codes.
 */
// RelayError.from knows a bare payload as ours by these codes wherever this module is loaded (lib/protocol/error/relay-error.ts).
knowCodes(ERROR_CODES);
