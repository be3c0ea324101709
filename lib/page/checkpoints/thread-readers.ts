import { THREAD_PAGE_READERS } from '../../selectors/thread-page';
import { ReaderShelf, THREAD_PAGE_READER_KIND } from '../../selectors/reader-shelf';
import type { ThreadPageReader } from '../../selectors/thread-schema';

/**
 * The page script's thread readers: the built-in ones, or those added as data packs, which the worker
 * delivers validated (packs.ts) and which are used from the next read on, without a reload. One per
 * page script; the threads kit gets this same shelf through PageKitHost (it carries its own copy of
 * this module's code, so it must never import it).
 */
export const threadReaders = /* @__PURE__ */ new ReaderShelf();

/** The thread page reader in use (what comet_wait and the panel find waiting boxes with). */
export function pageReader(): ThreadPageReader {
  return threadReaders.pick(THREAD_PAGE_READER_KIND, THREAD_PAGE_READERS[0] as ThreadPageReader).reader;
}
