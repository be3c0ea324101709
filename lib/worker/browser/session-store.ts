import { browser } from './ext';

/**
 * A value kept in browser.storage.session: it outlives a restarted service worker and goes with
 * the browser session. Saves are debounced: writing the whole feed on every call cost 40–100 ms
 * per tool call once it held 200 entries (npm run bench, row b).
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

/** The same, in browser.storage.local: it outlives the browser too (what must hold after a restart or an update). */
export function localValue<T>(key: string): SessionValue<T> {
  return {
    load: async () => (await browser.storage.local.get(key))[key],
    save: (value) => browser.storage.local.set({ [key]: value }),
  };
}

/** How long changes gather before one write; a worker evicted meanwhile loses at most this much. */
export const SAVE_DELAY_MS = 1000;

/** Calls `save(read())` once, SAVE_DELAY_MS after the first of a burst of changes. */
export function coalescedSaver<T>(store: SessionValue<T>, read: () => T, delayMs = SAVE_DELAY_MS): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      void store.save(read()).catch(() => {});
    }, delayMs);
  };
}
