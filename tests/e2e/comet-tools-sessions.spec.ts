import { defineCometToolSuite } from './comet-tools.suite';

/**
 * The comet_* suite on the simulated Sep–Oct 2026 layout (tests/sim/README.md, `sessions-2026-09`): the
 * question block starting with the time and Edit/Copy query, the steps header and the action row inside
 * the answer block. Generation B's composer, whose stop control takes Submit's place while an answer is
 * written; once more with dictation on, its "Stop dictation" carrying the same icon beside it.
 */
defineCometToolSuite('B', 'en', 'sessions-2026-09');
defineCometToolSuite('B', 'en', 'sessions-2026-09', { dictation: true });
