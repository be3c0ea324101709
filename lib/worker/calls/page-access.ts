import { classifyPageAccess, type PageAccessObservation, type PageAccessWords, pageAccessWords } from '../../protocol/page-access';
import type { HostForm } from '../../protocol/identity';
import { PAGE_KIT_HOOK } from '../../protocol/page/page-kits';
import { isPerplexityUrl, perplexityMatchOf } from '../../protocol/urls';
import { browser } from '../browser/ext';

/**
 * Asks the browser why a Perplexity tab has no page script (lib/protocol/page-access.ts has the
 * classification and the words), and keeps the last answer for the side panel, the toolbar icon and
 * `browser.status` (doctor). A tab whose page script connects clears it.
 */
export async function observePageAccess(tabId: number): Promise<PageAccessObservation> {
  const tab = await browser.tabs.get(tabId).catch(() => undefined);
  const onPerplexity = isPerplexityUrl(tab?.url ?? '');
  // Site access is granted per origin: what decides is the grant for the origin this tab is on, not
  // both origins at once (www granted alone is a working grant for a tab on www).
  const origin = perplexityMatchOf(tab?.url ?? '');
  const siteAccess = origin ? await browser.permissions.contains({ origins: [origin] }).catch(() => undefined) : undefined;
  const base = {
    ...(siteAccess === undefined ? {} : { siteAccess }),
    ...(origin ? { origin } : {}),
    onPerplexity,
    ...(tab?.status ? { tabStatus: tab.status } : {}),
  };
  if (!onPerplexity) return { ...base, probe: { ok: false, error: 'the tab is not on perplexity.ai yet' } };
  // A renderer that runs no injected script (a dialog open in it, a hung page) never answers: asked for a while only, so
  // that neither the panel's state nor comet_connect and doctor wait on it for ever (review 13b, R13b-8).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const unanswered = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the tab ran no script within ${PROBE_MS / 1000} s (a dialog open in it, or the page busy)`)), PROBE_MS);
  });
  try {
    const injected = browser.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      // Runs in our isolated world, where the page script offers its kit hook: the hook's presence
      // says the page script is there.
      func: (hook: string) => ({ readyState: document.readyState, pageScript: hook in globalThis }),
      args: [PAGE_KIT_HOOK],
    });
    const [injection] = await Promise.race([injected, unanswered]);
    const result = injection?.result as { readyState?: unknown; pageScript?: unknown } | undefined;
    if (typeof result?.readyState !== 'string') return { ...base, probe: { ok: false, error: 'the script in the tab returned nothing' } };
    return { ...base, probe: { ok: true, readyState: result.readyState, pageScript: result.pageScript === true } };
  } catch (error) {
    return { ...base, probe: { ok: false, error: error instanceof Error ? error.message : String(error) } };
  } finally {
    clearTimeout(timer);
  }
}

/** How long the browser is asked whether a script runs in the tab (observePageAccess). */
const PROBE_MS = 3000;

/** How long one answer stands for the same tab: a panel push does not re-ask the browser every time. */
const FRESH_MS = 1000;

export class PageAccessWatch {
  private report: PageAccessWords | null = null;
  private checkedAt = 0;

  constructor(
    private readonly browserName: () => Promise<string>,
    private readonly onChange: () => void,
    private readonly observe: (tabId: number) => Promise<PageAccessObservation> = observePageAccess,
    private readonly now: () => number = Date.now,
    /** The host's command form (NativeLink's `form`), for the commands the words name. */
    private readonly form: () => HostForm | undefined = () => undefined,
  ) {}

  current(): PageAccessWords | null {
    return this.report;
  }

  /** Asks the browser about `tabId` (a tab without a page script) and keeps the words. */
  async check(tabId: number, waitedMs?: number): Promise<PageAccessWords> {
    if (this.report?.tabId === String(tabId) && waitedMs === undefined && this.now() - this.checkedAt < FRESH_MS) return this.report;
    const connections = this.connections;
    const verdict = classifyPageAccess(await this.observe(tabId));
    const words = pageAccessWords(verdict, { browserName: await this.browserName(), form: this.form(), tabId, ...(waitedMs === undefined ? {} : { waitedMs }) });
    // A page script connected while the browser was asked: that answer is older than the evidence.
    if (connections !== this.connections) return words;
    this.checkedAt = this.now();
    this.set(words);
    return words;
  }

  /**
   * A page script connected in a Perplexity tab, any tab: the browser lets comet-relay in, so no
   * tab's fault stands for the toolbar (review of 2026-12-04, #19: it kept another tab's red
   * "Blocked" while agents worked). A tab still without its script is asked about again when a call waits on it.
   */
  connected(_tabId: number): void {
    this.connections++;
    if (this.report) this.set(null);
  }

  /** The words' context changed (the host named its command form): says the last problem again in it. */
  async retell(): Promise<void> {
    const tabId = this.report?.tabId;
    if (tabId === undefined) return;
    this.checkedAt = 0;
    await this.check(Number(tabId));
  }

  /** The tab went away: its problem is over. */
  clear(tabId?: number): void {
    if (!this.report || (tabId !== undefined && this.report.tabId !== String(tabId))) return;
    this.set(null);
  }

  private connections = 0;

  private set(next: PageAccessWords | null): void {
    // The state moved, or what to do did (the host's command form arrived), not merely its words (a
    // wait's "after N ms"): a push would ask again.
    const changed = next?.state !== this.report?.state || next?.tabId !== this.report?.tabId || next?.fix !== this.report?.fix;
    this.report = next;
    if (changed) this.onChange();
  }
}
