import type { ExportedThread } from './library';
import { frontMatter, threadMarkdown } from './markdown';

/**
 * A thread's file name, the same for `comet-relay export` and the side panel's *Export as Markdown*:
 * its creation date and its title, safe on every file system (letters, marks and digits of any
 * script, `-` between words, no leading dot, at most 100 bytes of UTF-8 for the title), e.g.
 * `2026-02-21-why-is-the-sky-blue`. The same thread gives the same name on every run.
 */
const MAX_TITLE_BYTES = 100;
const encoder = new TextEncoder();

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
  let bytes = 0;
  for (const char of words) {
    bytes += encoder.encode(char).length;
    if (bytes > MAX_TITLE_BYTES) break;
    out += char;
  }
  return out.replace(/-+$/, '') || 'untitled';
}

/** The name without its extension: date, then title (the last activity's date when the creation date is unknown). */
export function threadFileBase(thread: { title: string; created: string | null; lastActivity?: string | null }): string {
  return `${datePart(thread.created ?? thread.lastActivity)}-${titlePart(thread.title)}`;
}

/** A thread as a Markdown file: YAML front matter, a blank line, then the one rendering (markdown.ts). */
export function markdownDocument(thread: ExportedThread): string {
  return `${frontMatter(thread)}\n${threadMarkdown(thread)}`;
}
