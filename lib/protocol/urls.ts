/** URL rules shared by every runtime: what counts as Perplexity, and how tabs are categorised. */

export const PERPLEXITY_MATCHES = ['https://www.perplexity.ai/*', 'https://perplexity.ai/*'];

/**
 * The one of PERPLEXITY_MATCHES a page at `rawUrl` is under (the origin the browser grants site access
 * for), or undefined. Site access is granted per origin: "On specific sites" with https://www.perplexity.ai,
 * or allowing it from the toolbar icon on the page, grants www alone (review of 2026-12-04, #5).
 */
export function perplexityMatchOf(rawUrl: string): string | undefined {
  try {
    const url = new URL(rawUrl);
    const match = `${url.protocol}//${url.hostname.toLowerCase()}/*`;
    return url.port === '' && PERPLEXITY_MATCHES.includes(match) ? match : undefined;
  } catch {
    return undefined;
  }
}
export const PERPLEXITY_HOME = 'https://www.perplexity.ai/';
/**
 * A page call's error when the browser has no Perplexity tab at all (not when the driven tab is another page): comet_ask
 * opens one then and asks again, as the reference's comet_ask does, and only then (review 15b, F1 and F2).
 */
export const NO_PERPLEXITY_TAB_OPEN = 'No Perplexity tab is open in this browser. Call comet_connect (it opens one) or open https://www.perplexity.ai/.';
/**
 * The optional host permission the person grants from the side panel (TAB_ACCESS_GRANT): any
 * screenshot, the Perplexity tab's included (Chromium's captureVisibleTab wants access to every
 * site), and reading tabs that are not Perplexity.
 */
export const OTHER_TABS_ORIGINS = ['<all_urls>'];

/** That grant's name, named for both things it allows: the panel's button, refusals, doctor and tool texts say it so. */
export const TAB_ACCESS_GRANT = 'Let agents take screenshots and read other tabs';
export const TAB_ACCESS_WITHDRAW = 'Stop agents taking screenshots and reading other tabs';

/**
 * The only paths a Perplexity tab POSTs to for comet-relay: a fixed list endpoint under /rest/ (no id in
 * it; `list_…`, a read), the library's thread list today (lib/selectors/library/library-json.ts). A
 * reader added as a file can move the list, never make the tab POST to an endpoint that changes anything.
 */
export const LIBRARY_POST_PATH = /^\/rest\/[a-z_]+\/list_[a-z_]+$/;

/** True for perplexity.ai and its subdomains, compared on the parsed, punycode-normalised hostname. */
export function isPerplexityHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'perplexity.ai' || host.endsWith('.perplexity.ai');
}

/** An https page on perplexity.ai or a subdomain: where our content script runs. */
export function isPerplexityUrl(rawUrl: string): boolean {
  try {
    const url = new URL(rawUrl);
    return url.protocol === 'https:' && isPerplexityHost(url.hostname);
  } catch {
    return false;
  }
}

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The only URLs a navigation tool may open: https, a perplexity.ai host, no credentials, default port.
 * Parsing with WHATWG URL normalises encoded dots, IDN and case before the host is compared.
 */
