import { ERROR_CODES } from './error/codes';
import { knowCodes, RelayError } from './error/relay-error';

export { ERROR_CODES, RelayError };
export type { ErrorCode, ErrorData, ErrorPayload } from './error/codes';

/**
 * The errors every hop throws and sends as { code, message }: the codes (error/codes.ts), the class
 * (error/relay-error.ts, which the page script and its kits import alone, without the list), and here
 * the list's one use at run time: wherever this module is loaded, RelayError.from knows a bare payload
 * as ours only with one of our codes.
 */
knowCodes(ERROR_CODES);
