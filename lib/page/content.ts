import type { PageContext } from './context';
import { renderText } from './text';

export interface PageContent {
  title: string;
  text: string;
  totalLength: number;
  truncated: boolean;
}

/** comet_get_page_content: title and visible body text, without scripts, styles or hidden parts. */
export function pageContent(ctx: PageContext, maxLength = 10000): PageContent {
  const body = ctx.doc.body;
  const text = body ? renderText(body, { skip: [], markdown: false, computedVisibility: true }) : '';
  const truncated = text.length > maxLength;
  return { title: ctx.doc.title, text: truncated ? text.slice(0, maxLength) : text, totalLength: text.length, truncated };
}
