import type { Tabs } from 'webextension-polyfill';
import { RelayError } from '../../protocol/errors';
import type { TabInfo } from '../../protocol/methods';
import { categorizeTab, checkPerplexityUrl, NEVER_DRIVEN, NO_PERPLEXITY_TAB_OPEN, PERPLEXITY_HOME, samePage } from '../../protocol/urls';
import { browser } from '../browser/ext';
import type { PageHub } from './pages';

/**
 * Which tab the relay drives, and the tab operations of the comet_* tools. The driven tab is kept
 * in session storage so a restarted service worker keeps driving the same tab.
 */
const DRIVEN_KEY = 'drivenTabId';
/** How long a tab just brought forward may take to paint before the capture goes on without its word. */
const PRESENT_LIMIT_MS = 1_000;
/** The pause instead, for a page that cannot be asked: about two frames at a slow refresh rate and then some. */
const PRESENT_FALLBACK_MS = 120;

export function toTabInfo(tab: Tabs.Tab): TabInfo {
  const url = tab.url ?? tab.pendingUrl ?? '';
  return {
    id: String(tab.id),
    windowId: tab.windowId ?? -1,
    title: tab.title ?? '',
    url,
    active: Boolean(tab.active),
    category: categorizeTab(url),
  };
}

export class TabService {
  private driven?: number;

  /** `isThreadTab`: tabs the thread family opened, which the comet_* tools never pick. */
  constructor(
    private readonly pages: PageHub,
    private readonly isThreadTab: (tabId: number) => boolean = () => false,
  ) {}

  async restore(): Promise<void> {
    const stored = await browser.storage.session.get(DRIVEN_KEY);
    const id = stored[DRIVEN_KEY];
    if (typeof id === 'number') this.driven = id;
  }

  async list(): Promise<TabInfo[]> {
    const tabs = await browser.tabs.query({});
    return tabs.filter((tab) => tab.id !== undefined).map(toTabInfo);
  }

  async drive(tabId: number): Promise<void> {
    this.driven = tabId;
    await browser.storage.session.set({ [DRIVEN_KEY]: tabId });
  }

  /** The driven tab if it still exists, else the best Perplexity tab (which then becomes driven). */
  async drivenTab(): Promise<Tabs.Tab | undefined> {
    if (this.driven !== undefined) {
      const tab = await browser.tabs.get(this.driven).catch(() => undefined);
      if (tab) return tab;
    }
    const candidate = await this.bestPerplexityTab();
    if (candidate?.id !== undefined) await this.drive(candidate.id);
    return candidate;
  }

  /**
   * The driven tab as its own page script describes it, when that script is connected: the tab
   * exists (its port would have closed) and its URL is the one the script last reported (it
   * reports every SPA navigation; a full one replaces the script). Saves asking the browser for
   * the tab on every call: ~0.5 ms of a 4 ms comet_poll round trip (bench profile, 2026-12-01).
   */
  connectedDrivenTab(): { id: number; url: string } | undefined {
    if (this.driven === undefined) return undefined;
    const page = this.pages.state(this.driven);
    return page ? { id: this.driven, url: page.url } : undefined;
  }

  /** The tab a page call goes to: the driven tab, which must be a Perplexity page with our script. */
  async pageTab(timeoutMs = 5000): Promise<number> {
    const connected = this.connectedDrivenTab();
    if (connected && categorizeTab(connected.url) === 'Main') return connected.id;
    const tab = await this.drivenTab();
    if (tab?.id === undefined || categorizeTab(tab.url ?? '') !== 'Main') {
      throw noPerplexityTab(tab);
    }
    await this.pages.whenReady(tab.id, timeoutMs);
    return tab.id;
  }

  async ensurePerplexity(timeoutMs: number): Promise<{ tab: TabInfo; created: boolean }> {
    let tab = await this.drivenTab();
    let created = false;
    if (!tab || categorizeTab(tab.url ?? '') !== 'Main') tab = await this.bestPerplexityTab();
    if (!tab) {
      tab = await browser.tabs.create({ url: PERPLEXITY_HOME, active: true });
      created = true;
    }
    if (tab.id === undefined) throw new RelayError('TAB_NOT_FOUND', 'The browser gave the Perplexity tab no id.');
    await this.drive(tab.id);
    await this.pages.whenReady(tab.id, timeoutMs);
    const fresh = await browser.tabs.get(tab.id);
    return { tab: toTabInfo(fresh), created };
  }

