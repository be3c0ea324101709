import { RelayError } from '../error/relay-error';
import { conversationKey, isPerplexityHost } from '../urls';

/**
 * The one rule for thread ids, used by every layer: the MCP tools' input check, the worker's
 * routing, the page's reading of its own URL, and the zod schemas of the thread methods.
 *
 * A thread id is the last path segment of a conversation's URL — `/computer/tasks/{id}`,
 * `/search/{slug}` or `/copilot/{slug}` — or the uuid in the page's thread data. Perplexity's ids
 * are uuids, 22-character task ids and slugs: URL-unreserved characters (RFC 3986: letters, digits,
 * `-`, `.`, `_`, `~`). Anything else (`/`, `%`, spaces, `..`) is refused, so an id can never reach
 * another path when it is put into one.
 */
export const THREAD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;

/** The pages that show one conversation; the id is the segment after the prefix, and nothing follows it. */
const CONVERSATION_PATH = /^\/(?:computer\/tasks|search|copilot)\/([^/]+)\/?$/;

export function isThreadId(value: string): boolean {
  return THREAD_ID_PATTERN.test(value) && !value.includes('..');
}

/** What is wrong with a thread id, in one sentence that names the field and says what to do; undefined when fine. */
export function threadIdProblem(value: string, field = 'thread_id', from = 'call_perplexity_computer'): string | undefined {
  if (isThreadId(value)) return undefined;
  const shown = value.length > 80 ? `${value.slice(0, 79)}…` : value;
  return `${field} "${shown}" is not a Perplexity id (letters, digits, "-", "_", "." or "~"): pass the ${field} a previous ${from} result returned.`;
}

/** Throws INVALID_PARAMS with threadIdProblem's sentence. */
export function checkThreadId(value: string, field = 'thread_id', from = 'call_perplexity_computer'): void {
  const problem = threadIdProblem(value, field, from);
  if (problem) throw new RelayError('INVALID_PARAMS', problem);
}

/** The thread id in a conversation path, when the segment is a valid id. */
export function threadIdOfPath(pathname: string): string | undefined {
  const segment = CONVERSATION_PATH.exec(pathname)?.[1];
  if (!segment) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return isThreadId(id) ? id : undefined;
}

/** The thread an https perplexity.ai URL shows; undefined for any other page or host. */
export function threadIdOfUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || !isPerplexityHost(url.hostname)) return undefined;
  return threadIdOfPath(url.pathname);
}

/**
 * What stays of a conversation's address while the page rewrites it: a Computer task's last 22 characters (its slug
 * drifts: lib/selectors/README.md), a search thread's slug; none for home or `/search/new`, the address that asks a new
 * question, which the page replaces with the thread's own (review 11b, F2).
 */
export function conversationIdOf(raw: string): string | undefined {
  const id = threadIdOfUrl(raw);
  if (id === undefined || id === 'new') return undefined;
  return new URL(raw).pathname.startsWith('/computer/tasks/') ? (taskIdOf(id) ?? id) : id;
}

/** Two addresses of one conversation: by its id where both name one (a task's slug changes), else by the address. */
export function sameConversation(a: string, b: string): boolean {
  const [x, y] = [conversationIdOf(a), conversationIdOf(b)];
  return x !== undefined && y !== undefined ? x === y : conversationKey(a) === conversationKey(b);
}

/** A uuid: a search thread's id (`thread_url_slug` in every capture), whole. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A Computer task's id: the last 22 characters of its address's segment, which stay while the slug before them is
 * renamed or re-summarized (lib/selectors/README.md, "Computer task pages"; the 2026-04 task-page notes in the
 * captures). Undefined when `threadId` cannot be one: shorter, a slug with no `-` before its last 22 characters, or a
 * uuid (whose last groups are no id of their own: review 14d, 4).
 */
export function taskIdOf(threadId: string): string | undefined {
  if (threadId.length < 22 || UUID.test(threadId) || (threadId.length > 22 && threadId[threadId.length - 23] !== '-')) return undefined;
  return threadId.slice(-22);
}

/**
 * Whether `url` shows the thread `threadId` names: its id, or, on a Computer task's page, the same task under another
 * slug (review 14b, F1: a task re-summarized after its run was "another thread" to every thread tool).
 */
export function showsThread(url: string | undefined, threadId: string): boolean {
  const shown = threadIdOfUrl(url);
  if (shown === undefined) return false;
  if (shown === threadId) return true;
  const task = taskIdOf(threadId);
  return task !== undefined && new URL(url as string).pathname.startsWith('/computer/tasks/') && taskIdOf(shown) === task;
}

/** Two thread ids of one thread: equal, or one Computer task's id under two slugs. */
export function sameThreadId(a: string, b: string): boolean {
  if (a === b) return true;
  const task = taskIdOf(a);
  return task !== undefined && taskIdOf(b) === task;
}

/** A tab that showed one thread now shows another page: never that page's result for this call. */
export function threadMovedError(asked: string, url: string, now: string | undefined): RelayError {
  return new RelayError(
    'TAB_NOT_FOUND',
    `The tab that showed thread "${asked}" now shows ${now ? `thread "${now}"` : 'another page'} (${url}), so the call on "${asked}" stopped and nothing of the other page is returned; call again (the thread's tab is looked up anew).`,
  );
}
