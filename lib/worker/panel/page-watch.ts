import { RelayError } from '../../protocol/errors';
import type { ModeView } from '../../protocol/panel';
import { PageMode } from '../../protocol/page/page-methods';
import { parseWatchSnapshot, type WatchSnapshot } from '../../protocol/watch';

/**
 * Live page state for the side panel. While at least one panel is open, one `page.watch` request
 * stays open to the driven Perplexity tab and streams snapshots; when the last panel closes, or
 * the driven tab changes, it is cancelled (and the page drops its observer). Nothing is polled.
 */
export interface WatchDeps {
  /** The driven tab if its page script is connected, else undefined. */
  watchableTab(): Promise<number | undefined>;
  request(tabId: number, signal: AbortSignal, onProgress: (message: string) => void): Promise<unknown>;
  onSnapshot(tabId: number, snapshot: WatchSnapshot): void;
  /** The watch ended (tab closed, reloaded, panels gone). */
  onEnd(tabId: number): void;
}

export class PageWatch {
  private current?: { tabId: number; controller: AbortController };
  private wanted = false;
  private refreshing = Promise.resolve();

  constructor(private readonly deps: WatchDeps) {}

  get tabId(): number | undefined {
    return this.current?.tabId;
  }

  /** Whether any panel is open; watches run only then. */
  setWanted(wanted: boolean): void {
    this.wanted = wanted;
    this.refresh();
  }

  /** Re-evaluates which tab to watch (call on page connect/disconnect and tab changes). */
  refresh(): void {
    this.refreshing = this.refreshing.then(() => this.reconcile()).catch(() => {});
  }

  private async reconcile(): Promise<void> {
    const target = this.wanted ? await this.deps.watchableTab().catch(() => undefined) : undefined;
    if (this.current?.tabId === target) return;
    this.stop();
    if (target === undefined) return;
    const controller = new AbortController();
    const watch = { tabId: target, controller };
    this.current = watch;
    this.deps
      .request(target, controller.signal, (message) => {
        const snapshot = parseWatchSnapshot(message);
        if (snapshot && this.current === watch) this.deps.onSnapshot(target, snapshot);
      })
      .catch(() => {})
      .finally(() => {
        if (this.current !== watch) return;
        this.current = undefined;
        this.deps.onEnd(target);
      });
  }

  private stop(): void {
    const old = this.current;
    if (!old) return;
    this.current = undefined;
    old.controller.abort();
    this.deps.onEnd(old.tabId);
  }
}

/** A tab and the document its page script runs in (PageHub.document): what a mode read is true of. */
export interface ModePlace {
  tabId: number;
  page: object | undefined;
}

function samePlace(a: ModePlace | undefined, b: ModePlace | undefined): boolean {
  return a !== undefined && b !== undefined && a.page !== undefined && a.tabId === b.tabId && a.page === b.page;
}

/**
 * What the panel's mode control shows: the mode the page shows (watch snapshots), else the last
 * page.mode answer for this page load (an agent's or the panel's), plus a switch in flight. A mode
 * is shown only for the tab and page load it was read on (review 15f, F7).
 */
export class ModeState {
  private current: ModeView['current'] = null;
  /** Where `current` was read. */
  private seenOn?: ModePlace;
  private detail?: string;
  private switching?: ModeView['switching'];
  private error?: string;

  view(): ModeView {
    return {
      current: this.current,
      ...(this.detail && !this.current ? { detail: this.detail } : {}),
      ...(this.switching ? { switching: this.switching } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** The view for the page `here` shows: a mode read on another tab, or an earlier load of it, is not its mode. */
  viewAt(here: ModePlace | undefined): ModeView {
    const view = this.view();
    return view.current && !samePlace(this.seenOn, here) ? { ...view, current: null } : view;
  }

  /** A new page (load or reload) or another tab: what was known no longer holds. */
  reset(): void {
    this.current = null;
    this.seenOn = undefined;
    this.detail = undefined;
    this.error = undefined;
  }

  /**
   * What the page shows. A page that shows no mode leaves the last answer of a page.mode call (an
   * agent's comet_mode, a panel switch) in place; without one, the panel says why it does not know.
   * The panel never asks the page itself: on generation A that means typing "/" into the composer.
   */
  fromSnapshot(snapshot: WatchSnapshot, where?: ModePlace): void {
    // A mode read on another tab or page load says nothing of this one.
    if (this.current && !samePlace(this.seenOn, where)) this.current = null;
    if (snapshot.mode) {
      this.current = snapshot.mode;
      this.seenOn = where;
      this.detail = undefined;
    } else if (!this.current) {
      this.detail = 'the page does not show it where it can be read without typing into the composer or opening a menu (comet_mode reads it, or choose one here)';
    }
  }

  switchStarted(mode: string): void {
    const parsed = PageMode.safeParse(mode);
    this.switching = parsed.success ? parsed.data : undefined;
    this.error = undefined;
  }

  /** The answer of any page.mode call, read or switch. */
  fromResult(result: unknown, where: ModePlace | undefined): void {
    const r = (result ?? {}) as { mode?: unknown; detail?: unknown };
    const mode = PageMode.safeParse(r.mode);
    if (mode.success) {
      this.current = mode.data;
      this.seenOn = where;
      this.detail = undefined;
    } else if (!this.current && typeof r.detail === 'string') {
      this.detail = r.detail;
    }
    this.switching = undefined;
  }

  /** A switch that ended without an answer the panel shows: an agent's, whose failure its feed entry tells. */
  switchEnded(): void {
    this.switching = undefined;
  }

  switchFailed(error: unknown): void {
    const e = RelayError.from(error);
    this.switching = undefined;
    this.error = `[${e.code}] ${e.message}`;
  }
}
