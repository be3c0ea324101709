// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { sourcesThrough } from '../../lib/page/kits/source-reader';
import { mergeNumbered, mergeSources, normalizeUrl } from '../../lib/page/answer/sources';
import { loadFixture, loadHtml } from '../fixtures/reader/load';

/** Makes the fixture's grouped citation open a popover on click and close on Escape, like the site. */
function wirePopover(entries: string): { opened: () => number } {
  let opened = 0;
  const citation = Array.from(document.querySelectorAll('[data-pplx-citation]')).find((c) => /\+\d/.test(c.textContent ?? ''));
  citation?.addEventListener('click', () => {
    opened++;
    setTimeout(() => {
      const pop = document.createElement('div');
      pop.setAttribute('data-radix-popper-content-wrapper', '');
      pop.innerHTML = `<ul>${entries}</ul>`;
      document.body.append(pop);
    }, 5);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') document.querySelector('[data-radix-popper-content-wrapper]')?.remove();
  });
  return { opened: () => opened };
}

function wireSourcesTab(entries: string): void {
  const tab = document.getElementById('tab-sources') as HTMLElement;
  const answerTab = document.getElementById('tab-answer') as HTMLElement;
  tab.addEventListener('click', () => {
    tab.setAttribute('aria-selected', 'true');
    answerTab.setAttribute('aria-selected', 'false');
    const panel = document.createElement('div');
    panel.setAttribute('role', 'tabpanel');
    panel.id = 'panel-sources';
    panel.innerHTML = entries;
    document.body.append(panel);
  });
  answerTab.addEventListener('click', () => {
    answerTab.setAttribute('aria-selected', 'true');
    tab.setAttribute('aria-selected', 'false');
    document.getElementById('panel-sources')?.remove();
  });
}

