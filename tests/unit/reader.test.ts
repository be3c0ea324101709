// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { chooseSelectorSet, generationB } from '../../lib/selectors';
import { expandLabels } from '../../lib/selectors/labels';
import { poll, readSteps, readTurn } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { PageWatcher } from '../../lib/page/answer/observer';
import { loadFixture, loadHtml } from '../fixtures/reader/load';
import { pageContent } from '../support/page-content';
import { renderText } from '../../lib/page/dom/text';

const driver = () => createPageDriver(window);

afterEach(() => {
  document.body.innerHTML = '';
});

describe('reader on a finished gen A thread', () => {
  it('poll returns the comet_poll fields plus ours', async () => {
    loadFixture('A-thread.html');
    const p = await driver().poll();
    expect(p.status).toBe('completed');
    expect(p.hasStopButton).toBe(false);
    expect(p.hasLoadingSpinner).toBe(false);
    expect(p.turnCount).toBe(2);
    expect(p.lastTurnIndex).toBe(1);
    expect(p.questionText).toBe('Compare Rust and Go for backend services');
    expect(p.steps).toEqual(['Preparing to assist…', 'Searching rust vs go performance', 'Reading benchmarks']);
    expect(p.currentStep).toBe('');
    expect(p.url).toBe('https://www.perplexity.ai/search/x');
    expect(p.truncated).toBe(false);
    expect(p.error).toBeUndefined();
  });

  it('keeps line breaks, headings, lists and code; nested .prose read and counted once', async () => {
    loadFixture('A-thread.html');
    const p = await driver().poll();
    expect(p.response).toBe(
      [
        '## Overview',
        '',
        'Reading the benchmarks and Searching the docs shows both are fast [go.dev].',
        '',
        '- Rust: no garbage collector',
        '- Go: simple concurrency',
        '  - goroutines',
        '',
        '1. Measure',
        '2. Decide',
        '',
        '```rust',
        'fn main() {',
        '    println!("hi");',
        '}',
        '```',
        '',
        'Nested note: pick what your team knows.',
        '',
        'Line one',
        'Line two rust-lang perplexity page',
      ].join('\n'),
    );
    expect(p.response.match(/Nested note/g)).toHaveLength(1);
    expect(p.proseCount).toBe(2); // one per answer: the nested callout is not a second answer
    expect(p.response).not.toContain('Copy');
  });

  it('a poll without the prose (for a turn whose ask stream gives it) reads everything else the same', async () => {
    loadFixture('A-thread.html');
    const ctx = { win: window, doc: document, set: chooseSelectorSet(document).set, waitFor: new PageWatcher(window, () => chooseSelectorSet(document).set).waitFor };
    const whole = await poll(ctx);
    const bare = await poll(ctx, { prose: false });
    expect(whole.response.length).toBeGreaterThan(100);
    expect(bare).toEqual({ ...whole, response: '', totalLength: 0 });
  });

  it('no silent truncation; maxLength says truncated and the full length', async () => {
    loadFixture('A-thread.html');
    const full = await driver().poll();
    expect(full.response.length).toBeGreaterThan(100);
    expect(full.totalLength).toBe(full.response.length);
    const cut = await driver().poll({ maxLength: 20 });
    expect(cut.response).toHaveLength(20);
    expect(cut.truncated).toBe(true);
    expect(cut.totalLength).toBe(full.response.length);
  });

  it('an answer past 8,000 characters comes back whole', async () => {
    const para = `<p>${'word '.repeat(2000)}</p>`;
    loadHtml(`<div data-workflow-entry="0"><div data-workflow-final-text><div class="prose">${para}${para}</div></div></div><div id="ask-input" contenteditable></div>`);
    const p = await driver().poll();
    expect(p.response.length).toBeGreaterThan(19_000);
    expect(p.truncated).toBe(false);
  });

  it('"Reading"/"Searching" in an answer do not make it working', async () => {
    loadFixture('A-thread.html');
    const p = await driver().poll();
    expect(p.response).toContain('Reading the benchmarks and Searching');
    expect(p.status).toBe('completed');
  });

  it('a button with an svg rect ("Expand pane") is not a stop button', async () => {
    loadFixture('A-thread.html');
    expect(document.querySelector('button rect')).not.toBeNull();
    const p = await driver().poll();
    expect(p.hasStopButton).toBe(false);
    expect(p.status).toBe('completed');
  });

  it('sidebar skeleton loaders (animate-pulse/spin) do not count as the turn working', async () => {
    loadFixture('A-thread.html');
    expect(document.querySelectorAll('nav .animate-pulse, nav .animate-spin')).toHaveLength(2);
    const p = await driver().poll();
    expect(p.hasLoadingSpinner).toBe(false);
  });

  it('reads an earlier turn by index', async () => {
    loadFixture('A-thread.html');
    const set = chooseSelectorSet(document).set;
    const watcher = new PageWatcher(window, () => set);
    const t = await readTurn({ win: window, doc: document, set, waitFor: watcher.waitFor }, 0);
    expect(t?.question).toBe('What is Rust?');
    expect(t?.response).toBe('Rust is a systems programming language.');
    expect(t?.steps).toEqual(['Searching rust language', 'Reading rust-lang.org']);
    expect(t?.stepsFinished).toBe(true);
  });

  it('a user-bubble look-alike (group-hover/user-bubble) is not the query', async () => {
    loadFixture('A-thread.html');
    const p = await driver().poll();
    expect(p.questionText).not.toContain('copy');
  });
});

