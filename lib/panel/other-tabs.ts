import { browser } from 'wxt/browser';
import { OTHER_TABS_ORIGINS } from '../protocol/urls';

/**
 * The person's grant of access to tabs that are not Perplexity. Only a page of the extension can ask
 * for it, and only from a click (the browser then asks the person to confirm); the worker learns
 * of the change through permissions.onAdded / onRemoved and pushes the new state.
 */
export async function allowOtherTabs(): Promise<void> {
  const granted = await browser.permissions.request({ origins: [...OTHER_TABS_ORIGINS] });
  if (!granted) throw new Error('The browser did not grant access to other tabs (the request was declined).');
}

export async function withdrawOtherTabs(): Promise<void> {
  await browser.permissions.remove({ origins: [...OTHER_TABS_ORIGINS] });
}
