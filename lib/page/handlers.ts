import { RelayError } from '../protocol/error/relay-error';
import { chooseSelectorSet, chromeMajorFrom, SelectorCatalog } from '../selectors/catalog';
import { threadIdOfPath } from '../protocol/threads/thread-ids';
import { traceClock } from '../protocol/ports';
import { createPageDriver, type PageDriver, type WaitCallParams } from './driver';

/**
 * The methods every Perplexity page answers, by name, each a thin call into the page driver. The
 * worker has already validated params against lib/protocol/page/page-methods.ts. The driver is made
 * on the first request, so a tab nobody asks about does no work at all. Methods only some tabs or
 * some calls need (asking, Computer threads, sources, modes, the side panel's view, diagnostics) come with kits (kit-registry.ts),
 * loaded when first asked.
 */
export interface HandlerContext {
  signal: AbortSignal;
  progress(message: string): void;
  /** Only for a request the bench traces: the handler may add its own moments (lib/protocol/messages.ts Trace). */
  trace?: Record<string, number>;
}

export type PageHandlers = Record<string, (params: never, context: HandlerContext) => Promise<unknown>>;

/** The page's one driver, made on first use. */
export function lazyDriver(win: Window, catalog: SelectorCatalog): () => PageDriver {
  let driver: PageDriver | undefined;
  return () => {
    driver ??= createPageDriver(win, catalog);
    return driver;
  };
}

/** Same-origin paths only (the worker asks for the account's JSON endpoints). */
const SAFE_PATH = /^\/(?!\/)[A-Za-z0-9/_.~-]*$/;

/** A same-origin JSON read: the worker's `threads.fetch`. */
interface FetchParams {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /**
   * Sent ahead of a comet_wait's `page.wait` with the same `jsonKey`: nothing is fetched until that
   * wait sees its turn end completed, then the thread JSON of the page it ended on (`{id}` in `path`
   * is that thread's id) at once, while the turn is read and the wait's result travels. A wait that
   * ends any other way, or on a page that names no thread, fetches nothing (`skipped`).
   */
  afterWait?: string;
}

export function pageHandlers(win: Window, catalog: SelectorCatalog = new SelectorCatalog(), page: () => PageDriver = lazyDriver(win, catalog)): PageHandlers {
  /**
   * The early reads (FetchParams.afterWait) waiting for their wait's end, by key: each is told the URL
   * the turn ended on (null: it ended another way) and starts its fetch in that same task, before the
   * turn is read. Each leaves when told or when its request is cancelled.
   */
  const ends = new Map<string, (url: string | null) => void>();
  return {
    'page.probe': async () => page().selectorSet(),
    'page.poll': async (params: { maxLength?: number }) => page().poll(params),
    'page.wait': async (params: WaitCallParams, { signal, progress, trace }: HandlerContext) => {
      const key = params.jsonKey ?? '';
      const tell = (url: string | null) => {
        const told = ends.get(key);
        ends.delete(key);
        told?.(url);
      };
      try {
        return await page().wait(params, { signal, onProgress: ({ message }) => progress(message), onFinished: tell, trace });
      } finally {
        tell(null);
      }
    },
    'page.stop': async () => page().stop(),
    /**
     * Worker-only: a same-origin JSON read with the app's headers (the account's models and
     * projects, the recent threads, a finished turn's thread). Here, not in the thread kit, so an
     * account read in the person's own tab loads nothing more into it.
     */
    'threads.fetch': async (params: FetchParams, { signal, trace }: HandlerContext) => {
      const read = async (path: string) => {
        if (!SAFE_PATH.test(path)) throw new RelayError('INVALID_PARAMS', `not a same-origin path: ${path}`);
        const url = new URL(path, win.location.origin);
        for (const [k, v] of Object.entries(params.query)) if (v !== '') url.searchParams.set(k, v);
        if (trace) trace.fetchStartAt = traceClock();
        try {
          // A cancelled call's read stops too (nobody is left to read it for).
          const res = await win.fetch(url.href, { headers: params.headers, credentials: 'include', cache: 'no-store', signal });
          const body = await res.text();
          if (trace) trace.fetchEndAt = traceClock();
          // A 429's wait, when the site says (the library's export paces itself by it).
          return { status: res.status, body, path: url.pathname, retryAfter: res.headers.get('retry-after') ?? undefined };
        } catch (e) {
          throw new RelayError('EVALUATION_FAILED', `Could not read ${url.pathname} (${(e as Error).message}).`);
        }
      };
      const key = params.afterWait;
      if (key === undefined) return read(params.path);
      return new Promise<{ status: number; body: string; path: string; retryAfter?: string; asked?: string; skipped?: true }>((resolve, reject) => {
        const onAbort = () => {
          ends.delete(key);
          reject(new RelayError('CANCELLED', 'The call was cancelled.'));
        };
        ends.set(key, (ended) => {
          signal.removeEventListener('abort', onAbort);
          const ref = ended === null ? undefined : threadIdOfPath(new URL(ended).pathname);
          const path = params.path.replace('{id}', encodeURIComponent(ref ?? ''));
          resolve(ref === undefined ? { status: 0, body: '', path: '', skipped: true } : read(path).then((res) => ({ ...res, asked: path })));
        });
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

/** The selector set the page matches and where it came from, for the worker's status; null until the page is recognisable. */
export function recognisedSet(win: Window, catalog: SelectorCatalog): { name: string; source: string } | null {
  const { set, probe } = chooseSelectorSet(win.document, chromeMajorFrom(win.navigator.userAgent), catalog.sets());
  return probe.confident ? { name: set.name, source: catalog.sourceOf(set) } : null;
}
