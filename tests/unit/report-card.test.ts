// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reportCardOf } from '../../lib/page/answer/report-card';
import { Turn } from '../../lib/page/dom/turns';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import type { ThreadPageReader } from '../../lib/selectors/thread-schema';

/**
 * Deep Research's report card (since ~2026-08-20): a summary under a card reading the report's title and "Deep research
 * report". The one capture that shows it is text only (the visible text of `main`, 2026-10-04, read from
 * COMET_REAL_PERPLEXITY, never copied here): the reader's label must be one of its lines, the title the line above.
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('report-card: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; skipping the capture test.');

afterEach(() => {
  document.body.innerHTML = '';
});

/** A turn of one block holding `html`. */
function turnOf(html: string): Turn {
  document.body.innerHTML = `<div id="turn">${html}</div>`;
  const block = document.getElementById('turn') as HTMLElement;
  return new Turn([block], null, [block], 0);
}

/** A card as a page may draw one: the title and the label in elements of their own, beside an icon and a button. */
const card = (title: string, label = 'Deep research report') =>
  `<div class="card"><svg></svg><div class="col"><div>${title}</div><span>${label}</span></div><button aria-label="Download"></button></div>`;

describe('the report card of a turn', () => {
  it('is found by its label, its other words the title', () => {
    const turn = turnOf(`<div class="steps">Loaded skill, searched, found insights</div>${card('Weekly brief #3')}<div class="prose"><p>The summary.</p></div>`);
    expect(reportCardOf(turn, threadPage2026.reportCard)).toEqual({ title: 'Weekly brief #3' });
  });

  it('is nothing on a turn without the label, nor for words that only mention it in the answer', () => {
    expect(reportCardOf(turnOf('<div class="prose"><p>An ordinary answer.</p></div>'), threadPage2026.reportCard)).toBeNull();
    expect(reportCardOf(turnOf('<div class="prose"><p>See the Deep research report above for details.</p></div>'), threadPage2026.reportCard)).toBeNull();
  });

  it('has no title when the words around the label are more than a title', () => {
    expect(reportCardOf(turnOf(card('x'.repeat(400))), threadPage2026.reportCard)).toEqual({ title: '' });
  });

  it('is data: a reader without the probe (written before it) finds none, and another label is one edit', () => {
    const { reportCard: _, ...older } = threadPage2026;
    expect(reportCardOf(turnOf(card('Weekly brief')), (older as ThreadPageReader).reportCard)).toBeNull();
    const french = { scope: ['span'], pattern: '^rapport de recherche approfondie$' };
    expect(reportCardOf(turnOf(card('Bilan', 'Rapport de recherche approfondie')), french)).toEqual({ title: 'Bilan' });
  });
});

describe.skipIf(!present)('the report card in the capture of 2026-10-04 (text only)', () => {
  it("has the reader's label on a line of its own, under the report's title", () => {
    const capture = JSON.parse(readFileSync(join(folder, 'page-text-json-mcp-comet-asikorskiy-2026-10-04.json'), 'utf8')) as { artifact: { text: string } };
    const lines = capture.artifact.text.split('\n').map((l) => l.trim());
    const pattern = new RegExp(threadPage2026.reportCard?.pattern ?? '(?!)', 'i');
    const at = lines.findIndex((l) => pattern.test(l));
    expect(at).toBeGreaterThan(0);
    const title = lines[at - 1] as string;
    // The same words drawn as a card: the reader gives the title back.
    expect(reportCardOf(turnOf(card(title, lines[at])), threadPage2026.reportCard)).toEqual({ title });
  });
});
