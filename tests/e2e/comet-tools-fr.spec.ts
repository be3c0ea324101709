import { defineCometToolSuite } from './comet-tools.suite';

// The comet_* suite on pages whose labels are in French: the selector sets find their way by test
// ids, icons and structure, and by the words of each language (lib/selectors/words.ts) as a last resort.
defineCometToolSuite('A', 'fr');
defineCometToolSuite('B', 'fr');