describe('sources', () => {
  it('inline citation URLs come from data attributes, not "collapsed" links', async () => {
    loadFixture('B-thread-citations.html');
    const r = await sourcesThrough(createPageDriver(window), { expand: false, openTab: false });
    expect(r.sources).toEqual([
      { title: 'reuters', url: 'https://www.reuters.com/markets/stocks-rise/?utm_source=pplx' },
      { title: 'bbc', url: 'https://www.bbc.com/news/business-1' },
    ]);
  });

  it('grouped citations are expanded one by one, merged, deduped; title-only entries kept', async () => {
    loadFixture('B-thread-citations.html');
    const pop = wirePopover(`
      <li><a href="https://www.reuters.com/markets/stocks-rise/">Stocks rise on jobs data - Reuters</a></li>
      <li><a href="https://apnews.com/article/markets">AP: Wall Street climbs</a></li>
      <li><span>Internal analyst note (PDF)</span></li>`);
    wireSourcesTab(`
      <a href="https://apnews.com/article/markets#top">AP News</a>
      <a href="https://www.ft.com/content/abc">FT: markets wrap</a>
      <a href="https://www.perplexity.ai/discover">Discover on Perplexity</a>
      <a href="https://docs.perplexity.ai/x">Perplexity docs</a>`);
    const r = await sourcesThrough(createPageDriver(window));
    expect(pop.opened()).toBe(1);
    expect(r.grouped).toBe(1);
    expect(r.expanded).toBe(1);
    expect(r.fromTab).toBe(true);
    // The Sources tab's entries lead, in its order (the page's numbering); what only the answer
    // and the popover show follows.
    expect(r.sources).toEqual([
      { title: 'AP: Wall Street climbs', url: 'https://apnews.com/article/markets#top' },
      { title: 'FT: markets wrap', url: 'https://www.ft.com/content/abc' },
      { title: 'Stocks rise on jobs data - Reuters', url: 'https://www.reuters.com/markets/stocks-rise/?utm_source=pplx' },
      { title: 'bbc', url: 'https://www.bbc.com/news/business-1' },
      { title: 'Internal analyst note (PDF)' },
    ]);
    // the popover was closed and the previously selected tab restored
    expect(document.querySelector('[data-radix-popper-content-wrapper]')).toBeNull();
    expect(document.getElementById('tab-answer')?.getAttribute('aria-selected')).toBe('true');
    expect(createPageDriver(window).watcher.active).toBe(false);
  });

  it('the n-th source is the Sources tab\'s n-th entry, whatever order the answer cites them in', async () => {
    // The answer cites reuters before bbc; the page numbers bbc 1, an uploaded file 2, reuters 3
    // (its Sources tab, in the order of the thread's web_results, which the answer's [n] counts).
    loadFixture('B-thread-citations.html');
    wireSourcesTab(`<ul>
      <li><span>1. bbc</span><a href="https://www.bbc.com/news/business-1">BBC: business</a></li>
      <li><span>2. file</span><span>Analyst note (PDF)</span></li>
      <li><span>3. reuters</span><a href="https://reuters.com/markets/stocks-rise">Reuters: stocks rise</a></li></ul>`);
    const r = await sourcesThrough(createPageDriver(window), { expand: false });
    expect(r.fromTab).toBe(true);
    expect(r.sources.map((s) => s.url ?? s.title)).toEqual([
      'https://www.bbc.com/news/business-1',
      'Analyst note (PDF)',
      'https://reuters.com/markets/stocks-rise',
    ]);
  });

  it('mergeNumbered keeps each numbered entry at its place, title-only ones too, and adds the rest after', () => {
    const merged = mergeNumbered(
      [{ title: 'b', url: 'https://b.org/' }, { title: 'Upload.pdf' }, { title: 'a', url: 'https://a.org/x' }],
      [{ title: 'A: the long title', url: 'https://www.a.org/x/' }, { title: 'c', url: 'https://c.org/' }, { title: 'upload.pdf' }],
    );
    expect(merged).toEqual([
      { title: 'b', url: 'https://b.org/' },
      { title: 'Upload.pdf' },
      { title: 'A: the long title', url: 'https://a.org/x' },
      { title: 'c', url: 'https://c.org/' },
    ]);
  });

  it('generation A: <a href> badges are sources; Perplexity links are not', async () => {
    loadFixture('A-thread.html');
    const r = await sourcesThrough(createPageDriver(window));
    expect(r.sources).toEqual([
      { title: 'go.dev', url: 'https://go.dev/doc/' },
      { title: 'rust-lang', url: 'https://www.rust-lang.org/learn' },
    ]);
  });

  it('a grouped citation inside an <a href> is expanded without following the link', async () => {
    loadHtml(`<div data-workflow-entry="0"><div data-workflow-final-text><div class="prose"><p>x
      <a href="https://example.com/a"><span data-pplx-citation data-pplx-citation-url="https://example.com/a">example+1</span></a></p></div></div></div>`);
    let followed = 0;
    document.querySelector('a')?.addEventListener('click', (e) => {
      if (!e.defaultPrevented) followed++;
    });
    wirePopover(`<li><a href="https://example.com/b">B page</a></li>`);
    const r = await sourcesThrough(createPageDriver(window), { openTab: false });
    expect(followed).toBe(0);
    expect(r.sources.map((s) => s.url)).toEqual(['https://example.com/a', 'https://example.com/b']);
  });

  it('only the popover the citation opened is read and closed: a cookie banner shown already is neither (#16)', async () => {
    loadFixture('B-thread-citations.html');
    document.body.insertAdjacentHTML(
      'beforeend',
      '<div role="dialog" id="cookies"><ul><li><a href="https://cookie-consent.example/policy">Cookie policy</a></li><li><a href="https://cookie-consent.example/partners">Our 812 partners</a></li></ul></div>',
    );
    let escapes = 0;
    document.getElementById('cookies')?.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') escapes++;
    });
    // The citation opens nothing here (its popover never comes): nothing of the banner is a source.
    const idle = await sourcesThrough(createPageDriver(window), { openTab: false });
    expect(idle.sources.map((s) => s.url)).not.toContain('https://cookie-consent.example/policy');
    expect(escapes).toBe(0);
    // With its own popover: that one, and the banner still there, untouched.
    wirePopover('<li><a href="https://apnews.com/article/markets">AP: Wall Street climbs</a></li>');
    const read = await sourcesThrough(createPageDriver(window), { openTab: false });
    expect(read.sources.map((s) => s.url)).toContain('https://apnews.com/article/markets');
    expect(read.sources.map((s) => s.url ?? '').filter((u) => u.includes('cookie'))).toEqual([]);
    expect(escapes).toBe(0);
    expect(document.getElementById('cookies')).not.toBeNull();
  });

  it('normalises URLs for dedupe: scheme, www, fragment, tracking, trailing slash', () => {
    expect(normalizeUrl('https://www.Reuters.com/a/?utm_source=x#f')).toBe(normalizeUrl('http://reuters.com/a'));
    expect(normalizeUrl('https://a.com/a?id=1')).not.toBe(normalizeUrl('https://a.com/a?id=2'));
    expect(normalizeUrl('javascript:alert(1)')).toBeNull();
  });

  it('merge keeps external sources only and title-only entries once', () => {
    const merged = mergeSources(
      [{ title: 'x', url: 'https://perplexity.ai/a' }, { title: 'y', url: 'https://sub.perplexity.ai/b' }],
      [{ title: 'Note' }, { title: 'note' }, { title: 'Site', url: 'https://site.org/' }, { title: 'Site' }],
    );
    expect(merged).toEqual([{ title: 'Site', url: 'https://site.org/' }, { title: 'Note' }]);
  });
});

