import { ask } from '../composer/actions';
import type { AskCallParams } from '../driver';
import type { HandlerContext } from '../handlers';
import type { KitHandlers, PageKitHost } from '../kit-registry';

/**
 * comet_ask's page side, loaded on demand (lib/protocol/page/page-kits.ts): typing into the page's
 * Lexical composer, submitting, confirming the page took this prompt, and putting the person's draft
 * back (lib/page/composer/). A tab that is only read, waited on or stopped never needs it; kept out of
 * the page script, that is ~2.5 kB gzip less in every Perplexity page (2026-12-02).
 *
 * The page script's driver keeps what must outlive a call and be shared by every caller in the tab:
 * the queue (one ask at a time) and the last ask, which a later wait binds to. This kit hands it the
 * ask itself. The session's mode is set again before an ask by the worker or the tool through the
 * mode kit (`modeAgain`, lib/protocol/page/page-methods.ts), never here: each kit carries its own
 * copy of the composer's typing.
 */
export function askKit({ driver }: PageKitHost): KitHandlers {
  return {
    'page.ask': async (params: AskCallParams, { signal, progress }: HandlerContext) => driver().ask(params, ask, { signal, onProgress: progress }),
  };
}
