import { RelayError } from '../protocol/errors';
import { chooseSelectorSet, chromeMajorFrom, SelectorCatalog } from '../selectors/catalog';
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

export function pageHandlers(win: Window, catalog: SelectorCatalog = new SelectorCatalog(), page: () => PageDriver = lazyDriver(win, catalog)): PageHandlers {
  return {
    'page.content': async ({ maxLength }: { maxLength: number }) => page().content({ maxLength }),
    'page.probe': async () => page().selectorSet(),
    'page.poll': async (params: { maxLength?: number }) => page().poll(params),
    'page.wait': async (params: WaitCallParams, { signal, progress, trace }: HandlerContext) =>
      page().wait(params, { signal, onProgress: ({ message }) => progress(message), ...(trace ? { trace } : {}) }),
    'page.stop': async () => page().stop(),
    /**
     * Worker-only: a same-origin JSON read with the app's headers (the account's models and
     * projects, the recent threads). Here, not in the thread kit, so an account read in the
     * person's own tab loads nothing more into it.
     */
    'threads.fetch': async (params: { path: string; query: Record<string, string>; headers: Record<string, string> }, { signal, trace }: HandlerContext) => {
      if (!SAFE_PATH.test(params.path)) throw new RelayError('INVALID_PARAMS', `not a same-origin path: ${params.path}`);
      const url = new URL(params.path, win.location.origin);
      for (const [k, v] of Object.entries(params.query)) if (v !== '') url.searchParams.set(k, v);
      if (trace) trace.fetchStartAt = traceClock();
      try {
        // A cancelled call's read stops too (nobody is left to read it for).
        const res = await win.fetch(url.href, { headers: params.headers, credentials: 'include', cache: 'no-store', signal });
        const body = await res.text();
        if (trace) trace.fetchEndAt = traceClock();
        return { status: res.status, body, path: url.pathname };
      } catch (e) {
        throw new RelayError('EVALUATION_FAILED', `Could not read ${url.pathname} (${(e as Error).message}).`);
      }
    },
  };
}

/** The selector set the page matches and where it came from, for the worker's status; null until the page is recognisable. */
export function recognisedSet(win: Window, catalog: SelectorCatalog): { name: string; source: string } | null {
  const { set, probe } = chooseSelectorSet(win.document, chromeMajorFrom(win.navigator.userAgent), catalog.sets());
  return probe.confident ? { name: set.name, source: catalog.sourceOf(set) } : null;
}
