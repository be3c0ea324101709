import type { PacksApply } from '../../lib/protocol/ports';
import { ReaderShelf } from '../../lib/selectors/reader-shelf';
import { PackStore } from '../../lib/worker/packs';

/**
 * A page script's reader shelf as the worker leaves it when the page connects: the built-in readers the kits do not
 * carry, given with the packs (lib/worker/packs.ts), and no pack added.
 */
export function givenReaders(): ReaderShelf {
  const shelf = new ReaderShelf();
  const event = new PackStore({ broadcast() {}, onChange() {} }).message() as { data: PacksApply };
  shelf.setBuiltIns(event.data.readers ?? {});
  return shelf;
}
