import type { AskBinding } from '../page/page-methods';

/**
 * Typed errors that travel across every hop as { code, message }. Tools print them as
 * "[CODE] message", the comet_* reference's form. The first block is the reference's codes kept in
 * its meaning; the two it replaces are left out so that nothing sends them: CDP_CONNECTION_FAILED
 * (there is no DevTools link: EXTENSION_NOT_CONNECTED, HOST_DISCONNECTED) and SELECTOR_NOT_FOUND
 * (SELECTOR_MISS, whose message names the probe). docs/tools.md lists both, and why.
 */
export const ERROR_CODES = [
  'COMET_NOT_FOUND',
  'COMET_LAUNCH_FAILED',
  'TAB_NOT_FOUND',
  'TIMEOUT',
  'EVALUATION_FAILED',
  'AGENT_ERROR',
  'CONFIG_ERROR',
  // Ours: the relay has hops the CDP server did not.
  'EXTENSION_NOT_CONNECTED',
  'HOST_DISCONNECTED',
  'VERSION_MISMATCH',
  'NO_PERPLEXITY_TAB',
  /** An ExtensionSettings policy (Comet's own, or an administrator's) forbids extensions on perplexity.ai (lib/protocol/page-access.ts). */
  'BROWSER_POLICY',
  /** The extension's site access to perplexity.ai is turned off in the browser. */
  'SITE_ACCESS_OFF',
  'INVALID_PARAMS',
  'INVALID_URL',
  'CANCELLED',
  'PERMISSION_DENIED',
  'MESSAGE_TOO_LARGE',
  'PROTOCOL_ERROR',
  /** A thread_id that names no Perplexity conversation this account can open. */
  'THREAD_NOT_FOUND',
  'INTERNAL',
  /**
   * The page was not understood: a probe of the selector set in use matched nothing. The message
   * starts with the probe's name (`composer: none of … matched on https://…`).
   */
  'SELECTOR_MISS',
  /**
   * A JSON body of the site's (a thread, the thread list, the Spaces) whose shape no reader knows; the
   * message names what was looked for and where (lib/selectors/library-json.ts).
   */
  'JSON_SHAPE',
  /** The site answered 401: the Perplexity tab that fetched is signed out. */
  'SIGNED_OUT',
  /** The site answered 429; `data.retryAfterMs` carries its Retry-After when it sent one. */
  'RATE_LIMITED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What an error carries for a program besides its words (RATE_LIMITED's wait, a taken prompt's turn). */
export interface ErrorData {
  /** How long the site asked to wait before asking again (its Retry-After), in ms. */
  retryAfterMs?: number;
  /**
   * page.ask's TIMEOUT for a prompt the page took (its composer emptied) with no turn showing it yet: the turn a later
   * comet_wait is to follow, as page.ask's result would have named it (submittedAt as askedAt).
   */
  taken?: AskBinding;
  /** A message refused by the page before anything was typed (a Computer follow-up while the task works). */
  notSent?: true;
}

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  data?: ErrorData;
}
