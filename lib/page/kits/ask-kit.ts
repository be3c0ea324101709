import { RelayError } from '../../protocol/error/relay-error';
import { type AskHandle, type AskOptions, ask } from '../composer/actions';
import type { PageDriver } from '../driver';
import { requireTurns } from '../answer/reader';
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
 * What must outlive a call and be shared by every caller in the tab: the last ask, which a later wait
 * binds to, stays in the page script's driver; the queue (one ask at a time) is this kit's, made once
 * per page (a kit registers once), since only asks use it (moved here 2026-12-04, for the page
 * script's budget). This kit hands the driver the ask itself and the ask's turn in the queue. The session's mode is set again before an ask by the worker or the tool through the
 * mode kit (`modeAgain`, lib/protocol/page/page-methods.ts), never here: each kit carries its own
 * copy of the composer's typing.
 */
export function askKit({ driver, tap, readers }: PageKitHost): KitHandlers {
  // From the first ask on, this tab's turns are read from the page's own ask streams where it has them (issue 30):
  // every stream since the page loaded, which the page script kept raw for this.
  if (tap && !driver().streams()) {
    driver().useStreams(new StreamReading(tap, { reader: () => readers.pick(ASK_STREAM_READER_KIND, ASK_STREAM_READERS[0] as AskStreamReader).reader }));
  }
  /** Settles when the ask in progress (and every one queued before it) is done: one kit per page, so one queue per page. */
  let queue: Promise<void> = Promise.resolve();
  return {
    'page.ask': async (params: AskCallParams, { signal, progress }: HandlerContext) => {
      const previous = queue;
      let release = () => {};
      queue = new Promise<void>((resolve) => {
        release = resolve;
      });
      try {
        return await askThrough(
          driver(),
          params,
          {
            signal,
            onProgress: progress,
            // The page's own stream for the question confirms the page took it (issue 30), beside its new turn.
            streamTook: (key, since) => Boolean(driver().streams()?.forQuestion(key, since)),
          },
          () => untilSettled(previous, signal, () => progress('Another prompt is being sent in this tab; this one follows it.')),
        );
      } finally {
        // A cancelled waiter still holds its place until the asks before it are done.
        void previous.then(release);
      }
    },
  };
}

/** `page.ask`'s params (lib/protocol/page/page-methods.ts). */
export interface AskCallParams {
  prompt: string;
  newChat?: boolean;
  busyWaitMs?: number;
  confirmMs?: number;
}

/**
 * One ask through the page's driver, with its error shaping: the page's turns checked, then (`queued`) its turn in
 * the tab's queue awaited, then typed, submitted and confirmed (lib/page/composer/actions.ts); the handle is the
 * driver's last ask.
 */
export function askThrough(
  driver: PageDriver,
  params: AskCallParams,
  options: Pick<AskOptions, 'signal' | 'onProgress' | 'streamTook'> = {},
  queued?: () => Promise<void>,
): Promise<AskHandle> {
  return driver.run('ask', async () => {
    // A prompt sent on a page whose turns the set cannot see could never be confirmed: nothing is typed.
    if (!params.newChat) requireTurns(driver.context().doc, driver.context().set);
    await queued?.();
    const { busyWaitMs, confirmMs, ...what } = params;
    const handle = await ask(driver.context(), driver.watcher, what, {
      ...options,
      ...(busyWaitMs === undefined ? {} : { busyWaitMs }),
      ...(confirmMs === undefined ? {} : { confirmMs }),
    });
    driver.asked(handle);
    return handle;
  });
}

/** Resolves once `previous` settles; rejects with CANCELLED if the signal fires first. */
function untilSettled(previous: Promise<void>, signal: AbortSignal | undefined, onQueued: () => void): Promise<void> {
  if (signal?.aborted) return Promise.reject(new RelayError('CANCELLED', 'The ask was cancelled before it started.'));
  let settled = false;
  const done = previous.then(() => {
    settled = true;
  });
  queueMicrotask(() => {
    if (!settled) onQueued();
  });
  if (!signal) return done;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new RelayError('CANCELLED', 'The ask was cancelled while another prompt was being sent in this tab; nothing was typed.'));
    signal.addEventListener('abort', onAbort, { once: true });
    void done.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
