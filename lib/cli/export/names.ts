import { createHash } from 'node:crypto';

/**
 * A thread's file name: its creation date and its title, the same on every run, safe on every file
 * system (letters and digits of any script, `-` between words, no leading dot, at most 100 bytes of
 * UTF-8 before the extension), e.g. `2026-02-21-why-is-the-sky-blue.md`. Two threads that would get
 * the same name are told apart by the slug's hash (`…--3f9a2c1b.md`), lower-case hex so that file
 * systems which ignore case keep them apart too.
 */
export type ExportFormat = 'md' | 'json';

const MAX_TITLE_BYTES = 100;

/** `2026-02-21` from an ISO date; `undated` when there is none or it is not a date. */
export function datePart(iso: string | null | undefined): string {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(iso ?? '');
  return match ? (match[1] as string) : 'undated';
}

/** The title as words a file name can hold: lower case, `-` between them, cut on a character boundary. */
export function titlePart(title: string): string {
  const words = title
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  let out = '';
  for (const char of words) {
    if (Buffer.byteLength(out + char) > MAX_TITLE_BYTES) break;
    out += char;
  }
  return out.replace(/-+$/, '') || 'untitled';
}

export function baseName(thread: { title: string; created: string | null; lastActivity?: string | null }): string {
  return `${datePart(thread.created ?? thread.lastActivity)}-${titlePart(thread.title)}`;
}

/** The base name made unique for `slug`: the same for the same slug, different for another slug. */
export function disambiguated(base: string, slug: string): string {
  return `${base}--${createHash('sha256').update(slug).digest('hex').slice(0, 8)}`;
}

export function fileName(base: string, format: ExportFormat): string {
  return `${base}.${format}`;
}
