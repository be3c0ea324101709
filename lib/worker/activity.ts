import type { ActivityEntry } from '../protocol/panel';
import type { CallEvent } from './router';

/** The side panel's feed of MCP tool calls, kept for this browser session (bounded). */
const MAX_ENTRIES = 200;

export class ActivityLog {
  private readonly list: ActivityEntry[] = [];

  constructor(private readonly onChange: () => void) {}

  record(event: CallEvent): void {
    const { request } = event;
    if (!request.origin?.tool) return; // internal calls (status probes) are not agent activity
    if (event.phase === 'start') {
      this.list.unshift({
        id: request.id,
        clientName: request.origin.clientName,
        tool: request.origin.tool,
        method: request.method,
        summary: request.origin.summary,
        startedAt: event.at,
      });
      if (this.list.length > MAX_ENTRIES) this.list.length = MAX_ENTRIES;
    } else {
      const entry = this.list.find((e) => e.id === request.id);
      if (!entry) return;
      entry.endedAt = event.at;
      entry.ok = event.ok;
      entry.error = event.error;
    }
    this.onChange();
  }

  entries(): ActivityEntry[] {
    return this.list.slice();
  }

  clear(): void {
    this.list.length = 0;
    this.onChange();
  }
}
