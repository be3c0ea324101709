import { defineCometToolSuite } from './comet-tools.suite';

// The comet_* suite on the paint-only path: the sim's answers come without the page's own ask stream (issue 30:
// every other comet_* suite streams), so every status and answer is read from the page and the thread JSON, as
// for a turn asked before the tap was there or loaded with the page.
defineCometToolSuite('B', 'en', undefined, { askStream: false });
