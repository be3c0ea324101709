/**
 * Title and visible body text of a page, for comet_get_page_content. Self-contained (no imports,
 * no closures) because the worker also injects it with scripting.executeScript into tabs that
 * have no content script of ours.
 */
export function extractVisibleText(maxLength: number): { title: string; text: string; totalLength: number; truncated: boolean; url: string } {
  // innerText of the live body skips scripts, styles and hidden elements and keeps line breaks.
  const raw = document.body ? document.body.innerText : '';
  const text = raw.replace(/\n{3,}/g, '\n\n').trim();
  return {
    // The page this was read from, in the same instant: the worker checks it is the one it decided on.
    url: location.href,
    title: document.title,
    text: text.length > maxLength ? text.slice(0, maxLength) : text,
    totalLength: text.length,
    truncated: text.length > maxLength,
  };
}
