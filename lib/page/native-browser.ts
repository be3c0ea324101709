/**
 * `wxt/browser` for the content script only (wxt.config.ts points its build here): Chromium's own
 * extension API instead of webextension-polyfill, the same choice WXT's `wxt/browser` makes without
 * the polyfill module. The page script uses nothing but `runtime.connect` and its port (WXT's
 * wrapper reads `runtime.id`), which behave the same either way, and the polyfill would be about
 * 3 kB gzip of the 20 kB every Perplexity page carries. The worker and the panel keep the polyfill.
 */
type Api = { runtime?: { id?: string } };
const scope = globalThis as unknown as { browser?: Api; chrome?: Api };

export const browser = scope.browser?.runtime?.id ? scope.browser : scope.chrome;
