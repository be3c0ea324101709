import { chooseSelectorSet, chromeMajorFrom, type Mode } from '../selectors';
import { SelectorCatalog } from '../selectors/catalog';
import type { ThreadReply } from '../protocol/watch';
import { captureDom } from './capture';
import { diagnosePage } from './diagnose';
import { type AskCallParams, createPageDriver, type PageDriver, type WaitCallParams } from './driver';
import { threadHandlers } from './thread-handlers';
import { watchPage } from './watch';

/**
 * The methods the content script answers, by name, each a thin call into the page driver. The
 * worker has already validated params against lib/protocol/page-methods.ts. The driver is made
 * on the first request, so a tab nobody asks about does no work at all.
 */
export interface HandlerContext {
  signal: AbortSignal;
  progress(message: string): void;
}

export type PageHandlers = Record<string, (params: never, context: HandlerContext) => Promise<unknown>>;

export function pageHandlers(win: Window, catalog: SelectorCatalog = new SelectorCatalog()): PageHandlers {
  let driver: PageDriver | undefined;
  const page = () => {
    driver ??= createPageDriver(win, catalog);
    return driver;
  };
  return {
    'page.content': async ({ maxLength }: { maxLength: number }) => page().content({ maxLength }),
    'page.probe': async () => page().selectorSet(),
    'page.diagnose': async () => diagnosePage(win.document, page().activeSet(), page().selectorSet()),
    'page.capture': async () => {
      const { name, source } = page().selectorSet();
      const capture = captureDom(win.document, page().activeSet(), { setName: name, setSource: source, capturedAt: new Date().toISOString() });
      return { ...capture, set: { name, source } };
    },
    'page.poll': async (params: { maxLength?: number }) => page().poll(params),
    'page.ask': async (params: AskCallParams, { signal, progress }: HandlerContext) => page().ask(params, { signal, onProgress: progress }),
    'page.wait': async (params: WaitCallParams, { signal, progress }: HandlerContext) =>
      page().wait(params, { signal, onProgress: ({ message }) => progress(message) }),
    'page.stop': async () => page().stop(),
    'page.mode': async ({ mode }: { mode?: Mode | null }) => (mode ? page().setMode(mode) : page().getMode()),
    'page.sources': async (params: { expand?: boolean; openTab?: boolean }) => page().sources(params),
    'page.conversations': async () => page().conversations(),
    'page.watch': async (_params: Record<string, never>, context: HandlerContext) => watchPage(win, page(), context),
    'page.respond': async (params: { interactionId: string; reply: ThreadReply }) => page().respond(params),
    ...threadHandlers(win, page),
  };
}

/** The selector set the page matches and where it came from, for the worker's status; null until the page is recognisable. */
export function recognisedSet(win: Window, catalog: SelectorCatalog): { name: string; source: string } | null {
  const { set, probe } = chooseSelectorSet(win.document, chromeMajorFrom(win.navigator.userAgent), catalog.sets());
  return probe.confident ? { name: set.name, source: catalog.sourceOf(set) } : null;
}
