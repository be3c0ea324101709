import { RelayError } from '../../protocol/errors';
import type { ExportedThread, LibraryListParams, LibraryPage, LibraryThread } from '../../protocol/library/library';
import type { RelayClient } from '../../relay/client';

/**
 * What the exporter needs of the library: a page of the thread list and one thread whole. The relay
 * answers both through the browser (`library.list`, `library.thread`: lib/protocol/library/); the
 * unit tests answer them with a fake.
 */
export type ListedThread = LibraryThread;
export type WholeThread = ExportedThread;
export type ListParams = LibraryListParams & { limit: number; offset: number };

export interface ExportSource {
  listThreads(params: ListParams, signal: AbortSignal): Promise<LibraryPage>;
  exportThread(slug: string, signal: AbortSignal): Promise<WholeThread>;
}

/** A page of the list takes one request of the site; a whole thread one a page of its JSON (100 turns each). */
const LIST_TIMEOUT_MS = 60_000;
const THREAD_TIMEOUT_MS = 180_000;

/** The library through the browser: the relay's calls, with the thread-tab cap the thread tools keep to. */
export function relaySource(client: RelayClient, tabCap?: number): ExportSource {
  return {
    listThreads: (params, signal) => client.call('library.list', { ...params, tabCap }, { signal, timeoutMs: LIST_TIMEOUT_MS }),
    exportThread: (slug, signal) => client.call('library.thread', { thread: slug, tabCap }, { signal, timeoutMs: THREAD_TIMEOUT_MS }),
  };
}

/** How long the site asked us to wait (a 429's `Retry-After`, carried as `data.retryAfterMs`), if it said. */
export function retryAfterOf(error: unknown): number | undefined {
  const ms = (error as { data?: { retryAfterMs?: unknown } } | null)?.data?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The error's code as the relay named it (`RATE_LIMITED`, `THREAD_NOT_FOUND`, …), whatever class carried it. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : RelayError.from(error).code;
}
