/** Page furniture: the sidebar of conversations (with its skeleton loaders), top bars, library, static pages. */
import type { ThreadSummary } from '../types';
import { api, h, icon, tr } from './dom';

function timeAgo(ts: number): string {
  const s = Math.max(0, (Date.now() - ts) / 1000);
  if (s < 60) return tr.justNow;
  if (s < 3600) return tr.minutesAgo(Math.floor(s / 60));
  if (s < 86400) return tr.hoursAgo(Math.floor(s / 3600));
  return tr.daysAgo(Math.floor(s / 86400));
}

/** A conversation link. Some rows render the title twice (a hover duplicate), so innerText doubles it. */
export function threadLink(t: ThreadSummary, cls = ''): HTMLAnchorElement {
  const title = t.doubledTitle
    ? h('span', { class: 'truncate block relative' }, h('span', {}, t.title), h('span', { class: 'title-dup', 'aria-hidden': 'true' }, t.title))
    : h('span', { class: 'truncate block' }, t.title);
  return h('a', { href: t.path, class: cls, 'data-testid': 'thread-title' }, title);
}

export class Sidebar {
  readonly el: HTMLElement;
  private readonly recent: HTMLElement;
  private loading = 0;

  constructor() {
    this.recent = h('div', { class: 'recent' });
    const nav = (href: string, ic: string, label: string) =>
      h('a', { href, class: 'nav-link' }, icon(ic), h('span', {}, label));
    this.el = h(
      'aside',
      { class: 'sidebar', 'aria-label': tr.sidebar },
      h('a', { href: '/', class: 'logo', 'aria-label': 'Perplexity' }, h('span', { class: 'logo-mark' }, '✳'), 'perplexity'),
      h('a', { href: '/', class: 'new-thread' }, icon('pplx-icon-plus'), h('span', { class: 'flex-1' }, tr.newThread), h('span', { class: 'text-xs text-quiet' }, 'Ctrl I')),
      h(
        'nav',
        { class: 'flex flex-col gap-1' },
        nav('/', 'pplx-icon-home', tr.home),
        nav('/discover', 'pplx-icon-compass', tr.discover),
        nav('/spaces', 'pplx-icon-layers', tr.spaces),
        nav('/library', 'pplx-icon-library', tr.library),
        nav('/computer/artifacts', 'pplx-icon-custom-computer', tr.artifacts),
      ),
      h('div', { class: 'recent-title' }, tr.recent),
      this.recent,
      h('div', { class: 'sidebar-foot' }, h('span', { class: 'avatar' }, 'S'), h('span', {}, 'sim-user')),
    );
  }

  /** Reloads "recent threads", showing skeleton loaders (animate-pulse) meanwhile. */
  async refresh(): Promise<void> {
    const ticket = ++this.loading;
    this.recent.replaceChildren(...[70, 55, 80, 60].map((w) => h('div', { class: 'skeleton animate-pulse', style: `width:${w}%` })));
    try {
      const { threads } = await api<{ threads: ThreadSummary[] }>('threads');
      if (ticket !== this.loading) return;
      this.recent.replaceChildren(...threads.slice(0, 12).map((t) => threadLink(t)));
    } catch {
      if (ticket === this.loading) this.recent.replaceChildren(h('div', { class: 'text-xs text-quiet' }, tr.couldNotLoadThreads));
    }
  }
}

/** The "Expand pane" button: an SVG with a <rect> (a trap for readers that call any such button Stop). */
export function expandPaneButton(): HTMLElement {
  const b = h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.expandPane });
  b.innerHTML =
    '<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" aria-hidden="true"><rect x="3" y="4" width="18" height="16" rx="2"></rect><path d="M15 4v16"></path></svg>';
  return b;
}

/** The page's top bar; a Computer task page's title is its `h1` (browser-use/browser-harness notes, April 2026). */
export function topbar(title: string | null, extra: HTMLElement[] = [], heading = false): HTMLElement {
  return h(
    'div',
    { class: 'topbar' },
    h(heading ? 'h1' : 'div', { class: 'truncate font-medium' }, title ?? ''),
    h('div', { class: 'flex items-center gap-2' }, ...extra, expandPaneButton()),
  );
}

export function libraryPage(threads: ThreadSummary[]): HTMLElement {
  const list = h('div', { class: 'flex flex-col' });
  for (const t of threads) {
    const a = threadLink(t, 'lib-item');
    a.firstElementChild?.classList.add('lib-title');
    a.append(h('div', { class: 'lib-snippet' }, t.snippet), h('div', { class: 'lib-meta' }, timeAgo(t.updatedAt)));
    list.append(a);
  }
  if (!threads.length) list.append(h('div', { class: 'text-quiet' }, tr.noThreads));
  return h(
    'div',
    { class: 'page-pad' },
    h('h1', { class: 'page-h1 flex items-center gap-2' }, icon('pplx-icon-library'), tr.library),
    h('div', { class: 'text-sm text-quiet', style: 'margin-bottom:8px' }, tr.threadsCount(threads.length)),
    list,
  );
}

export function staticPage(title: string, text: string): HTMLElement {
  return h('div', { class: 'page-pad' }, h('h1', { class: 'page-h1' }, title), h('p', { class: 'text-quiet' }, text));
}

export function notFoundPage(): HTMLElement {
  return h(
    'div',
    { class: 'page-pad' },
    h('h1', { class: 'page-h1' }, tr.notFoundTitle),
    h('p', { class: 'text-quiet' }, tr.notFoundText),
    h('a', { href: '/', class: 'pill-btn' }, tr.goHome),
  );
}
