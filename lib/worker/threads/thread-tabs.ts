import { RelayError } from '../../protocol/errors';
import { showsThread, taskIdOf } from '../../protocol/threads/thread-ids';
import { checkPerplexityUrl } from '../../protocol/urls';

/**
 * The tabs threads live in. Each thread has its own tab, opened in the background so the person's
 * focus and tabs are never disturbed, and found again by its URL after any restart. Tabs we opened
 * are remembered (in storage.local, so a restarted worker or a reloaded extension keeps them; a new
 * browser session owns none, since its tab ids name other tabs) and capped: the least recently used
 * idle one is closed first. A tab we did not open is never closed.
 *
 * A tab of ours becomes the person's when they switch to it and stay on it for ADOPT_AFTER_MS.
 * An activation alone is not the person's choice: Chromium activates a neighbour when the person
 * closes a tab, and a person cycling through tabs passes ours on the way; had either made the tab
 * theirs for good, the cap would never close it and every acting call would open yet another.
 */

/** How long the person stays on a tab of ours before it is theirs. */
export const ADOPT_AFTER_MS = 10_000;
/** An activation this soon after a tab of the same window closed is Chromium picking a neighbour. */
const NEIGHBOUR_MS = 1000;

export interface TabLike {
  id?: number;
  url?: string;
  pendingUrl?: string;
  active?: boolean;
  /** Chromium unloaded it (Memory Saver) or froze it: no page script runs until it is loaded again. */
  discarded?: boolean;
  frozen?: boolean;
}

/** The browser calls this module needs (chrome.tabs and storage.session in the worker; fakes in tests). */
export interface TabsApi {
  query(): Promise<TabLike[]>;
  get(tabId: number): Promise<TabLike | undefined>;
  /** Opens a tab in the background (active: false). */
  create(url: string): Promise<TabLike>;
  remove(tabId: number): Promise<void>;
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface OwnedTab {
  tabId: number;
  /** The thread it shows, once known. */
  threadId?: string;
  lastUsed: number;
}

/** A call's hold on a tab (ThreadTabs.hold): busy, so never closed by the cap, until released. */
export interface Lease {
  readonly tabId: number;
  /** Lets the tab go; a second call does nothing. */
  release(): void;
}

export class ThreadTabs {
  private owned = new Map<number, OwnedTab>();
  private readonly busy = new Map<number, number>();
  private readonly acts = new Map<string, Promise<unknown>>();
  private readonly restored: Promise<void>;
  private readonly adopting = new Map<number, ReturnType<typeof setTimeout>>();
  private readonly closedAt = new Map<number, number>();
  /** The browser started a new session: what is stored names tabs of the last one. */
  private freshSession = false;

  constructor(
    private readonly tabs: TabsApi,
    private readonly now: () => number = Date.now,
  ) {
    this.restored = this.restore();
  }

  private async restore(): Promise<void> {
    const saved = await this.tabs.load().catch(() => undefined);
    if (!Array.isArray(saved) || this.freshSession) return;
    const open = new Map((await this.tabs.query()).map((t) => [t.id, t]));
    for (const t of saved as OwnedTab[]) {
      const tab = typeof t?.tabId === 'number' ? open.get(t.tabId) : undefined;
      const url = tab?.url ?? tab?.pendingUrl ?? '';
      // A tab id that now shows another page (the person navigated it away) is not ours.
      const same = t.threadId ? showsThread(url, t.threadId) : checkPerplexityUrl(url).ok;
      if (tab && same && !this.freshSession && !this.owned.has(t.tabId)) {
        this.owned.set(t.tabId, t);
        this.fromStore.add(t.tabId);
      }
    }
  }

  /**
   * The browser started (runtime.onStartup): no stored tab is ours. Tabs opened since this worker
   * started stay ours: Chromium may deliver onStartup after the first call opened one.
   */
  newBrowserSession(): void {
    this.freshSession = true;
    for (const id of this.fromStore) this.owned.delete(id);
    this.fromStore.clear();
    this.persist();
  }

  private readonly fromStore = new Set<number>();

  private persist(): void {
    void this.tabs.save([...this.owned.values()]).catch(() => {});
  }

  isOwned(tabId: number): boolean {
    return this.owned.has(tabId);
  }

  ownedTabs(): OwnedTab[] {
    return [...this.owned.values()];
  }

  /** The tab was closed (in `windowId`, when known). */
  forgetTab(tabId: number, windowId?: number): void {
    if (windowId !== undefined) this.closedAt.set(windowId, this.now());
    if (this.owned.delete(tabId)) this.persist();
    this.busy.delete(tabId);
    this.stopAdopting(tabId);
  }

  /**
   * A tab became active in `windowId`. One of ours becomes the person's if it is still the active
   * tab ADOPT_AFTER_MS later, unless Chromium activated it because its neighbour closed.
   */
  activated(tabId: number, windowId: number): void {
    if (!this.owned.has(tabId)) return;
    const closed = this.closedAt.get(windowId);
    if (closed !== undefined && this.now() - closed < NEIGHBOUR_MS) return;
    this.stopAdopting(tabId);
    this.adopting.set(
      tabId,
      setTimeout(() => {
        this.adopting.delete(tabId);
        void this.tabs.get(tabId).then((tab) => {
          if (tab?.active) this.adoptedByPerson(tabId);
        });
      }, ADOPT_AFTER_MS),
    );
  }

  private stopAdopting(tabId: number): void {
    const timer = this.adopting.get(tabId);
    if (timer !== undefined) clearTimeout(timer);
    this.adopting.delete(tabId);
  }

