import { PAGE_PORT, PANEL_PORT } from '../../protocol/ports';
import { isPerplexityHost } from '../../protocol/urls';

/**
 * Who may open which runtime port. A port's name is chosen by whoever connects, so it proves
 * nothing; the browser-filled sender does. The panel port controls the person's settings and
 * approvals: only the extension's own pages may hold it (never a content script, which runs inside
 * a web page, nor another extension). The page port speaks for a Perplexity tab: only our content
 * script in the top frame of an https perplexity.ai page.
 */
export type PortRole = 'page' | 'panel';

/** The fields of `Runtime.MessageSender` the decision needs. */
export interface PortSender {
  id?: string;
  url?: string;
  frameId?: number;
  tab?: { id?: number };
}

export interface Self {
  /** `runtime.id` */
  id: string;
  /** `runtime.getURL('')`, e.g. `chrome-extension://<id>/` */
  origin: string;
}

function parse(url: string | undefined): URL | null {
  try {
    return url ? new URL(url) : null;
  } catch {
    return null;
  }
}

function isExtensionPage(sender: PortSender, self: Self): boolean {
  const url = parse(sender.url);
  const own = parse(self.origin);
  // Compared by scheme and host: `origin` is "null" for chrome-extension: URLs outside the browser.
  return url !== null && own !== null && url.protocol === own.protocol && url.host === own.host && url.host !== '';
}

function isPerplexityContentScript(sender: PortSender): boolean {
  const url = parse(sender.url);
  return (
    sender.tab?.id !== undefined &&
    (sender.frameId ?? 0) === 0 &&
    url !== null &&
    url.protocol === 'https:' &&
    isPerplexityHost(url.hostname)
  );
}

/** The role a port may take, or null when it must be disconnected. */
export function admitPort(name: string, sender: PortSender | undefined, self: Self): PortRole | null {
  if (!sender || sender.id !== self.id) return null;
  if (name === PANEL_PORT) return isExtensionPage(sender, self) ? 'panel' : null;
  if (name === PAGE_PORT) return isPerplexityContentScript(sender) ? 'page' : null;
  return null;
}
