import { markdownDocument } from '../../protocol/library/file-name';
import type { ExportedThread } from '../../protocol/library/library';
import type { ExportFormat } from './names';

/**
 * A thread's file: Markdown opening with YAML front matter (the rendering comet_export_thread and the
 * MCP resources use, lib/protocol/library/markdown.ts), or the thread's JSON as the browser gave it.
 */
export function renderThread(thread: ExportedThread, format: ExportFormat): string {
  return format === 'json' ? `${JSON.stringify(thread, null, 2)}\n` : markdownDocument(thread);
}