export function checkPerplexityUrl(input: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reason: 'it is not an absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `its scheme is "${url.protocol}", not "https:"` };
  if (url.username || url.password) return { ok: false, reason: 'it carries a user name or password' };
  if (url.port !== '') return { ok: false, reason: `it names port ${url.port}` };
  // Parsers disagree on encoded or dotted hosts; the page script only runs on the plain origin.
  const authority = /^\s*https:\/\/([^/?#\\]*)/i.exec(input)?.[1] ?? '';
  if (authority.includes('%')) return { ok: false, reason: 'its host is percent-encoded' };
  if (url.hostname.endsWith('.')) return { ok: false, reason: `its host "${url.hostname}" ends with a dot` };
  if (!isPerplexityHost(url.hostname)) return { ok: false, reason: `its host "${url.hostname}" is not perplexity.ai` };
  return { ok: true, url: url.href };
}

/**
 * The query parameters Perplexity may run as a prompt when an address is opened. `q` is the one the site is added
 * under as a browser search engine (`https://www.perplexity.ai/search?q=%s`), and third-party code opens it to
 * submit a prompt (review of 2026-12-04, #3: `perplexity_link(url, prompt)`; Complexity handles `?q=&model=&focus=`).
 * No capture shows which others the site honours, so every name of that kind counts (fail closed), in any case.
 */
export const PROMPT_PARAMS: readonly string[] = ['q', 'query', 'prompt', 'question', 'text', 'message'];

/**
 * The prompt an address on perplexity.ai would submit when opened (its prompt parameters' words, joined), or
 * undefined when it carries none. Opening such an address sends a prompt as `page.ask` does (lib/protocol/access.ts).
 */
export function promptInUrl(rawUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return undefined;
  }
  if (!isPerplexityHost(url.hostname)) return undefined;
  const words = [...url.searchParams]
    .filter(([name, value]) => PROMPT_PARAMS.includes(name.toLowerCase()) && value.trim() !== '')
    .map(([, value]) => value);
  return words.length > 0 ? words.join('\n') : undefined;
}

/**
 * What a tab is to us. Comet has Perplexity tabs that are not the app a person asks in: its assistant
 * pane (`/sidecar`) and its new-tab page (`/b/home`); the sites its agent browses are every other web
 * tab. Only Main tabs are driven. Sources (2026-12-02): public Comet automation scripts open
 * https://www.perplexity.ai/sidecar?copilot=true as the assistant; a public Comet Playwright helper
 * (scripts/browser.py) notes "Comet's Perplexity sidecar injects tabs (perplexity.ai/sidecar,
 * perplexity.ai/b/home)" and filters them out of the tab it drives.
 */
export type TabCategory = 'Main' | 'Sidecar' | 'New Tab' | 'Agent Browsing' | 'Overlay' | 'Other';
export const TAB_CATEGORY_ORDER: TabCategory[] = ['Main', 'Sidecar', 'New Tab', 'Agent Browsing', 'Overlay', 'Other'];
/**
 * The Perplexity pages that are listed and never driven, each with what it is: comet_switch_tab refuses them and says
 * so in these words (review 15b, F2: it drove them, and every page tool then said no Perplexity tab was open).
 */
export const NEVER_DRIVEN: Partial<Record<TabCategory, string>> = { Sidecar: "Comet's assistant pane", 'New Tab': "Comet's new-tab page" };

/** Categories as the comet_* reference defines them, decided by URL alone. */
export function categorizeTab(rawUrl: string): TabCategory {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'Other';
  }
  if (url.protocol === 'https:' || url.protocol === 'http:') {
    if (isPerplexityHost(url.hostname)) return isSidecarPath(url.pathname) ? 'Sidecar' : isCometNewTabPath(url.pathname) ? 'New Tab' : 'Main';
    return 'Agent Browsing';
  }
  if (url.protocol === 'chrome-extension:') return 'Overlay';
  return 'Other';
}

/**
 * The non-empty segments of a URL path. Every rule below compares whole segments: a word that merely
 * appears in a URL (a thread titled "how sidecars work", a query, a fragment) never changes what a page is.
 */
export function pathSegments(pathname: string): string[] {
  return pathname.split('/').filter((segment) => segment !== '');
}

/** Comet's sidecar (assistant pane): `/sidecar` and everything under it, nothing else. */
export function isSidecarPath(pathname: string): boolean {
  return pathSegments(pathname)[0] === 'sidecar';
}

/** Comet's new-tab page, `/b/home` (and what is under it): Comet opens it in every new tab; nobody asks there through us. */
export function isCometNewTabPath(pathname: string): boolean {
  const [first, second] = pathSegments(pathname);
  return first === 'b' && second === 'home';
}

/**
 * The browser's extensions page, named the way that browser spells it (the browser's name as its
 * host reports it: `Comet`, `Brave`, `Edge`, else Chrome's). Every message that sends a person there uses this.
 */
export function extensionsPage(browserName?: string): string {
  const name = (browserName ?? '').toLowerCase();
  if (name.includes('comet')) return 'comet://extensions';
  if (name.includes('brave')) return 'brave://extensions';
  if (name.includes('edge')) return 'edge://extensions';
  return 'chrome://extensions';
}

/** A computer task (`/computer/tasks/{id}`) or a copilot thread (`/copilot/{slug}`): the page is in computer mode. */
export function isComputerPath(pathname: string): boolean {
  const [first, second, third] = pathSegments(pathname);
  return (first === 'computer' && second === 'tasks' && third !== undefined) || (first === 'copilot' && second !== undefined);
}

/** A Perplexity page where a conversation is open (as opposed to home, library, settings…). */
export function isConversationPath(pathname: string): boolean {
  const [first, second] = pathSegments(pathname);
  return (first === 'search' && second !== undefined) || isComputerPath(pathname);
}

/** origin + path: the identity of a conversation (query and hash vary). */
export function conversationKey(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return url;
  }
}

/** The same page: origin, path and query (a fragment moves within a page). */
export function samePage(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.origin === y.origin && x.pathname === y.pathname && x.search === y.search;
  } catch {
    return false;
  }
}

/**
 * A page's kind without whose page it is, for words meant to be shared: `https://www.perplexity.ai/search/…`.
 * A thread's slug is its first question (review 2026-12-04 #16: an exported repair pack named the thread).
 */
export function pageKindOf(url: string): string {
  try {
    const u = new URL(url);
    const segments = pathSegments(u.pathname);
    const [first, second] = segments;
    const kind = first === 'computer' && second ? `/${first}/${second}` : first ? `/${first}` : '';
    const more = segments.length > kind.split('/').length - 1 ? '/…' : '';
    return `${u.origin}${kind}${more || (kind ? '' : '/')}`;
  } catch {
    return 'a Perplexity page';
  }
}
