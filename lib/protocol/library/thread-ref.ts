import { isThreadId, threadIdOfUrl } from '../threads/thread-ids';
import { PERPLEXITY_HOME } from '../urls';

/**
 * The one rule for naming a thread of the library: a slug as the site gives it (letters, digits,
 * `-`, `_`, `.`, `~`; the thread-id rule) or the https perplexity.ai URL of its page
 * (`/search/<slug>`, `/copilot/<slug>`, `/computer/tasks/<id>`; query and fragment ignored).
 * Anything else is null, so nothing a caller writes can reach another path of the site.
 */
export function threadSlugOf(input: string): string | null {
  const text = input.trim();
  if (isThreadId(text)) return text;
  return threadIdOfUrl(text) ?? null;
}

/** A search thread's page from its slug (the list gives slugs; Computer threads name their own URL). */
export function threadUrlOf(slug: string): string {
  return new URL(`/search/${encodeURIComponent(slug)}`, PERPLEXITY_HOME).href;
}

/** What a caller is told when a thread reference is neither (the tool, the resource and the CLI say it alike). */
export function threadRefProblem(input: string): string {
  const shown = input.length > 80 ? `${input.slice(0, 79)}…` : input;
  return `"${shown}" is not a Perplexity thread: pass its slug (the last part of its URL) or its https://www.perplexity.ai/search/… URL.`;
}