describe('reader on a streaming gen B thread', () => {
  it('is working, with the current step, while the stop button shows', async () => {
    loadFixture('B-thread-streaming.html');
    const p = await driver().poll();
    expect(p.status).toBe('working');
    expect(p.hasStopButton).toBe(true);
    expect(p.hasLoadingSpinner).toBe(true);
    expect(p.steps).toEqual(['Searching quantum news', 'Reading nature.com']);
    expect(p.currentStep).toBe('Reading nature.com');
    expect(p.response).toBe('Researchers announced');
  });

  it('a steps-toggle candidate the browser cannot parse is a miss, as everywhere, and the others still work (review 13c, F5)', () => {
    loadFixture('B-thread-streaming.html');
    const good = generationB;
    const bad = expandLabels({ ...good, stepsToggle: [...good.stepsToggle, 'button[aria-expanded'] });
    const turn = turnsOf(document, bad).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>;
    expect(readSteps(turn, bad).steps).toEqual(readSteps(turn, good).steps);
    expect(readSteps(turn, good).steps.length).toBeGreaterThan(0);
  });

  it('a stop button inside an earlier turn does not make the current turn working', async () => {
    loadHtml(`<div class="max-w-threadContentWidth">
      <div data-workflow-entry="0"><div class="group/query"><div class="select-text">q0</div></div>
        <button aria-label="Stop">x</button>
        <div data-workflow-final-text><div class="prose"><p>a0</p></div></div></div>
      <div data-workflow-entry="1"><div class="group/query"><div class="select-text">q1</div></div>
        <div data-workflow-final-text><div class="prose"><p>a1</p></div></div></div></div>`);
    const p = await driver().poll();
    expect(p.hasStopButton).toBe(false);
    expect(p.status).toBe('completed');
  });

  it('an error shown in the turn is reported', async () => {
    loadHtml(`<div data-workflow-entry="0"><div class="group/query"><div class="select-text">q</div></div>
      <div role="alert">Something went wrong. Try again.</div></div>`);
    const p = await driver().poll();
    expect(p.error).toBe('Something went wrong. Try again.');
    expect(p.status).toBe('idle');
  });

  it('no turns at all is idle', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    const p = await driver().poll();
    expect(p).toMatchObject({ status: 'idle', turnCount: 0, lastTurnIndex: -1, response: '', proseCount: 0, hasLoadingSpinner: false });
  });
});

