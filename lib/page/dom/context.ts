import type { SelectorSet } from '../../selectors';

/**
 * Resolves with the probe's first truthy value, re-checked on every batch of page mutations
 * (never on a timer), or with null when timeoutMs passes. Rejects with CANCELLED on abort.
 */
export type WaitFor = <T>(
  probe: () => T | null | undefined | false,
  timeoutMs: number,
  signal?: AbortSignal,
) => Promise<T | null>;

/** What every reader/action needs: the page, the chosen selector set, and a way to wait. */
export interface PageContext {
  win: Window;
  doc: Document;
  set: SelectorSet;
  waitFor: WaitFor;
}
