/**
 * The element inside a chip that opens its popover, for a selector set that names none (`citationTrigger`): Radix's
 * trigger, the `[data-state]` span inside the chip's outer `[data-pplx-citation-url]` span in Aug–Sep 2026 (its pill
 * styles itself `group-data-[state=open]/trigger`; answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html,
 * search-thread-several-turns-…-2026-09-26.html). An event on the outer span never reaches it (review 13a, C1, of
 * 2026-12-06). In February the trigger wraps the chip, so an event on the chip reaches it: none inside, the chip
 * itself. A module of its own, outside the sets, so that only the sources kit carries it (the page script has no room).
 */
export const CITATION_TRIGGER_2026: readonly string[] = ['[data-state]'];
