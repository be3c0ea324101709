import { BOXES_2026 } from '../../selectors/thread-page';
import { ReaderShelf, THREAD_PAGE_READER_KIND } from '../../selectors/reader-shelf';
import type { BoxReader } from '../../selectors/thread-schema';

/**
 * The page script's thread readers: the built-in ones, or those added as data packs, which the worker
 * delivers validated (packs.ts) and which are used from the next read on, without a reload. One per
 * page script; the threads kit gets this same shelf through PageKitHost (it carries its own copy of
 * this module's code, so it must never import it).
 */
export const threadReaders = /* @__PURE__ */ new ReaderShelf();

/**
 * The box fields of the thread page reader in use (what comet_wait and the panel find waiting boxes with): an added
 * reader's, else the built-in's, which is all of it the page script carries (the kits carry the rest). A kit passes
 * the page script's shelf (PageKitHost.readers): its own copy of `threadReaders` is one no pack reaches.
 */
export function pageReader(shelf: ReaderShelf = threadReaders): BoxReader {
  return shelf.pick<BoxReader>(THREAD_PAGE_READER_KIND, BOXES_2026).reader;
}
