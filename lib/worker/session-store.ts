import { browser } from './ext';

/**
 * A value kept in browser.storage.session: it outlives a restarted service worker and goes with
 * the browser session. Saves are coalesced to one write per task.
 */
export interface SessionValue<T> {
  load(): Promise<unknown>;
  save(value: T): Promise<void>;
}

export function sessionValue<T>(key: string): SessionValue<T> {
  return {
    load: async () => (await browser.storage.session.get(key))[key],
    save: (value) => browser.storage.session.set({ [key]: value }),
  };
}

/** Calls `save(read())` once after a burst of changes. */
export function coalescedSaver<T>(store: SessionValue<T>, read: () => T): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      void store.save(read()).catch(() => {});
    });
  };
}
