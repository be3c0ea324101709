/** Moved to lib/page/dom/json-path.ts (the ask stream's reader uses it too, from a room below this one). */
export * from '../dom/json-path';