describe('folded and virtualized turns', () => {
  it('an off-screen placeholder turn is scrolled in, awaited, read, and the scroll restored', async () => {
    loadHtml(`<div id="scroller" style="overflow:auto"><div class="max-w-threadContentWidth">
      <div data-workflow-entry="0"></div>
      <div data-workflow-entry="1"><div class="group/query"><div class="select-text">q1</div></div>
        <div data-workflow-final-text><div class="prose"><p>a1</p></div></div></div></div></div>`);
    const scroller = document.getElementById('scroller') as HTMLElement;
    scroller.scrollTop = 500;
    const placeholder = document.querySelector('[data-workflow-entry="0"]') as HTMLElement;
    let scrolled = 0;
    placeholder.scrollIntoView = () => {
      scrolled++;
      scroller.scrollTop = 0;
      setTimeout(() => {
        placeholder.innerHTML = `<div class="group/query"><div class="select-text">q0</div></div>
          <div data-workflow-final-text><div class="prose"><p>First</p><ul><li>one</li><li>two</li></ul></div></div>`;
      }, 10);
    };
    const set = chooseSelectorSet(document).set;
    const watcher = new PageWatcher(window, () => set);
    const t = await readTurn({ win: window, doc: document, set, waitFor: watcher.waitFor }, 0);
    expect(scrolled).toBe(1);
    expect(t?.placeholder).toBe(false);
    expect(t?.question).toBe('q0');
    expect(t?.response).toBe('First\n\n- one\n- two');
    expect(scroller.scrollTop).toBe(500);
    expect(watcher.active).toBe(false);
  });

  it('a placeholder that never renders comes back flagged, within the bound', async () => {
    loadHtml(`<div data-workflow-entry="0"></div><div data-workflow-entry="1"><div class="group/query">q</div></div>`);
    (document.querySelector('[data-workflow-entry="0"]') as HTMLElement).scrollIntoView = () => {};
    const set = chooseSelectorSet(document).set;
    const watcher = new PageWatcher(window, () => set);
    const t = await readTurn({ win: window, doc: document, set, waitFor: watcher.waitFor }, 0, { renderTimeoutMs: 50 });
    expect(t?.placeholder).toBe(true);
    expect(t?.response).toBe('');
    expect(turnsOf(document, set)).toHaveLength(2);
  });
});

describe('page content', () => {
  it('title and visible text, without scripts, styles or hidden parts', async () => {
    loadHtml(`<h1>Title here</h1><p>Visible</p><script>var secret=1</script><style>.a{}</style>
      <div hidden>hidden one</div><div style="display:none">hidden two</div><p>End</p>`);
    document.title = 'Doc title';
    const c = await pageContent(driver(), 1000);
    expect(c.title).toBe('Doc title');
    expect(c.text).toBe('Title here\n\nVisible\n\nEnd');
    const cut = await pageContent(driver(), 5);
    expect(cut).toMatchObject({ text: 'Title', truncated: true, totalLength: c.text.length });
  });
  it('without the library (the public door, its setting off): the sidebar’s thread titles left out (worker review F2)', async () => {
    loadHtml(
      `<nav><a href="/search/divorce-fees-Ab12">divorce lawyer fees</a><a href="https://www.perplexity.ai/computer/tasks/x-Ab12">tax return</a></nav>` +
        `<main><h1>Tides</h1><p>The Moon. See <a href="https://docs.github.com/copilot/setup">Copilot setup</a> and <a href="https://arxiv.org/search/?query=tides">arXiv</a>.</p></main>`,
    );
    expect((await pageContent(driver(), 1000)).text).toContain('divorce lawyer fees');
    const own = await pageContent(driver(), 1000, false);
    expect(own.text).not.toMatch(/divorce|tax return/);
    // Links elsewhere whose path holds /search/ or /copilot/ are the answer's words (day-7h review K1).
    expect(own.text).toContain('The Moon. See Copilot setup and arXiv.');
  });
  it('the sidebar as the site draws it (2026-09-27 capture): a row’s title beside an empty link, a project’s name: left out too (day-7i review I1)', async () => {
    loadHtml(
      `<nav><div data-sidebar-session-row="true"><a aria-label="Tax return 2025" href="/search/0000-tax"><span></span></a><div>Tax return 2025</div></div>` +
        `<a href="/projects/bookmarks-Ab12">Bookmarks</a></nav><main><h1>Tides</h1><p>The Moon.</p></main>`,
    );
    const own = await pageContent(driver(), 1000, false);
    expect(own.text).not.toMatch(/Tax return|Bookmarks/);
    expect(own.text).toContain('The Moon.');
    expect((await pageContent(driver(), 1000)).text).toContain('Tax return 2025');
    // The same rows drawn outside any <nav> (a repaint): known by their own mark (day-7j review J1).
    loadHtml(`<div><div data-sidebar-session-row="true"><a aria-label="Tax return 2025" href="/search/0000-tax"><span></span></a><div>Tax return 2025</div></div></div><main><p>The Moon.</p></main>`);
    const moved = await pageContent(driver(), 1000, false);
    expect(moved.text).not.toContain('Tax return');
    expect(moved.text).toContain('The Moon.');
  });
});