  async switchTo(tabId: string): Promise<TabInfo> {
    const id = Number(tabId);
    const tab = Number.isInteger(id) ? await browser.tabs.get(id).catch(() => undefined) : undefined;
    if (!tab || tab.id === undefined) throw new RelayError('TAB_NOT_FOUND', `Tab not found matching ID "${tabId}"`);
    const category = categorizeTab(tab.url ?? tab.pendingUrl ?? '');
    const what = NEVER_DRIVEN[category];
    if (what) throw new RelayError('INVALID_PARAMS', `Tab ${tab.id} is ${what} (${category} in comet_list_tabs), where page tools do not act, so it was not switched to. ${PICK_MAIN}`);
    await browser.tabs.update(tab.id, { active: true });
    if (tab.windowId !== undefined) await browser.windows.update(tab.windowId, { focused: true }).catch(() => {});
    await this.drive(tab.id);
    return toTabInfo(await browser.tabs.get(tab.id));
  }

  /**
   * Loads `url` in the driven Perplexity tab and resolves once its page script is ready again.
   * The worker is the trust boundary: whatever the caller checked, the URL is checked here again
   * (any process on the host socket can send this request).
   */
  /** Opens `rawUrl` in the driven tab, or in `onTab` when the caller found its tab already (a prompt's new chat). */
  async navigate(rawUrl: string, timeoutMs = 20_000, signal?: AbortSignal, onTab?: number): Promise<string> {
    const checked = checkPerplexityUrl(rawUrl);
    if (!checked.ok) {
      throw new RelayError(
        'INVALID_URL',
        `The extension only opens https pages on perplexity.ai in the Perplexity tab; "${rawUrl.slice(0, 200)}" is refused because ${checked.reason}.`,
      );
    }
    const url = checked.url;
    // A tab is readied only where the browser shows no Perplexity tab at all: page tools set to another page are said
    // so, never moved to the tab the person used last, whose conversation nobody named (review 15d, F1).
    const tabId =
      onTab ??
      (await this.pageTab().catch(async (error: unknown) => {
        if (!(error instanceof RelayError && error.message === NO_PERPLEXITY_TAB_OPEN)) throw error;
        return Number((await this.ensurePerplexity(timeoutMs)).tab.id);
      }));
    // Finding the tab can take seconds: a caller gone meanwhile moves nobody's tab (review of 2026-12-02, #21).
    if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before the tab was navigated; it was left where it was.');
    const current = await browser.tabs.get(tabId).catch(() => undefined);
    const before = current?.url;
    // A tab the caller named is taken only while it shows Perplexity, and is not on its way elsewhere: a page the person
    // opened there is theirs (fixes review 3 #2, 4 #5).
    const showing = current?.pendingUrl ?? before;
    if (onTab !== undefined && categorizeTab(showing ?? '') !== 'Main') {
      throw new RelayError('AGENT_ERROR', `Tab ${tabId} no longer shows Perplexity (${showing ?? 'it is gone'}), so it was not navigated. Call again to use the Perplexity tab there is now.`);
    }
    const takeBack = this.pages.forget(tabId);
    await browser.tabs.update(tabId, { url });
    try {
      await this.pages.whenReady(tabId, timeoutMs, signal);
    } catch (error) {
      // The page that was there may still be there (the navigation never replaced it): know it again.
      takeBack();
      const now = (await browser.tabs.get(tabId).catch(() => undefined))?.url;
      if (this.pages.state(tabId) && before && now && samePage(now, before) && !samePage(before, url)) {
        throw new RelayError(
          'TIMEOUT',
          `The tab did not leave ${before} for ${url} (the page may have asked to stay, or the address gave no page); it is still driven there. Call again, or open the conversation yourself.`,
        );
      }
      throw error;
    }
    return url;
  }

  /**
   * A screenshot of `tab` (the tab the call resolved) even when another tab is in front: bring it forward for the
   * capture, then give the window back to the tab the person was looking at. `captureVisibleTab` takes whatever
   * the window shows, so two captures at once in one window could return the person's other tab as this one (review
   * of 2026-12-02, #2): captures are serialised per window, the frame is awaited after the switch (#28), and the
   * window is checked to show this tab at this page both before and after, or nothing is returned.
   */
  capture(tab: Tabs.Tab | undefined, format: 'png' | 'jpeg', quality?: number, signal?: AbortSignal): Promise<{ data: string; mimeType: string }> {
    if (tab?.id === undefined || tab.windowId === undefined) {
      return Promise.reject(new RelayError('NO_PERPLEXITY_TAB', 'There is no tab to capture. Call comet_connect first.'));
    }
    const { id, windowId } = tab;
    const url = tab.url ?? '';
    const previous = this.captures.get(windowId) ?? Promise.resolve();
    // A caller gone while it waited behind another capture takes nothing over: no tab brought forward for nobody (review
    // 10, crash F3).
    const mine = previous
      .catch(() => {})
      .then(() => {
        if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
        return this.captureNow(id, windowId, url, format, quality, signal);
      });
    const settled: Promise<void> = mine.then(
      () => undefined,
      () => undefined,
    );
    this.captures.set(windowId, settled);
    void settled.then(() => {
      if (this.captures.get(windowId) === settled) this.captures.delete(windowId);
    });
    return mine;
  }

