/**
 * Title and visible body text of a page, for comet_get_page_content. Self-contained (no imports,
 * no closures) because the worker also injects it with scripting.executeScript into tabs that
 * have no content script of ours.
 */
export function extractVisibleText(maxLength: number): { title: string; text: string; totalLength: number; truncated: boolean } {
  // innerText of the live body skips scripts, styles and hidden elements and keeps line breaks.
  const raw = document.body ? document.body.innerText : '';
  const text = raw.replace(/\n{3,}/g, '\n\n').trim();
  return {
    title: document.title,
    text: text.length > maxLength ? text.slice(0, maxLength) : text,
    totalLength: text.length,
    truncated: text.length > maxLength,
  };
}
