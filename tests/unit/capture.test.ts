// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureDom, placeholderText, reduceUrl } from '../../lib/page/kits/capture';
import { indicators, proseCount, readTurnNow, statusOf } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { fromInlineCitations } from '../../lib/page/answer/sources';
import { chooseSelectorSet, generationB, live2026, type SelectorSet } from '../../lib/selectors';
import { fixtureHtml, loadHtml } from '../fixtures/reader/load';

/**
 * The bug-report loop, second half: a page saved by `comet-relay capture` (tests/e2e/capture.spec.ts
 * captured this one from the simulated site; `UPDATE_FIXTURES=1` refreshes it) is a fixture the
 * reader reads like the live page: same status, same counts, same lengths, same source hosts.
 */
const captures = join(import.meta.dirname, '../fixtures/captures');

/** What the reader makes of the page now loaded in the test document, with a given set (generation B's by default). */
function readPage(set: SelectorSet = generationB) {
  const turns = turnsOf(document, set);
  const last = turns.at(-1) ?? null;
  const turn = last ? readTurnNow(last, turns.length - 1, set) : null;
  // The words, without the citations' URLs (a capture keeps only their hosts): what "reads the same" compares.
  const words = (turn?.response ?? '').replace(/\]\([^)\s]*\)/g, ']');
  return {
    set: chooseSelectorSet(document, null).set.name,
    status: statusOf(indicators(document, set, last), turn),
    turnCount: turns.length,
    proseCount: proseCount(document, set),
    responseLength: words.length,
    questionLength: turn?.question.length ?? 0,
    citationHosts: [...new Set(fromInlineCitations(document.body, set, location.href).map((s) => new URL(s.url ?? '').host))],
    response: words,
  };
}