describe('the page’s Markdown, as the site writes its own', () => {
  const render = (html: string) => {
    document.body.innerHTML = `<div>${html}</div>`;
    return renderText(document.body.firstElementChild as Element, { skip: [], markdown: true });
  };
  it('bold and italics marked, plain text unmarked', () => {
    expect(render('<p>A <strong>bold</strong> and <em>slanted</em> <b>b</b> <i>i</i> word.</p>')).toBe('A **bold** and *slanted* **b** *i* word.');
    document.body.innerHTML = '<p>A <strong>bold</strong> word.</p>';
    expect(renderText(document.body.firstElementChild as Element, { skip: [], markdown: false })).toBe('A bold word.');
  });
  it('a table: its rows between pipes, a `| --- |` line under a header row only', () => {
    expect(render('<table><thead><tr><th>Mode</th><th> Use </th></tr></thead><tbody><tr><td><strong>Best</strong></td><td>default</td></tr></tbody></table>')).toBe(
      '| Mode | Use |\n| --- | --- |\n| **Best** | default |',
    );
    expect(render('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>')).toBe('| a | b |\n| c | d |');
  });
  it('the marks hug the words: spaces at an emphasis’s edges go outside, a blank one is no emphasis (day-4 review F4)', () => {
    expect(render('<p>A<strong> bold </strong>word and <em>slanted </em>one.</p>')).toBe('A **bold** word and *slanted* one.');
    expect(render('<p>x <strong> </strong> y <strong></strong> z</p>')).toBe('x y z');
    expect(render('<p><strong>very <em>much</em></strong></p>')).toBe('**very *much***');
  });
  it('a table stays one: a cell’s blocks flow on its line, a `|` in it escaped, its `| --- |` indented in a list (day-4 review F5)', () => {
    const table = (cell: string) => `<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>${cell}</td><td>x | y</td></tr></tbody></table>`;
    expect(render(table('<p>one</p><p>two</p>'))).toBe('| A | B |\n| --- | --- |\n| one two | x \\| y |');
    expect(render(table('<ul><li>one</li><li>two</li></ul>'))).toBe('| A | B |\n| --- | --- |\n| - one - two | x \\| y |');
    expect(render(table('<code>a | b</code>'))).toBe('| A | B |\n| --- | --- |\n| `a \\| b` | x \\| y |');
    expect(render(`<ol><li>Compare:${table('1')}</li></ol>`)).toBe('1. Compare:\n   | A | B |\n   | --- | --- |\n   | 1 | x \\| y |');
    // Outside a table a pipe is plain text.
    expect(render('<p>a | b</p>')).toBe('a | b');
  });
  it('every `|` a cell writes is escaped: a formula’s, a code block’s, a citation link’s, a nested table’s (page review F1)', () => {
    const math = { formula: ['.katex'], source: ['annotation'], display: ['.katex-display'] };
    document.body.innerHTML =
      '<table><tr><th>P</th><th>v</th></tr><tr><td><span class="katex"><annotation>P(A|B)</annotation></span></td><td>42</td></tr>' +
      '<tr><td><pre><code>a | b</code></pre></td><td><a class="chip" data-url="https://ex.com/q?a|b">ex</a></td></tr></table>';
    const md = renderText(document.body.firstElementChild as Element, { skip: [], markdown: true, math, citation: ['.chip'], citationUrl: 'data-url' });
    expect(md).toBe('| P | v |\n| --- | --- |\n| $P(A\\|B)$ | 42 |\n| ``` a \\| b ``` | [ex](https://ex.com/q?a\\|b) |');
    expect(render('<table><tr><td>out</td><td><table><tr><td>in</td><td>2</td></tr></table></td></tr></table>')).toBe('| out | \\| in \\| 2 \\| |');
  });
  it('an emphasis that shows nothing writes no marks; a break at its edge goes outside them (page review F3, F4)', () => {
    expect(render('<p>a <strong><svg><text>i</text></svg></strong> b <strong><span hidden>x</span></strong> c</p>')).toBe('a b c');
    expect(render('<p><strong>line one<br></strong>next</p>')).toBe('**line one**\nnext');
    expect(render('<p>x <strong><br>line</strong> y</p>')).toBe('x\n**line** y');
    expect(render('<p><strong> <em>deep</em> </strong>end</p>')).toBe('***deep*** end');
  });
  it('a list item drawn as <li><p>, as the site draws it: "- item" on one line, a second paragraph after a blank line (review 13a, L1)', () => {
    expect(render('<ul><li><p>one</p></li><li><p><strong>two</strong> more</p></li></ul>')).toBe('- one\n- **two** more');
    expect(render('<ol start="3"><li><p>first</p><p>second</p></li><li><p>next</p></li></ol>')).toBe('3. first\n\n   second\n\n4. next'); // a loose list then, as CommonMark reads it
    expect(render('<ul><li><p>outer</p><ul><li><p>inner</p></li></ul></li></ul>')).toBe('- outer\n  - inner');
    expect(render('<ul><li><pre><code>x</code></pre></li></ul>')).toBe('-\n  ```\n  x\n  ```');
  });
  it('an emphasis around blocks is closed at each break and opened again after the marker of the next (day-7c review T1–T3)', () => {
    expect(render('<strong><p>one</p><p>two</p></strong>')).toBe('**one**\n\n**two**');
    expect(render('<strong><h2>Title</h2></strong><ul><li><em><span>a</span></em></li></ul>')).toBe('## **Title**\n\n- *a*');
    expect(render('<strong><ul><li>a</li><li>b</li></ul></strong>')).toBe('- **a**\n- **b**');
    expect(render('<p><strong>Run <pre><code>x = 1</code></pre> then</strong> go</p>')).toBe('**Run**\n\n```\nx = 1\n```\n\n**then** go');
    expect(render('<p><strong>a<br>b</strong></p>')).toBe('**a**\n**b**');
    expect(render('<table><tr><td><strong>a<p>b</p></strong></td><td>c</td></tr></table>')).toBe('| **a b** | c |');
    expect(render('<strong><table><tr><td>a</td><td>b</td></tr></table></strong>')).toBe('| **a** | **b** |');
    // One inside another of its kind is its words: two single marks side by side would read as bold (day-7d review F3).
    expect(render('<p><em>x <em>a<br>b</em></em></p>')).toBe('*x a*\n*b*');
    expect(render('<p><strong>a <em>b <strong>c</strong></em></strong></p>')).toBe('**a *b c***');
  });
});
