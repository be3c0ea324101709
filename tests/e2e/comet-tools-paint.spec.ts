import { defineCometToolSuite } from './comet-tools.suite';

// The comet_* suite on the paint-only path: the sim's answers come without the page's own ask stream (issue 30:
// every other comet_* suite streams), so every status and answer is read from the page and the thread JSON, as
// for a turn asked before the tap was there or loaded with the page.
defineCometToolSuite('B', 'en', undefined, { askStream: false });
// And on the layout of the live site since Sep 2026 (its question drawn by the answer's renderer, its turns in blocks):
// what the page path reads there is what a person's tab reads when no stream was seen.
defineCometToolSuite('B', 'en', 'sessions-2026-09', { askStream: false });
