import type { PageContext } from '../dom/context';
import { mathOf, renderText } from '../dom/text';

export interface PageContent {
  title: string;
  text: string;
  totalLength: number;
  truncated: boolean;
}

/** comet_get_page_content: the page's whole title and visible body text, without scripts, styles or hidden parts; cutContent cuts it. */
export function wholePageContent(ctx: PageContext, library = true): { title: string; text: string } {
  const body = ctx.doc.body;
  // Without the library (the public door, its setting off): the conversation links (the sidebar's thread titles) left out.
  const skip = library ? [] : ctx.set.conversationLink;
  return { title: ctx.doc.title, text: body ? renderText(body, { skip, markdown: false, computedVisibility: true, math: mathOf(ctx.set) }) : '' };
}

export function cutContent({ title, text }: { title: string; text: string }, maxLength = 10000): PageContent {
  const truncated = text.length > maxLength;
  return { title, text: truncated ? text.slice(0, maxLength) : text, totalLength: text.length, truncated };
}
