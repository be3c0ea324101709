import type { SessionValue } from '../browser/session-store';
import { sameThreadId } from '../../protocol/threads/thread-ids';

/** Enough for a day of an agent's tasks; past it the oldest go, and reading them needs the library setting (fail closed). */
const MAX_THREADS = 500;

/**
 * The threads started through the public door (start_thread from the Agent API): there, those are the caller's own;
 * any other thread is the person's library (lib/protocol/access.ts `threadTarget`). Kept in storage.local, so a
 * restarted worker, browser or extension still knows them (day-2 review M2: a task outlives a restart, and its caller
 * was refused its own thread after one); a thread it forgot needs the person's library setting, never less.
 */
export class DoorThreads {
  private ids: string[] = [];

  constructor(private readonly store?: SessionValue<string[]>) {}

  async load(): Promise<void> {
    const saved = await this.store?.load().catch(() => undefined);
    if (Array.isArray(saved)) this.ids = [...saved.filter((id): id is string => typeof id === 'string'), ...this.ids].slice(-MAX_THREADS);
  }

  add(threadId: string): void {
    if (this.ids.includes(threadId)) return;
    this.ids = [...this.ids, threadId].slice(-MAX_THREADS);
    void this.store?.save(this.ids).catch(() => {});
  }

  has(threadId: unknown): boolean {
    return typeof threadId === 'string' && this.ids.some((id) => sameThreadId(id, threadId));
  }
}
