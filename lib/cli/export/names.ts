import { createHash } from 'node:crypto';
import { threadFileBase } from '../../protocol/library/file-name';

/**
 * The export's file names: lib/protocol/library/file-name.ts's date and title (shared with the side
 * panel), and, for two threads that would get the same name, the slug's hash (`…--3f9a2c1b`), lower-case
 * hex so that file systems which ignore case keep them apart too.
 */
export type ExportFormat = 'md' | 'json';

export { datePart, titlePart } from '../../protocol/library/file-name';
export const baseName = threadFileBase;

/** The base name made unique for `slug`: the same for the same slug, different for another slug. */
export function disambiguated(base: string, slug: string): string {
  return `${base}--${createHash('sha256').update(slug).digest('hex').slice(0, 8)}`;
}

export function fileName(base: string, format: ExportFormat): string {
  return `${base}.${format}`;
}
