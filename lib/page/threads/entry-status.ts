import { firstString } from '../../selectors/language/json-path';
import type { ThreadJsonReader } from '../../selectors/thread-schema';

/**
 * What a thread JSON entry says of its own turn, by the reader's values (lib/selectors/thread-json.ts), from positive
 * evidence only (review 2026-12-05, worker #4): finished when its workflow says complete or, an entry with no workflow
 * (the `ask_text` layout), when its status is one the reader knows as finished; stopped or failed when its workflow
 * says so; running when its status or an unfinished workflow says so. An entry whose status is absent or one the
 * reader does not know says nothing (`unknown`): never "finished" for want of a running status.
 */
export type EntryStatus = 'complete' | 'running' | 'cancelled' | 'error' | 'unknown';

export function entryStatus(entry: unknown, r: ThreadJsonReader): EntryStatus {
  const status = firstString(entry, r.entry.status);
  const workflow = firstString(entry, r.entry.workflowStatus);
  const w = r.values.workflow;
  if (workflow !== undefined && w.cancelled.includes(workflow)) return 'cancelled';
  if (workflow !== undefined && w.error.includes(workflow)) return 'error';
  if (status !== undefined && r.values.entryRunning.includes(status)) return 'running';
  if (workflow !== undefined) return w.complete.includes(workflow) ? 'complete' : 'running';
  return status !== undefined && (r.values.entryComplete ?? []).includes(status) ? 'complete' : 'unknown';
}
