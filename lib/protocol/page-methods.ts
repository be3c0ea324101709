/**
 * Methods that run in the content script of the Perplexity tab (reader and actions).
 * Filled in with issue 3; methods.ts merges this map into the full method table.
 */
export const pageMethods = {} as const;
