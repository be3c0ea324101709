import { cut } from '../../protocol/text/clip';
import { callerName } from '../../protocol/doors';
import type { ActivityEntry } from '../../protocol/panel';
import type { CallEvent } from '../calls/router';
import { coalescedSaver } from '../browser/session-store';

/**
 * The side panel's feed of MCP tool calls, kept for this browser session (bounded). It is saved to
 * browser.storage.session shortly after changes (debounced), so a restarted service worker shows the
 * same feed; calls that were running when the worker stopped are marked as interrupted.
 */
const MAX_ENTRIES = 200;

/**
 * A call that had started and not ended when the worker stopped was cut with it (the host and the held approvals went
 * with the native port): the feed's entry and the thread card whose state that call showed say so in these words, one
 * rule for both (review 15f, F4).
 */
export const INTERRUPTED = 'Interrupted: the extension restarted during the call.';
const MAX_TEXT = 300;

export interface ActivityStore {
  load(): Promise<unknown>;
  save(entries: ActivityEntry[]): Promise<void>;
}

function clip(text: string | undefined, max = MAX_TEXT): string | undefined {
  return text === undefined ? undefined : cut(text, max);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line about a successful call's result, for the feed (never the whole answer). */
export function resultSummary(method: string, result: unknown): string | undefined {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const length = (v: unknown) => (typeof v === 'string' ? v.length : 0);
  switch (method) {
    case 'page.ask':
      return 'prompt submitted';
    case 'page.wait':
    case 'page.poll':
      return `${String(r.status)}${length(r.response) ? ` · ${plural(Number(r.totalLength ?? length(r.response)), 'character')}` : ''}`;
    case 'page.mode':
      return r.mode ? `mode ${String(r.mode)}${r.changed === false ? ' (unchanged)' : ''}` : 'mode unknown';
    case 'page.stop':
      return typeof r.message === 'string' ? r.message : undefined;
    case 'page.sources':
      return Array.isArray(r.sources) ? plural(r.sources.length, 'source') : undefined;
    case 'page.conversations':
      return Array.isArray(r.conversations) ? plural(r.conversations.length, 'conversation') : undefined;
    case 'page.content':
      return typeof r.totalLength === 'number' ? plural(r.totalLength, 'character') : undefined;
    case 'tabs.list':
      return Array.isArray(r.tabs) ? plural(r.tabs.length, 'tab') : undefined;
    case 'tabs.capture':
      return typeof r.data === 'string' ? `${String(r.mimeType)}, ${Math.round((r.data.length * 3) / 4 / 1024)} kB` : undefined;
    case 'tabs.switch':
    case 'tabs.ensurePerplexity': {
      const tab = r.tab as { id?: string; title?: string } | undefined;
      return tab ? `tab ${tab.id}${tab.title ? ` · ${tab.title}` : ''}` : undefined;
    }
    case 'tabs.navigate':
      return typeof r.url === 'string' ? r.url : undefined;
    default:
      return undefined;
  }
}

export class ActivityLog {
  private list: ActivityEntry[] = [];
  private readonly save?: () => void;

  constructor(
    private readonly onChange: () => void,
    private readonly store?: ActivityStore,
  ) {
    if (store) this.save = coalescedSaver(store, () => this.list.slice());
  }

  /** Loads what an earlier run of the worker saved; entries recorded meanwhile stay on top. */
  async restore(now = Date.now()): Promise<void> {
    const saved = await this.store?.load().catch(() => undefined);
    if (!Array.isArray(saved)) return;
    const known = new Set(this.list.map((e) => e.id));
    const earlier = (saved as ActivityEntry[])
      .filter((e) => e && typeof e.id === 'string' && !known.has(e.id))
      .map((e) =>
        e.endedAt === undefined ? { ...e, endedAt: now, ok: false, error: INTERRUPTED } : e,
      );
    this.list = [...this.list, ...earlier].slice(0, MAX_ENTRIES);
    this.changed();
  }

  record(event: CallEvent): void {
    const { request } = event;
    if (!request.origin?.tool) return; // internal calls (status probes) are not agent activity
    if (event.phase === 'start') {
      this.list.unshift({
        id: request.id,
        clientId: request.origin.clientId || undefined,
        // The door's name for a public-door caller, whatever its client declared (lib/protocol/doors.ts).
        clientName: callerName(request.origin),
        tool: request.origin.tool,
        method: request.method,
        summary: clip(request.origin.summary, 200),
        startedAt: event.at,
      });
      if (this.list.length > MAX_ENTRIES) this.list.length = MAX_ENTRIES;
    } else {
      const entry = this.list.find((e) => e.id === request.id);
      if (!entry) return;
      entry.endedAt = event.at;
      entry.ok = event.ok;
      if (event.ok) entry.result = clip(resultSummary(request.method, event.result), 200);
      else entry.error = clip(event.error);
    }
    this.changed();
  }

  entries(): ActivityEntry[] {
    return this.list.slice();
  }

  clear(): void {
    this.list = [];
    this.changed();
  }

  private changed(): void {
    this.onChange();
    this.save?.();
  }
}
