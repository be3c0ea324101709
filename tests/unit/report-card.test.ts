// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reportCardOf } from '../../lib/page/answer/report-card';
import { Turn, turnsOf } from '../../lib/page/dom/turns';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import type { ThreadPageReader } from '../../lib/selectors/thread-schema';
import { chooseSelectorSet, generationB } from '../../lib/selectors';
import { readSettings } from '../../lib/config/settings';
import type { ToolBrowser } from '../../lib/mcp/gateway';
import type { ToolContext } from '../../lib/mcp/tool';
import { allTools } from '../../lib/mcp/tools';
import { lazyDriver } from '../../lib/page/handlers';
import type { PageKitHost } from '../../lib/page/kit-registry';
import { sourcesKit } from '../../lib/page/kits/source-reader';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { ReaderShelf } from '../../lib/selectors/reader-shelf';
import { loadHtml } from '../fixtures/reader/load';
import { z } from 'zod';

const SET = generationB;

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
    expect(reportCardOf(turn, threadPage2026.reportCard, SET)).toEqual({ title: 'Weekly brief #3' });
  });

  it('is nothing on a turn without the label, nor for words that only mention it in the answer', () => {
    expect(reportCardOf(turnOf('<div class="prose"><p>An ordinary answer.</p></div>'), threadPage2026.reportCard, SET)).toBeNull();
    expect(reportCardOf(turnOf('<div class="prose"><p>See the Deep research report above for details.</p></div>'), threadPage2026.reportCard, SET)).toBeNull();
  });

  it('has no title when the words around the label are more than a title', () => {
    expect(reportCardOf(turnOf(card('x'.repeat(400))), threadPage2026.reportCard, SET)).toEqual({ title: '' });
  });

  it('is data: a reader without the probe (written before it) finds none, and another label is one edit', () => {
    const { reportCard: _, ...older } = threadPage2026;
    expect(reportCardOf(turnOf(card('Weekly brief')), (older as ThreadPageReader).reportCard, SET)).toBeNull();
    const french = { scope: ['span'], pattern: '^rapport de recherche approfondie$' };
    expect(reportCardOf(turnOf(card('Bilan', 'Rapport de recherche approfondie')), french, SET)).toEqual({ title: 'Bilan' });
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
    expect(reportCardOf(turnOf(card(title, lines[at])), threadPage2026.reportCard, SET)).toEqual({ title });
  });
});

/** `page.report` as the sources kit answers it, on the document loaded. */
function report(params: { turnIndex: number; url: string }): Promise<{ card: { title: string } | null; url: string }> {
  const catalog = new SelectorCatalog();
  const handlers = sourcesKit({ win: window, driver: lazyDriver(window, catalog), catalog, readers: new ReaderShelf() } as unknown as PageKitHost);
  return (handlers['page.report'] as unknown as (p: object, c: never) => Promise<{ card: { title: string } | null; url: string }>)(params, undefined as never);
}

const THREAD = 'https://www.perplexity.ai/search/the-thread';
const page = (name: string) => readFileSync(join(folder, name), 'utf8');
const ONE = 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
const SEVERAL = 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';

describe.skipIf(!present)('page.report on real Sep 2026 pages (a card added where the 2026-10-04 capture shows one)', () => {
  it("the person's question, or the answer, reading the label is no card", async () => {
    loadHtml(page(ONE), THREAD);
    const question = document.querySelector('[data-workflow-entry] [data-renderer="lm"]') as HTMLElement;
    question.innerHTML = '<p>Write up the findings under this heading:</p><p>Deep research report</p>';
    expect((await report({ turnIndex: 0, url: THREAD })).card).toBeNull();
    loadHtml(page(ONE), THREAD);
    const prose = document.querySelector('[data-workflow-final-text] [data-renderer="lm"]') as HTMLElement;
    prose.innerHTML = '<p><strong>Deep research report</strong></p><p>Paris is the capital of France.</p>';
    expect((await report({ turnIndex: 0, url: THREAD })).card).toBeNull();
  });

  it("comet_wait names the card of the turn it returned, not the page's latest; none once the tab shows another conversation", async () => {
    loadHtml(page(SEVERAL), THREAD);
    const finals = [...document.querySelectorAll('[data-workflow-final-text] [data-workflow-items]')];
    expect(finals.length).toBeGreaterThanOrEqual(2);
    finals.at(-2)?.insertAdjacentHTML('afterbegin', card("Report A on the session's question"));
    finals.at(-1)?.insertAdjacentHTML('afterbegin', card("Report B on the person's later question"));
    // The page's own index of that turn (this capture keeps turns 2–4 mounted).
    const own = turnsOf(document, chooseSelectorSet(document).set).find((t) => t.contains(finals.at(-2) as Element))?.index ?? -1;
    expect(own).toBeGreaterThanOrEqual(0);
    const wait = allTools.find((t) => t.name === 'comet_wait');
    if (!wait) throw new Error('no comet_wait');
    const browser = {
      call: async (method: string, params: { turnIndex: number; url: string }) => {
        if (method === 'page.wait') return { status: 'completed', response: 'Summary of A.', steps: [], currentStep: '', turnIndex: own, questionText: 'q', truncated: false, totalLength: 13, url: THREAD };
        if (method === 'page.report') return report(params);
        throw new Error(method);
      },
    } as unknown as ToolBrowser;
    const session: ToolContext['session'] = { mode: 'deep-research', lastAsk: { turnIndex: own, conversationUrl: THREAD, questionKey: 'q', askedAt: 1 } };
    const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
    const text = ((await wait.handler(z.object(wait.inputSchema).parse({}), context)) as { content: { text: string }[] }).content[0]?.text ?? '';
    expect(text).toContain(`Deep research report "Report A on the session's question"`);
    expect(text).not.toContain('Report B');
    expect((await report({ turnIndex: own, url: 'https://www.perplexity.ai/search/another-thread' })).card).toBeNull();
  });
});
