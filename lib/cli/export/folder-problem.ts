import { RelayError } from '../../protocol/errors';

/**
 * A write that failed for a reason every other thread's write would meet too (the disk is full, the
 * quota used up, the file system read-only, no permission to create a file in the folder). Fetching
 * the rest of the library would cost the site a request per thread for nothing written, so such an
 * error ends the run at once, saying which folder and what to do. A failure of one file only (a file
 * another program holds open, which Windows refuses to replace: EPERM/EACCES from the rename) stays
 * that thread's failure.
 */
export class FolderProblem extends RelayError {
  constructor(message: string) {
    super('CONFIG_ERROR', message);
  }
}

const RERUN = 'then run the same command again: it goes on where this run stopped';

/** The run-ending problem `error` is for the export folder `dir`, or undefined when it concerns one file only. */
export function folderProblem(error: unknown, dir: string): FolderProblem | undefined {
  if (error instanceof FolderProblem) return error;
  const e = error as NodeJS.ErrnoException | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === 'ENOSPC') return new FolderProblem(`Cannot write in ${dir}: the disk is full (ENOSPC). Free some space there or pass a folder on another disk with --out DIR, ${RERUN}.`);
  if (code === 'EDQUOT') return new FolderProblem(`Cannot write in ${dir}: your disk quota is used up (EDQUOT). Free some space or pass a folder on another disk with --out DIR, ${RERUN}.`);
  if (code === 'EROFS') return new FolderProblem(`Cannot write in ${dir}: it is on a read-only file system (EROFS). Pass a folder on a writable disk with --out DIR, ${RERUN}.`);
  // Creating a new file (a temporary file, the journal) is refused only for the folder as a whole.
  if ((code === 'EACCES' || code === 'EPERM') && e?.syscall === 'open') {
    return new FolderProblem(`Cannot create files in ${dir}: permission denied (${code}). Make the folder writable for you or pass another with --out DIR, ${RERUN}.`);
  }
  return undefined;
}