/**
 * Generation A: a grouped badge with no URL of its own that expands in place when
 * clicked, and a Sources tab that names no panel (no aria-controls, no ids): the panel just
 * appears (Radix renders an inactive panel empty).
 */
const UNLINKED = `
<div class="max-w-threadContentWidth"><div data-workflow-entry="0">
  <div class="group/query"><div class="whitespace-pre-line select-text">Who covered it?</div></div>
  <div role="tablist"><button role="tab" aria-selected="true" data-state="active">Answer</button><button role="tab" aria-selected="false">Sources 5</button></div>
  <div role="tabpanel" class="answer-panel"><div data-workflow-final-text class="group/final-text"><div class="prose" data-renderer="lm">
    <p>Everyone covered it.<span class="citation ml-xs inline" role="button" aria-expanded="false"><span class="citation-badge">reuters+3</span></span>
    And one more.<a href="https://example.org/solo" class="citation ml-xs inline" aria-label="Solo report"><span class="citation-badge">solo</span></a></p>
  </div></div></div>
  <div role="tabpanel" class="links-panel" hidden></div>
</div></div>
<form><div><div id="ask-input" contenteditable="true" role="textbox"></div></div></form>`;

const GROUP = [
  ['https://www.reuters.com/a', 'Reuters: the launch'],
  ['https://apnews.com/b', 'AP: launch day'],
  ['https://www.bbc.co.uk/c', 'BBC: a new browser'],
  ['https://www.theverge.com/d', 'The Verge: hands-on'],
];
const badges = (list: string[][]) =>
  list.map(([url, title]) => `<a href="${url}" class="citation ml-xs inline" aria-label="${title}"><span class="citation-badge">x</span></a>`).join('');

function wireUnlinkedPage(): { expansions: () => number } {
  loadHtml(UNLINKED, 'https://www.perplexity.ai/search/who-covered-it-1');
  let expansions = 0;
  const badge = document.querySelector('[aria-expanded]') as HTMLElement;
  badge.addEventListener('click', () => {
    const open = badge.nextElementSibling?.classList.contains('citation-expansion') ? badge.nextElementSibling : null;
    if (open) {
      open.remove();
      return;
    }
    expansions++;
    setTimeout(() => badge.insertAdjacentHTML('afterend', `<span class="citation-expansion">${badges(GROUP)}</span>`), 3);
  });
  const [answerTab, sourcesTab] = Array.from(document.querySelectorAll('[role="tab"]')) as HTMLElement[];
  const answerPanel = document.querySelector('.answer-panel') as HTMLElement;
  const linksPanel = document.querySelector('.links-panel') as HTMLElement;
  const select = (links: boolean) => {
    answerTab?.setAttribute('aria-selected', String(!links));
    sourcesTab?.setAttribute('aria-selected', String(links));
    answerPanel.hidden = links;
    linksPanel.hidden = !links;
    linksPanel.innerHTML = links ? `<div class="sources-list">${GROUP.concat([['https://example.org/solo', 'Solo report']]).map(([url, title]) => `<a href="${url}" class="source-card"><div class="font-medium">${title}</div></a>`).join('')}</div>` : '';
  };
  sourcesTab?.addEventListener('click', () => setTimeout(() => select(true), 3));
  answerTab?.addEventListener('click', () => select(false));
  return { expansions: () => expansions };
}

describe('sources behind a badge that expands in place and a tab that names no panel', () => {
  const all = ['https://example.org/solo', ...GROUP.map(([url]) => url)].sort();

  it('the Sources tab is read from the panel that appears, and the Answer tab comes back', async () => {
    wireUnlinkedPage();
    const r = await sourcesThrough(createPageDriver(window), { expand: false });
    expect(r.fromTab).toBe(true);
    expect(r.sources.map((s) => s.url).sort()).toEqual(all);
    expect(r.sources.find((s) => s.url === 'https://apnews.com/b')?.title).toBe('AP: launch day');
    expect(document.querySelector('[role="tab"][aria-selected="true"]')?.textContent).toBe('Answer');
  });

  it('a grouped badge that expands in place is read in place, and folded again', async () => {
    const page = wireUnlinkedPage();
    const r = await sourcesThrough(createPageDriver(window), { openTab: false });
    expect(page.expansions()).toBe(1);
    expect(r).toMatchObject({ grouped: 1, expanded: 1 });
    expect(r.sources.map((s) => s.url).sort()).toEqual(all);
    expect(document.querySelector('.citation-expansion')).toBeNull();
  });
});
