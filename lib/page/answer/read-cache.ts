/**
 * The last full read of the page (comet_poll's snapshot, comet_get_page_content's text), served
 * again while the page has not changed since. Agents poll in bursts, and a read walks the thread
 * (page content: every element's computed style); an unchanged page needs none of that again.
 *
 * How a change is seen: once a read is kept, a MutationObserver on the whole document (every node,
 * text and attribute) marks everything kept stale on the page's first change and disconnects at
 * once, so it runs at most once per kept read. What changes a read without changing the DOM is
 * watched too while a read is kept: the URL (compared at every use), the viewport size, and
 * pointer, focus and animation events (they can change computed styles: :hover, :focus-within).
 * A read during which the page changed (or which changed it itself, unfolding steps) is not kept.
 * Without a read for IDLE_MS everything goes: no observer, listener or timer stays in the page
 * while nothing is asked.
 */
export const IDLE_MS = 1000;

/** Events that can change what a read sees without a DOM mutation. */
const STALE_EVENTS = ['resize', 'mouseover', 'mouseout', 'focusin', 'focusout', 'animationstart', 'animationend', 'transitionend'] as const;

interface Kept {
  value: unknown;
  url: string;
  /** What else the value depends on (the selector set in use). */
  basis: unknown;
}

export class ReadCache {
  private readonly kept = new Map<string, Kept>();
  private observer: MutationObserver | null = null;
  private idle?: ReturnType<typeof setTimeout>;
  /** Bumped by every change seen: a read that overlapped one is not kept. */
  private generation = 0;

  constructor(
    private readonly win: Window,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** True while something is kept (an observer is connected): for tests. */
  get watching(): boolean {
    return this.observer !== null;
  }

  /** The kept read of `key` when the page has not changed since and `basis` is the same; else `fresh()`, kept if the page held still. */
  async read<T>(key: string, basis: unknown, fresh: () => T | Promise<T>): Promise<T> {
    this.armIdle();
    // A change made in this same task has not reached the observer's callback yet.
    if (this.observer && this.observer.takeRecords().length > 0) this.stale();
    const url = this.win.location.href;
    const hit = this.kept.get(key);
    if (hit && hit.url === url && hit.basis === basis) return hit.value as T;
    this.watch();
    const generation = this.generation;
    const value = await fresh();
    // Records of changes made during the read are still queued: take them now, synchronously.
    if (this.observer && this.observer.takeRecords().length > 0) this.stale();
    if (generation === this.generation && this.observer && this.win.location.href === url) this.kept.set(key, { value, url, basis });
    return value;
  }

  /** Drops everything kept and stops watching. */
  clear(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    this.stale();
  }

  private readonly stale = (): void => {
    this.generation += 1;
    this.kept.clear();
    if (!this.observer) return;
    this.observer.disconnect();
    this.observer = null;
    for (const type of STALE_EVENTS) this.win.removeEventListener(type, this.stale, true);
  };

  private watch(): void {
    if (this.observer) return;
    const MO = (this.win as Window & typeof globalThis).MutationObserver;
    this.observer = new MO(this.stale);
    this.observer.observe(this.win.document, { subtree: true, childList: true, characterData: true, attributes: true });
    for (const type of STALE_EVENTS) this.win.addEventListener(type, this.stale, { capture: true, passive: true });
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.clear(), this.idleMs);
  }
}