  private readonly captures = new Map<number, Promise<void>>();

  private async captureNow(tabId: number, windowId: number, url: string, format: 'png' | 'jpeg', quality?: number, signal?: AbortSignal): Promise<{ data: string; mimeType: string }> {
    const [front] = await browser.tabs.query({ active: true, windowId });
    if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled.');
    const swap = front?.id !== undefined && front.id !== tabId;
    try {
      if (swap) {
        await browser.tabs.update(tabId, { active: true });
        await this.presented(tabId);
      }
      await this.showing(tabId, windowId, url);
      let dataUrl: string;
      try {
        dataUrl = await browser.tabs.captureVisibleTab(windowId, { format, quality });
      } catch (error) {
        throw new RelayError('EVALUATION_FAILED', `The browser refused the screenshot: ${(error as Error).message}`);
      }
      // The person may have switched tabs during the capture: then the image may be of their tab, not ours.
      await this.showing(tabId, windowId, url);
      const comma = dataUrl.indexOf(',');
      return { data: dataUrl.slice(comma + 1), mimeType: format === 'png' ? 'image/png' : 'image/jpeg' };
    } finally {
      if (swap && front?.id !== undefined) await browser.tabs.update(front.id, { active: true }).catch(() => {});
    }
  }

  /** The window shows this tab, at the page the call resolved; else nothing is captured or returned. */
  private async showing(tabId: number, windowId: number, url: string): Promise<void> {
    const [front] = await browser.tabs.query({ active: true, windowId });
    if (front?.id === tabId && (!url || samePage(front.url ?? '', url))) return;
    throw new RelayError(
      'TAB_NOT_FOUND',
      `The window stopped showing the tab to capture (it shows ${front?.url || 'another tab'}), so no screenshot was returned: it could have been of another page. Call comet_screenshot again.`,
    );
  }

  /**
   * Waits until the tab just brought forward has drawn a frame: right after the switch, the window can still
   * hold the previous tab's frame. Two animation frames in the page are the page having painted since; a page
   * the extension may not script (another extension's, a blocked site) gets a fixed pause instead.
   */
  private async presented(tabId: number): Promise<void> {
    const painted = browser.scripting
      .executeScript({ target: { tabId }, func: () => new Promise<boolean>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))) })
      .then(() => true)
      .catch(() => false);
    const limit = new Promise<boolean>((done) => setTimeout(() => done(false), PRESENT_LIMIT_MS));
    if (!(await Promise.race([painted, limit]))) await new Promise((done) => setTimeout(done, PRESENT_FALLBACK_MS));
  }

  private async bestPerplexityTab(): Promise<Tabs.Tab | undefined> {
    const tabs = (await browser.tabs.query({})).filter(
      (tab) => categorizeTab(tab.url ?? '') === 'Main' && (tab.id === undefined || !this.isThreadTab(tab.id)),
    );
    const withScript = tabs.filter((tab) => tab.id !== undefined && this.pages.state(tab.id));
    const pool = withScript.length > 0 ? withScript : tabs;
    return pool.find((tab) => tab.active) ?? pool.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0];
  }
}

const PICK_MAIN = 'Call comet_switch_tab with a tab comet_list_tabs lists under Main, or comet_connect (it picks a Perplexity tab, or opens one).';

/**
 * A page call with no Perplexity tab to go to: said before anything runs (an approval card included). A driven tab that
 * is not one (switched to with the grant, or the person went elsewhere in it) is named: a Perplexity tab may well be open.
 * No other Perplexity tab is taken in its place: a prompt or a stop would land in a conversation nobody named (review
 * 15b, F2).
 * A site's URL is not said: without the grant it is the person's to keep.
 */
export function noPerplexityTab(driven?: Tabs.Tab): RelayError {
  const category = driven?.id === undefined ? undefined : categorizeTab(driven.url ?? driven.pendingUrl ?? '');
  if (category === undefined || category === 'Main') {
    return new RelayError('NO_PERPLEXITY_TAB', NO_PERPLEXITY_TAB_OPEN);
  }
  const what = NEVER_DRIVEN[category];
  const is = what ? `${what} (${category} in comet_list_tabs): they do not act there` : 'not a Perplexity page';
  return new RelayError('NO_PERPLEXITY_TAB', `Page tools are set to tab ${driven?.id}, which is ${is}. ${PICK_MAIN}`);
}
