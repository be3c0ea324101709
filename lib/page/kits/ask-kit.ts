import { ask } from '../composer/actions';
import type { AskCallParams } from '../driver';
import type { HandlerContext } from '../handlers';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { ASK_STREAM_READER_KIND } from '../../selectors/reader-shelf';
import { ASK_STREAM_READERS } from '../../selectors/stream/ask-stream';
import type { AskStreamReader } from '../../selectors/stream/stream-schema';
import { StreamReading } from '../stream/stream-reading';

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
export function askKit({ driver, tap, readers }: PageKitHost): KitHandlers {
  // From the first ask on, this tab's turns are read from the page's own ask streams where it has them (issue 30):
  // every stream since the page loaded, which the page script kept raw for this.
  if (tap && !driver().streams()) {
    driver().useStreams(new StreamReading(tap, { reader: () => readers.pick(ASK_STREAM_READER_KIND, ASK_STREAM_READERS[0] as AskStreamReader).reader }));
  }
  return {
    'page.ask': async (params: AskCallParams, { signal, progress }: HandlerContext) =>
      driver().ask(params, ask, {
        signal,
        onProgress: progress,
        // The page's own stream for the question confirms the page took it (issue 30), beside its new turn.
        streamTook: (key, since) => Boolean(driver().streams()?.forQuestion(key, since - 1000)),
      }),
  };
}
