import { expect, test } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { startSimServer, type SimServer } from '../sim/server';
import { createSimSite } from '../sim/site';
import { Harness, textOf } from '../support/harness';
import { CAPTURE_MODES } from '../support/real-capture-modes';
import { inOrderShare, type RealCapture, realCapturesFolder, realThreadPages, servingCaptures } from '../support/real-captures';

/**
 * The pages other people captured from the live perplexity.ai, served at perplexity.ai URLs through the
 * sim server's TLS and host-resolver rules, read through the whole chain: MCP client → comet-relay → host
 * → worker → content script. What each tool returns is held against the page's own answer block (the
 * last non-empty `[data-workflow-final-text]` or `div[id^="markdown-content-"]`) and its citations.
 */
const folder = realCapturesFolder();
const captures: RealCapture[] = 'dir' in folder ? realThreadPages(folder.dir) : [];

/** What the page itself holds in its last answer block: the prose's words and the cited URLs. */
async function ownAnswer(page: Page): Promise<{ text: string; urls: string[]; row: boolean }> {
  return page.evaluate(() => {
    const blocks = [...document.querySelectorAll('[data-workflow-final-text], div[id^="markdown-content-"]')];
    const withText = blocks.filter((b) => (b.textContent ?? '').trim() !== '');
    const last = withText.at(-1);
    if (!last) return { text: '', urls: [], row: false };
    // The page's "done" sign: an action row after the answer's start (a trimmed capture may have lost it).
    const row = [...document.querySelectorAll('[data-workflow-text-footer], button[aria-label="Helpful"]')].some(
      (r) => last.contains(r) || (last.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0,
    );
    const urls = [...new Set([...last.querySelectorAll('[data-pplx-citation-url]')].map((e) => e.getAttribute('data-pplx-citation-url') ?? ''))];
    const prose = last.querySelector('.prose') ?? last;
    const copy = prose.cloneNode(true) as Element;
    // Citation chips are labels of sources, which a reader may render its own way (or leave out).
    // A space stands in for each, so the words on either side stay apart.
    for (const c of copy.querySelectorAll('.citation, .citation-nbsp')) c.replaceWith(' ');
    // Code captions name the language and hold buttons: a reader may render them as a fence instead.
    for (const c of copy.querySelectorAll('figcaption, button')) c.replaceWith(' ');
    // A formula is drawn twice (MathML and glyphs) beside its hidden TeX: as words, it is its TeX once.
    for (const c of copy.querySelectorAll('.katex')) c.replaceWith(` ${c.querySelector('annotation[encoding="application/x-tex"]')?.textContent ?? ''} `);
    return { text: copy.textContent ?? '', urls: urls.filter(Boolean), row };
  });
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

test.describe('real perplexity.ai captures through the whole chain', () => {
  test.skip('skip' in folder, 'skip' in folder ? folder.skip : '');

  let srv: SimServer;
  let harness: Harness;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError), raw };
  };

  test.beforeAll(async () => {
    const site = servingCaptures(createSimSite({ seedThreads: false }), captures);
    srv = await startSimServer({ port: 0, site });
    harness = await Harness.start({ browserArgs: srv.chromiumArgs });
    await harness.waitForHost();
    client = await harness.stdioClient('e2e-real-captures');
  });
  test.afterAll(async () => {
    await harness?.close();
    await srv?.close();
  });

  test('the folder holds thread pages', () => {
    expect(captures.length, `no *-thread-page-*.html in ${'dir' in folder ? folder.dir : ''}`).toBeGreaterThanOrEqual(4);
  });

  for (const capture of captures) {
    test(`${capture.file}: comet_mode, comet_poll, comet_wait, comet_get_sources and comet_get_page_content read the page as it is`, async () => {
      test.setTimeout(90_000);
      for (const old of harness.context.pages()) await old.close();
      const page = await harness.openPerplexity(`https://www.perplexity.ai${capture.path}`);
      const own = await ownAnswer(page);
      expect(own.text.trim(), 'the capture has an answer block of its own').not.toBe('');
      expect((await call('comet_connect')).isError).toBe(false);

      // The mode as the page shows it, read by comet_mode; where the page shows none, never a plausible one.
      const shown = CAPTURE_MODES.find((row) => row.file === capture.file);
      expect(shown, `${capture.file} has its row in tests/support/real-capture-modes.ts`).toBeDefined();
      const mode = await call('comet_mode');
      if (shown?.mode) expect.soft(mode.text, shown.why).toBe(`Current mode: ${shown.mode}`);
      else expect.soft(mode.text, `${shown?.why}: no mode may be said, only why none could be read`).toMatch(/^Current mode: unknown \(.+\)$/s);

      if (!own.row) {
        // No sign either way on the page, and no thread JSON for a capture: the miss, never a plausible status.
        const polled = await call('comet_poll');
        expect(polled.isError, polled.text).toBe(true);
        expect(polled.text).toContain('SELECTOR_MISS');
        expect(polled.text).toContain('the thread JSON could not say either');
        return;
      }
      const polled = await call('comet_poll');
      expect.soft(polled.isError, polled.text).toBe(false);
      const snapshot = (polled.isError ? { status: '', response: '' } : JSON.parse(polled.text)) as { status: string; response: string };
      expect.soft(snapshot.response.trim(), 'comet_poll read the answer').not.toBe('');
      expect.soft(snapshot.status, 'a captured page has finished').not.toBe('working');
      expect.soft(inOrderShare(words(own.text), snapshot.response), 'comet_poll holds the words of the page\'s answer block').toBeGreaterThan(0.9);

      const waited = await call('comet_wait', { timeout: 10_000 });
      expect.soft(waited.text).not.toContain('still working after timeout');
      expect.soft(waited.isError, waited.text).toBe(false);
      expect.soft(inOrderShare(words(own.text), waited.text), 'comet_wait returns the answer').toBeGreaterThan(0.9);

      const sources = await call('comet_get_sources');
      expect.soft(sources.isError, sources.text).toBe(false);
      for (const url of own.urls) expect.soft(sources.text, `comet_get_sources lists ${url}`).toContain(url);

      const content = await call('comet_get_page_content', { maxLength: 1_000_000 });
      expect.soft(content.isError, content.text).toBe(false);
      expect.soft(inOrderShare(words(own.text), content.text), 'comet_get_page_content holds the answer').toBeGreaterThan(0.9);
    });
  }
});
