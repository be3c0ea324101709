/**
 * Limits every process applies to what it accepts, so hostile or broken input is refused with an
 * answer instead of exhausting a stack or the memory of the process that handles it.
 */

/**
 * How deep request params may nest. Our own methods need fewer than ten levels; serialising
 * ten thousand levels overflows V8's stack (JSON.stringify recurses), so the host refuses
 * anything deeper than this before it tries.
 */
export const MAX_PARAMS_DEPTH = 64;

/**
 * The longest prompt a tool takes, in characters (comet_ask, call_perplexity_computer): the tools and the extension's
 * methods hold the same limit, so a longer one is refused by the tool that was called, naming its own field.
 */
export const PROMPT_MAX = 100_000;

/** The most of an interaction's words the page's watch and the side panel carry: a confirm_action may quote a whole email. */
export const INTERACTION_TEXT_MAX = 10_000;

/** True when `value` nests arrays/objects more than `max` levels deep. Iterative: never recurses. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