  /** The person stayed on one of our tabs: it is theirs now, never closed by the cap. */
  adoptedByPerson(tabId: number): void {
    if (this.owned.delete(tabId)) this.persist();
  }

  /**
   * Holds the tab for a call until release(): the cap never closes a held tab. A call holds its tab from when it has it
   * to its end, since between its requests (the page loading, a mode switch, a policy check) it is under no use(), and
   * the cap closed it there under its caller (review 15a, F1).
   */
  hold(tabId: number): Lease {
    this.busy.set(tabId, (this.busy.get(tabId) ?? 0) + 1);
    let held = true;
    return {
      tabId,
      release: () => {
        if (!held) return;
        held = false;
        const n = (this.busy.get(tabId) ?? 1) - 1;
        if (n > 0) this.busy.set(tabId, n);
        else this.busy.delete(tabId);
      },
    };
  }

  /** Marks the tab busy for the duration of `fn` (busy tabs are never closed by the cap). */
  async use<T>(tabId: number, fn: () => Promise<T>): Promise<T> {
    const lease = this.hold(tabId);
    const owned = this.owned.get(tabId);
    if (owned) owned.lastUsed = this.now();
    try {
      return await fn();
    } finally {
      lease.release();
      const after = this.owned.get(tabId);
      // Only ours are saved: a read through the person's tab changes nothing worth a storage write.
      if (after) {
        after.lastUsed = this.now();
        this.persist();
      }
    }
  }

  /**
   * Calls that change a thread (send, answer) run one at a time per thread; a read waits for an
   * acting call in progress, so it sees what that call did, but reads never wait for each other.
   */
  async serialise<T>(threadId: string, acts: boolean, fn: () => Promise<T>): Promise<T> {
    // One queue for a task under any of its slugs (its id stays: review 14b, F1).
    const key = taskIdOf(threadId) ?? threadId;
    const before = this.acts.get(key) ?? Promise.resolve();
    if (!acts) {
      await before.catch(() => {});
      return fn();
    }
    const run = before.catch(() => {}).then(fn);
    const tail = run.catch(() => {});
    this.acts.set(key, tail);
    void tail.then(() => {
      if (this.acts.get(key) === tail) this.acts.delete(key);
    });
    return run;
  }

  /** Open tabs that show the thread, ours first (the browser knows no "last used" for the person's). */
  async showing(threadId: string): Promise<TabLike[]> {
    await this.restored;
    const tabs = (await this.tabs.query()).filter((t) => t.id !== undefined && showsThread(t.url ?? t.pendingUrl, threadId));
    return tabs.sort((a, b) => Number(this.isOwned(b.id as number)) - Number(this.isOwned(a.id as number)));
  }

  /** Makes room for one more tab of ours: closes the least recently used idle one while at the cap. */
  private async makeRoom(cap: number): Promise<void> {
    const live = new Set((await this.tabs.query()).map((t) => t.id));
    for (const id of [...this.owned.keys()]) if (!live.has(id)) this.owned.delete(id);
    while (this.owned.size >= cap) {
      const idle = [...this.owned.values()].filter((t) => !this.busy.has(t.tabId)).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) {
        throw new RelayError(
          'AGENT_ERROR',
          `All ${this.owned.size} thread tabs are busy (COMET_THREAD_TABS is ${cap}); wait for a call to finish, or raise COMET_THREAD_TABS.`,
        );
      }
      this.owned.delete(idle.tabId);
      await this.tabs.remove(idle.tabId).catch(() => {});
    }
  }

  /**
   * Opens `url` in a new background tab of ours, within the cap: a perplexity.ai page, nothing else. The tab comes held
   * (from the moment it is ours, so no other open can close it first): the caller releases it when done with it.
   */
  async open(url: string, cap: number, threadId?: string): Promise<Lease> {
    const check = checkPerplexityUrl(url);
    if (!check.ok) throw new RelayError('INVALID_URL', `comet-relay opens thread tabs on perplexity.ai only, and ${url} is not one: ${check.reason}.`);
    // One open at a time: the cap's count and makeRoom's list of live tabs hold only while no other
    // open is between its query and its create (concurrent opens overshot the cap, and a stale
    // query dropped a just-opened tab from ours, so nothing ever closed it).
    const run = this.opening.catch(() => {}).then(() => this.openNow(url, cap, threadId));
    this.opening = run;
    return run;
  }

  private opening: Promise<unknown> = Promise.resolve();

  private async openNow(url: string, cap: number, threadId?: string): Promise<Lease> {
    await this.restored;
    await this.makeRoom(cap);
    const tab = await this.tabs.create(url);
    if (tab.id === undefined) throw new RelayError('TAB_NOT_FOUND', 'The browser gave the new thread tab no id.');
    this.owned.set(tab.id, { tabId: tab.id, ...(threadId ? { threadId } : {}), lastUsed: this.now() });
    this.persist();
    return this.hold(tab.id);
  }

  /** Records which thread a tab of ours now shows (after a start). */
  assign(tabId: number, threadId: string): void {
    const owned = this.owned.get(tabId);
    if (!owned) return;
    owned.threadId = threadId;
    this.persist();
  }

  /** Closes a tab of ours (a start that never made a thread). Never closes anyone else's tab. */
  async discard(tabId: number): Promise<void> {
    if (!this.owned.delete(tabId)) return;
    this.persist();
    await this.tabs.remove(tabId).catch(() => {});
  }
}
