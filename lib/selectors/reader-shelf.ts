/**
 * The thread readers in use, built-in or added as data packs (`comet-relay selectors add`). No zod:
 * the page script keeps one (lib/page/checkpoints/thread-readers.ts) and hands it to the threads kit; the worker
 * and `doctor` apply the same rule to name what the tabs use.
 *
 * Rule: an added reader of a kind is used instead of the built-in one (the first added, in file-name
 * order, when there are several); removing it brings the built-in back. A reader is not chosen by
 * probing: a JSON reader that does not fit the body makes the page answer instead (`source: 'page'`,
 * with the reader named in the reason), which is what a fixed reader is added for.
 */
export const THREAD_PAGE_READER_KIND = 'thread-page-reader';
export const THREAD_JSON_READER_KIND = 'thread-json-reader';
export const ACCOUNT_JSON_READER_KIND = 'account-json-reader';
/** The library's endpoints and fields (lib/selectors/library/library-json.ts): a changed endpoint is a pack, not a release. */
export const LIBRARY_JSON_READER_KIND = 'library-json-reader';
/** Where the page's own answer stream is and how its frames read (lib/selectors/stream/ask-stream.ts). */
export const ASK_STREAM_READER_KIND = 'ask-stream-reader';
export const READER_KINDS = [THREAD_PAGE_READER_KIND, THREAD_JSON_READER_KIND, ACCOUNT_JSON_READER_KIND, LIBRARY_JSON_READER_KIND, ASK_STREAM_READER_KIND] as const;
export type ReaderKind = (typeof READER_KINDS)[number];

export interface ShelvedReader<R> {
  reader: R;
  /** `built-in`, or the path of the file it was added from. */
  source: string;
}

export interface AddedReader {
  kind: string;
  source: string;
  item: unknown;
}

/** The reader of `kind` in use among `added` (any kinds, in order), else `builtIn`. */
export function readerInUse<R>(kind: ReaderKind, added: readonly AddedReader[], builtIn: R): ShelvedReader<R> {
  const pick = added.find((a) => a.kind === kind);
  return pick ? { reader: pick.item as R, source: pick.source } : { reader: builtIn, source: 'built-in' };
}

export class ReaderShelf {
  private added: AddedReader[] = [];
  /** Goes up with every change (a session caching what a reader read knows to read again). */
  version = 0;

  /** Replaces the added readers of one kind (the worker always sends every kind's whole list). */
  replace(kind: ReaderKind, entries: readonly { item: unknown; source: string }[]): void {
    this.added = [...this.added.filter((a) => a.kind !== kind), ...entries.map((e) => ({ kind, source: e.source, item: e.item }))];
    this.version += 1;
  }

  /**
   * The built-in readers the worker hands every page with the packs (lib/worker/packs.ts), which the kits that read
   * with them do not carry (the threads kit: its thread JSON and page readers, 2026-12-06).
   */
  private given: Partial<Record<ReaderKind, unknown>> = {};

  setBuiltIns(readers: Partial<Record<ReaderKind, unknown>>): void {
    this.given = { ...readers };
    this.version += 1;
  }

  /** The reader of `kind` in use: an added one, else the built-in the worker gave, else `builtIn`. */
  pick<R>(kind: ReaderKind, builtIn: R): ShelvedReader<R> {
    return readerInUse(kind, this.added, (this.given[kind] as R | undefined) ?? builtIn);
  }
}
