import type { PageContext } from '../dom/context';
import { mathOf, renderText } from '../dom/text';

export interface PageContent {
  title: string;
  text: string;
  totalLength: number;
  truncated: boolean;
}

/** comet_get_page_content: the page's whole title and visible body text, without scripts, styles or hidden parts; cutContent cuts it. */
/**
 * The page's links to Perplexity's own conversations (the sidebar's, the library's), relative as the site writes them or
 * absolute: the paths of lib/protocol/threads/thread-ids.ts's CONVERSATION_PATH. Not the set's `conversationLink`,
 * which matches `/search/` anywhere in a URL (an arXiv search, GitHub's Copilot docs cited in an answer: day-7h K1).
 */
const OWN_CONVERSATION_LINKS = ['/search/', '/copilot/', '/computer/tasks/'].flatMap((path) =>
  ['', 'https://www.perplexity.ai', 'https://perplexity.ai'].map((origin) => `a[href^="${origin}${path}"]`),
);

export function wholePageContent(ctx: PageContext, library = true): { title: string; text: string } {
  const body = ctx.doc.body;
  // Without the library (the public door, its setting off): the sidebar (the set's regions outside the thread: its
  // rows hold a thread's title beside an empty link, 2026-09-27 capture; day-7i I1) and any other link to a conversation.
  const skip = library ? [] : [...ctx.set.outsideThread, ...OWN_CONVERSATION_LINKS];
  return { title: ctx.doc.title, text: body ? renderText(body, { skip, markdown: false, computedVisibility: true, math: mathOf(ctx.set) }) : '' };
}

export function cutContent({ title, text }: { title: string; text: string }, maxLength = 10000): PageContent {
  const truncated = text.length > maxLength;
  return { title, text: truncated ? text.slice(0, maxLength) : text, totalLength: text.length, truncated };
}
