import { browser } from 'wxt/browser';

/**
 * The few Chromium APIs webextension-polyfill does not cover (side panel, lastError on native
 * ports), typed just enough for our use.
 */
interface ChromeExtras {
  runtime: { lastError?: { message?: string } };
  sidePanel?: { setPanelBehavior(options: { openPanelOnActionClick: boolean }): Promise<void> };
}

export const chromeExtras = (globalThis as unknown as { chrome: ChromeExtras }).chrome;

export function lastErrorMessage(): string | undefined {
  return chromeExtras?.runtime?.lastError?.message;
}

export { browser };
