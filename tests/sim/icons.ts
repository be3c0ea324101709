/**
 * The page's SVG sprite. Perplexity draws icons as `<svg><use xlink:href="#pplx-icon-NAME">`; the names
 * are what readers key on (locale-independent), the drawings here are only rough look-alikes.
 */
const S = 'stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" fill="none"';

const ICONS: Record<string, string> = {
  telescope: `<path ${S} d="M4 14l12-6 2 4-12 6zM10 17l-2 5M12 16l2 6M18 7l2-1 1 3-2 1"/>`,
  gavel: `<path ${S} d="M13 4l7 7M10 7l7 7M11.5 5.5l-6 6 4 4 6-6M7.5 13.5L3 18l3 3 4.5-4.5M14 21h7"/>`,
  'custom-computer': `<path ${S} d="M3 5h18v11H3zM8 20h8M12 16v4M9 9l-2 2 2 2M15 9l2 2-2 2"/>`,
  book: `<path ${S} d="M4 4h6a2 2 0 0 1 2 2v14a2 2 0 0 0-2-2H4zM20 4h-6a2 2 0 0 0-2 2v14a2 2 0 0 1 2-2h6z"/>`,
  'file-check': `<path ${S} d="M14 3H6v18h12V7zM14 3v4h4M9 14l2 2 4-4"/>`,
  click: `<path ${S} d="M9 9l11 4-5 2-2 5zM4 4l2 2M10 2v3M2 10h3"/>`,
  search: `<circle ${S} cx="11" cy="11" r="7"/><path ${S} d="M20 20l-4-4"/>`,
  cpu: `<path ${S} d="M7 7h10v10H7zM10 10h4v4h-4zM10 3v4M14 3v4M10 17v4M14 17v4M3 10h4M3 14h4M17 10h4M17 14h4"/>`,
  check: `<path ${S} d="M5 12l5 5L20 7"/>`,
  sparkles: `<path ${S} d="M12 3l2 5 5 2-5 2-2 5-2-5-5-2 5-2zM19 15l1 2 2 1-2 1-1 2-1-2-2-1 2-1z"/>`,
  list: `<path ${S} d="M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01"/>`,
  'file-text': `<path ${S} d="M14 3H6v18h12V7zM14 3v4h4M9 13h6M9 17h6"/>`,
  download: `<path ${S} d="M12 4v11M7 10l5 5 5-5M5 20h14"/>`,
  'circle-check': `<circle ${S} cx="12" cy="12" r="9"/><path ${S} d="M8 12l3 3 5-6"/>`,
  blocks: `<path ${S} d="M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z"/>`,
  'world-search': `<circle ${S} cx="10" cy="10" r="7"/><path ${S} d="M3 10h14M10 3c3 3 3 11 0 14M10 3c-3 3-3 11 0 14M20 20l-4-4"/>`,
  bolt: `<path ${S} d="M13 2L4 14h7l-1 8 9-12h-7z"/>`,
  copy: `<path ${S} d="M8 8h12v12H8zM4 16V4h12"/>`,
  'player-stop': `<rect ${S} x="6" y="6" width="12" height="12" rx="2"/>`,
  'thumb-down': `<path ${S} d="M17 14V3M7 14l4 7a2 2 0 0 0 2-2v-4h5a2 2 0 0 0 2-2.3l-1.4-7A2 2 0 0 0 16.6 3H7z"/>`,
  'chevron-right': `<path ${S} d="M9 6l6 6-6 6"/>`,
  microphone: `<path ${S} d="M9 4a3 3 0 0 1 6 0v7a3 3 0 0 1-6 0zM5 11a7 7 0 0 0 14 0M12 18v3"/>`,
  'player-stop-filled': `<path fill="currentColor" d="M7 5h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2z"/>`,
  'arrow-up': `<path ${S} d="M12 19V5M5 12l7-7 7 7"/>`,
  paperclip: `<path ${S} d="M15 7l-6.5 6.5a2 2 0 0 0 3 3L18 10a4 4 0 0 0-6-6l-6.5 6.5a6 6 0 0 0 8.5 8.5L20 13"/>`,
  'chevron-down': `<path ${S} d="M6 9l6 6 6-6"/>`,
  x: `<path ${S} d="M6 6l12 12M18 6L6 18"/>`,
  plus: `<path ${S} d="M12 5v14M5 12h14"/>`,
  'custom-plus-large': `<path ${S} d="M12 4v16M4 12h16"/>`,
  home: `<path ${S} d="M3 11l9-8 9 8M5 10v10h14V10"/>`,
  compass: `<circle ${S} cx="12" cy="12" r="9"/><path ${S} d="M15 9l-2 4-4 2 2-4z"/>`,
  layers: `<path ${S} d="M12 3l9 5-9 5-9-5zM3 13l9 5 9-5"/>`,
  library: `<path ${S} d="M4 4v16M9 4v16M14 4l5 16"/>`,
  share: `<path ${S} d="M12 3v12M7 8l5-5 5 5M5 14v6h14v-6"/>`,
  'thumb-up': `<path ${S} d="M7 11v9H4v-9zM7 11l4-8a2 2 0 0 1 2 2v4h6l-2 11H7"/>`,
  dots: `<path ${S} d="M5 12h.01M12 12h.01M19 12h.01"/>`,
  rewrite: `<path ${S} d="M4 12a8 8 0 0 1 14-5l2 2M20 12a8 8 0 0 1-14 5l-2-2M20 4v5h-5M4 20v-5h5"/>`,
  slash: `<path ${S} d="M16 4L8 20"/>`,
  globe: `<circle ${S} cx="12" cy="12" r="9"/><path ${S} d="M3 12h18M12 3c3 3 3 15 0 18M12 3c-3 3-3 15 0 18"/>`,
  'alert-triangle': `<path ${S} d="M12 3l10 18H2zM12 10v5M12 18h.01"/>`,
  'message-question': `<path ${S} d="M4 4h16v12H9l-5 4zM10 8a2 2 0 1 1 3 1.7c-.6.4-1 .8-1 1.3M12 13.5h.01"/>`,
  'hand-stop': `<path ${S} d="M8 13V5a1.5 1.5 0 0 1 3 0v6M11 11V4a1.5 1.5 0 0 1 3 0v7M14 11V5a1.5 1.5 0 0 1 3 0v8a7 7 0 0 1-12 5l-2-4a1.5 1.5 0 0 1 2.5-1.5L8 15"/>`,
  // Computer tasks (client/task.ts)
  moon: `<path ${S} d="M20 14A8 8 0 1 1 10 4a6 6 0 0 0 10 10z"/>`,
  plug: `<path ${S} d="M9 3v5M15 3v5M6 8h12v3a6 6 0 0 1-12 0zM12 17v4"/>`,
  lock: `<path ${S} d="M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4"/>`,
  hourglass: `<path ${S} d="M6 3h12M6 21h12M7 3c0 6 10 6 10 9s-10 3-10 9M17 3c0 6-10 6-10 9"/>`,
  forms: `<path ${S} d="M5 4h14v16H5zM8 8h8M8 12h8M8 16h4"/>`,
  'credit-card': `<path ${S} d="M3 6h18v12H3zM3 10h18M7 15h3"/>`,
  photo: `<path ${S} d="M4 5h16v14H4zM4 16l5-5 4 4 3-3 4 4M15 9h.01"/>`,
  chart: `<path ${S} d="M4 20V10M10 20V4M16 20v-7M3 20h18"/>`,
  adjustments: `<path ${S} d="M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0M14 4v4M8 10v4M16 16v4"/>`,
  circle: `<circle ${S} cx="12" cy="12" r="8"/>`,
};

export function spriteHtml(): string {
  const symbols = Object.entries(ICONS)
    .map(([name, body]) => `<symbol id="pplx-icon-${name}" viewBox="0 0 24 24">${body}</symbol>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" style="display:none" aria-hidden="true">${symbols}</svg>`;
}