describe('a page captured from the simulated site, read by the reader', () => {
  const html = readFileSync(join(captures, 'B-grouped-citations.html'), 'utf8');
  const expected = JSON.parse(readFileSync(join(captures, 'B-grouped-citations.expected.json'), 'utf8'));

  it('reads as the live page read: status, counts, lengths, citation hosts', () => {
    loadHtml(html, 'https://www.perplexity.ai/search/x');
    const read = readPage();
    expect(read.set).toBe('gen-b-2026-10');
    expect(read).toMatchObject(expected);
    // Placeholder text, not the answer's.
    expect(read.response).toMatch(/^[A-Za-z ,.;:?!'"’()+\-\d[\]\n*#`]+$/);
    expect(read.response).not.toMatch(/reuters|wikipedia|the answer/i);
  });

  it('holds nothing that runs and no full URL', () => {
    expect(html).not.toMatch(/<script|<style|\son[a-z]+=|\svalue=/i);
    for (const [, url] of html.matchAll(/(?:href|src|data-pplx-citation-url)="(https?:[^"]*)"/g)) {
      expect(new URL(url as string).pathname, url).toBe('/');
    }
  });
});

describe('capture', () => {
  it('keeps a step header only when all of it is the set’s words and counts, and no slug in an id or data value', () => {
    loadHtml(
      `<main><div class="steps"><button>Finished 5 steps</button><button>Working at Acme Corp today</button><span>Sources told me</span><span>Completed 3 steps</span></div>
        <div id="jane-doe" data-slug="jane-doe-diary" data-testid="answer-footer" data-state="open" data-index="3" data-uuid="0f8fad5b-d9cb-469f-a165-70867728950e">x</div>
        <div id="ask-input" contenteditable="true" role="textbox"></div></main>`,
      'https://www.perplexity.ai/search/x',
    );
    const { html } = captureDom(document, generationB, { setName: 'gen-b-2026-10', setSource: 'built-in', capturedAt: '2026-12-02T00:00:00Z' });
    for (const gone of ['Acme', 'Sources told me', 'jane-doe', 'diary']) expect(html, gone).not.toContain(gone);
    for (const kept of ['Finished 5 steps', 'data-testid="answer-footer"', 'data-state="open"', 'data-index="3"', '0f8fad5b-d9cb-469f-a165-70867728950e', 'id="ask-input"']) {
      expect(html, kept).toContain(kept);
    }
    // Same shape, other letters: a maintainer still sees that a slug was there and how long it was.
    expect(html).toMatch(/id="[a-z]{4}-[a-z]{3}"/);
  });

  it('#15 (review 2026-12-04): a slug or a name with a digit in it is somebody\'s text; generated ids stay', () => {
    loadHtml(
      `<main><div data-thread-slug="what-are-the-side-effects-of-drug-x-q7YvQ2l3Sy2H" id="thread-what-are-the-side-effects-of-drug-x-q7YvQ2l3"
        data-username="jsmith1984" data-project="divorce-lawyer-2026" data-author="jane-doe">x</div>
        <div id="q7YvQ2l3Sy2H" data-row="r1-4" data-key="row_12" data-version="2.18">y</div></main>`,
      'https://www.perplexity.ai/search/x',
    );
    const { html } = captureDom(document, generationB, { setName: 'gen-b-2026-10', setSource: 'built-in', capturedAt: '2026-12-04T00:00:00Z' });
    for (const gone of ['side-effects', 'drug', 'jsmith', '1984', 'divorce', 'lawyer', 'jane']) expect(html, gone).not.toContain(gone);
    for (const kept of ['id="q7YvQ2l3Sy2H"', 'data-row="r1-4"', 'data-key="row_12"', 'data-version="2.18"']) expect(html, kept).toContain(kept);
    // A page id the set in use names stays whole, digits and words alike.
    loadHtml('<main><div id="markdown-content-2">y</div><div id="weekly-report-2">z</div></main>', 'https://www.perplexity.ai/search/x');
    const live = captureDom(document, live2026, { setName: 'live-2026', setSource: 'built-in', capturedAt: '2026-12-04T00:00:00Z' }).html;
    expect(live).toContain('id="markdown-content-2"');
    expect(live).not.toContain('weekly');
  });

  it('replaces text by placeholder text of the same length, keeping spaces and punctuation', () => {
    expect(placeholderText('Hello, World 42!')).toBe('Lorem, Ipsum do!');
    expect(placeholderText('مرحبا بكم')).toHaveLength('مرحبا بكم'.length);
    expect(placeholderText('a\n  b')).toBe('l\n  o');
  });

  it('cuts URLs to their host; Perplexity’s own keep the kind of page; scripts and other schemes go', () => {
    const base = 'https://www.perplexity.ai/search/abc';
    expect(reduceUrl('https://www.reuters.com/markets/x?y=1#z', base)).toBe('https://www.reuters.com/');
    expect(reduceUrl('/search/rust-vs-go-Xq7', base)).toBe('/search/lore-mi-ps-Umd');
    expect(reduceUrl('https://www.perplexity.ai/computer/tasks/abc-123', base)).toBe('https://www.perplexity.ai/computer/tasks/lor-emi');
    expect(reduceUrl('#pplx-icon-search', base)).toBe('#pplx-icon-search');
    expect(reduceUrl('javascript:alert(1)', base)).toBeNull();
    expect(reduceUrl('data:text/html,hi', base)).toBeNull();
  });

  it('a page captured here reads like the page itself; the person’s and the answer’s words are gone', () => {
    const original = fixtureHtml('B-thread-grouped-citations.html', 'pages');
    loadHtml(original, 'https://www.perplexity.ai/search/sources-please-x');
    document.body.insertAdjacentHTML(
      'beforeend',
      '<script>steal()</script><button onclick="steal()" aria-label="Submit">go</button><input value="secret draft"><textarea>my private draft</textarea>',
    );
    // The saved sim page is the captured layout blocks-2026-08 (since 2026-12-05): the live set's, which the page
    // chooses and which reads it (the pre-capture generation B set takes the action row's playing read-aloud "Stop"
    // decoy for the stop control there, and calls the finished turn working).
    const set = live2026;
    const before = readPage(set);
    expect(before).toMatchObject({ set: set.name, status: 'completed', turnCount: 1, responseLength: expect.any(Number) });
    expect(before.responseLength).toBeGreaterThan(100);
    expect(before.citationHosts.length).toBeGreaterThanOrEqual(3);
    const question = turnsOf(document, set)[0]?.querySelectorAll('.select-text')[0]?.textContent ?? '';
    const capture = captureDom(document, set, { setName: set.name, setSource: 'built-in', capturedAt: '2026-12-01T00:00:00Z' });
    expect(capture.truncated).toBe(false);
    expect(capture.url).toMatch(/^https:\/\/www\.perplexity\.ai\/search\/[A-Za-z-]+$/);
    for (const gone of ['steal()', 'onclick', 'secret draft', 'my private draft', question.slice(0, 20), before.response.slice(0, 40), 'reuters.com/markets']) {
      expect(capture.html, gone).not.toContain(gone);
    }
    expect(capture.html).toContain('aria-label="Submit"');
    loadHtml(capture.html, 'https://www.perplexity.ai/search/x');
    const after = readPage(set);
    expect({ ...after, response: undefined }).toEqual({ ...before, response: undefined });
  });

  it('stops at the size limit and says so', () => {
    loadHtml(`<div>${'<p>word</p>'.repeat(2000)}</div>`);
    const capture = captureDom(document, generationB, { setName: 's', setSource: 'built-in', capturedAt: 'now' }, 5000);
    expect(capture.truncated).toBe(true);
    expect(capture.html).toContain('larger than the capture limit');
    expect(capture.bytes).toBeLessThan(6000);
  });
});
