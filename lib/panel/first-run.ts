import { browser } from 'wxt/browser';

/**
 * The side panel's first-run card, offered once: after the person grants what it offers or sets it
 * aside, it stays gone (browser.storage.local key `firstRunDone`). The Control card keeps the same
 * grant for later.
 */
const KEY = 'firstRunDone';

export async function firstRunDone(): Promise<boolean> {
  const stored = await browser.storage.local.get(KEY);
  return stored[KEY] === true;
}

export async function finishFirstRun(): Promise<void> {
  await browser.storage.local.set({ [KEY]: true });
}

/** Whether to show the card: not before storage answered, never again once done, not when the grant is already given. */
export function showFirstRun(done: boolean | undefined, allowed: boolean): boolean {
  return done === false && !allowed;
}
