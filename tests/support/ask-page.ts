import { lazyDriver, type PageHandlers, pageHandlers } from '../../lib/page/handlers';
import { askKit } from '../../lib/page/kits/ask-kit';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { ReaderShelf } from '../../lib/selectors/reader-shelf';

/**
 * The page script's methods as they stand once the worker has loaded the ask kit into the page
 * (lib/page/agent.ts adds a kit's methods to its own the same way): `page.ask` runs through the
 * page's one driver, its queue and last ask, as in the extension.
 */
export function pageWithAskKit(win: Window, catalog = new SelectorCatalog()): PageHandlers {
  const driver = lazyDriver(win, catalog);
  return { ...pageHandlers(win, catalog, driver), ...askKit({ win, driver, catalog, readers: new ReaderShelf() }) };
}
