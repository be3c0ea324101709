/**
 * `wxt/utils/content-script-context` for the content scripts' build (wxt.config.ts points it here). WXT's wrapper
 * makes a ContentScriptContext and hands it to `main`; none of our content scripts takes it (their `main()` has no
 * parameter: tests/unit/reader-contract.test.ts holds it), so what it did (invalidation after an extension update,
 * a location watcher, a `window.postMessage` on every load telling older copies to stop) was ~0.8 kB gzip of the
 * 20 kB every Perplexity page runs, for nothing (2026-12-04). A `main(ctx)` using it would fail at start, loudly.
 */
export class ContentScriptContext {}
