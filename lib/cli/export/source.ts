import { RelayError } from '../../protocol/errors';

/**
 * What the exporter needs of the library: a page of the thread list and one thread whole. The relay
 * answers both through the browser (`library.list`, `library.thread`); the unit tests answer them with
 * a fake. The shapes are the contract's (lib/protocol/library/library.ts).
 */
export interface ListedThread {
  slug: string;
  title: string;
  url: string;
  lastActivity: string | null;
  created: string | null;
  mode: string | null;
  space: string | null;
}

export interface ListPage {
  threads: ListedThread[];
  total: number | null;
  offset: number;
  nextOffset: number | null;
}

export interface ListParams {
  query?: string;
  space?: string;
  limit: number;
  offset: number;
  since?: string;
}

export interface WholeThread {
  slug: string;
  url: string;
  title: string;
  created: string | null;
  updated: string | null;
  mode: string | null;
  model: string | null;
  space: string | null;
  turns: { question: string; answer: string; sources: { n: number; title: string; url: string }[] }[];
  pages: number;
}

export interface ExportSource {
  listThreads(params: ListParams, signal: AbortSignal): Promise<ListPage>;
  exportThread(slug: string, signal: AbortSignal): Promise<WholeThread>;
}

/** How long the site asked us to wait (a 429's `Retry-After`, carried as `data.retryAfterMs`), if it said. */
export function retryAfterOf(error: unknown): number | undefined {
  const ms = (error as { data?: { retryAfterMs?: unknown } } | null)?.data?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The error's code as the relay named it (`RATE_LIMITED`, `NOT_FOUND`, …), whatever class carried it. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : RelayError.from(error).code;
}
