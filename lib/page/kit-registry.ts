import { type KitLoad, PAGE_KIT_API, PAGE_KIT_HOOK, PAGE_KITS, type PageKitName } from '../protocol/page/page-kits';
import type { SelectorCatalog } from '../selectors/catalog';
import type { ReaderShelf } from '../selectors/reader-shelf';
import type { PageDriver } from './driver';
import type { HandlerContext } from './handlers';
import type { TapChannel } from './stream/tap-channel';

/**
 * Both ends of the content script's on-demand parts (lib/protocol/page/page-kits.ts explains them).
 *
 * The page script (always loaded) offers a hook in its isolated world; a kit's script, injected
 * into the same world by the worker, hands the hook a factory, which the page script calls once
 * with what a kit may use (the page, its driver, its selector sets and readers) and whose methods
 * it adds to its own. Registering twice does nothing: the second script run reports `already`.
 */
export type KitHandler = (params: never, context: HandlerContext) => Promise<unknown>;
export type KitHandlers = Record<string, KitHandler>;

/** What the page script gives a kit. Only types cross: each side carries its own copy of shared code. */
export interface PageKitHost {
  win: Window;
  /** The page's one driver (made on first use): its context, watcher and asks are the page's own. */
  driver(): PageDriver;
  catalog: SelectorCatalog;
  /** The thread readers in use (built-in, or added as files), the page script's own. */
  readers: ReaderShelf;
  /** The page's ask streams as the tap sent them (lib/page/stream/tap-channel.ts); absent in a page script of an older build. */
  tap?: TapChannel;
}

export type KitFactory = (host: PageKitHost) => KitHandlers;

interface KitHook {
  register(name: string, api: number, factory: KitFactory): KitLoad['status'];
  /** The kits registered so far (what page.ready reports; tests read it in the isolated world). */
  loaded(): string[];
}

/**
 * The page script's end: offers the hook on `world` (the isolated world's global object) and
 * calls `add` with each kit's methods. Returns the names of the kits registered so far.
 */
export function offerKitHook(world: object, host: PageKitHost, add: (handlers: KitHandlers) => void): () => string[] {
  const loaded = new Set<string>();
  const hook: KitHook = {
    register(name, api, factory) {
      if (api !== PAGE_KIT_API) return 'version-mismatch';
      if (loaded.has(name)) return 'already';
      add(factory(host));
      loaded.add(name);
      return 'registered';
    },
    loaded: () => [...loaded],
  };
  Object.defineProperty(world, PAGE_KIT_HOOK, { value: hook, configurable: true });
  return hook.loaded;
}

/**
 * A kit script's end: registers with the page script of this world. Its result is the script's
 * completion value, which `scripting.executeScript` hands back to the worker.
 */
export function registerKit(name: PageKitName, factory: KitFactory, world: object = globalThis): KitLoad {
  const hook = (world as Record<string, unknown>)[PAGE_KIT_HOOK] as KitHook | undefined;
  if (!hook) return { kit: name, status: 'no-page-script' };
  return { kit: name, status: hook.register(name, PAGE_KIT_API, factory) };
}

/**
 * A kit's methods run through the driver's error shaping, like the page script's own: a miss names
 * the selector set in use, an unexpected failure says which method failed.
 */
export function guarded(driver: () => PageDriver, handlers: KitHandlers): KitHandlers {
  return Object.fromEntries(
    Object.entries(handlers).map(([method, handler]) => [method, (params: never, context: HandlerContext) => driver().run(method, () => handler(params, context))]),
  );
}

/** The methods a kit must answer (a unit test holds each kit's factory to its entry in the table). */
export function kitMethods(name: PageKitName): readonly string[] {
  return PAGE_KITS[name].methods;
}
