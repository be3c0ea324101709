/**
 * Saves DOM snapshots of the simulated perplexity.ai at meaningful moments, for reader unit tests:
 * tests/fixtures/pages/{A|B}-{name}.html
 *
 *   npm run sim:save-pages            (needs Chromium: CHROMIUM_PATH, /usr/bin/chromium or Playwright's)
 *   npm run sim:save-pages -- --tasks-only   (only the computer-task pages: questions, confirmations)
 *
 * A snapshot is `document.documentElement.outerHTML` with the page's <script> elements removed (the
 * simulator's boot data and bundle are not part of the page a content script reads), preceded by a
 * comment naming the generation, the thread layout, the day it was saved, the moment and the URL.
 *
 * Each generation is saved with its default layout (site.ts `defaultLayout`, pinned here so that
 * COMET_SIM_LAYOUT does not change the fixtures): A the pre-capture `turn-2026-04`, B the captured
 * `blocks-2026-08` (tests/sim/README.md, "Thread layouts"). The two differ in where the stop control
 * is, where the Links tab is, how citations and old turns look; the steps below name the control each
 * layout has. Last regenerated 2026-12-05.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Page, chromium } from 'playwright-core';
import { routeSim } from './playwright';
import { type Generation, type SimSite, createSimSite, defaultLayout } from './site';
import type { SimLayout } from './types';
import { findChromium } from '../support/chromium';

const OUT = fileURLToPath(new URL('../fixtures/pages/', import.meta.url));
const ORIGIN = 'https://www.perplexity.ai';
/** The day the fixtures are saved (UTC), written into each file's header. */
const SAVED_ON = new Date().toISOString().slice(0, 10);
/** The layout each generation is saved with (set in main). */
const layoutOf: Partial<Record<Generation, SimLayout>> = {};
const captured = (gen: Generation): boolean => layoutOf[gen] !== 'turn-2026-04';

async function snapshot(page: Page, gen: Generation, name: string, what: string): Promise<void> {
  const html = await page.evaluate(() => {
    const clone = document.documentElement.cloneNode(true) as HTMLElement;
    for (const s of clone.querySelectorAll('script')) s.remove();
    return clone.outerHTML;
  });
  const file = path.join(OUT, `${gen}-${name}.html`);
  const header = `<!DOCTYPE html>\n<!-- simulated perplexity.ai, generation ${gen}, layout ${layoutOf[gen]}: ${what}. URL: ${new URL(page.url()).pathname}. Saved ${SAVED_ON} by tests/sim/save-pages.ts -->\n`;
  fs.writeFileSync(file, `${header}${html}\n`);
  console.log(`${path.relative(process.cwd(), file)}  ${(fs.statSync(file).size / 1024).toFixed(1)} kB`);
}

function waitEvent(page: Page, type: string, count = 1): Promise<unknown> {
  return page.waitForFunction(
    ([t, n]) => window.__sim.events.filter((e) => e.type === t).length >= (n as number),
    [type, count] as const,
    { timeout: 20_000 },
  );
}

/**
 * The composer's stop control while an answer is written. Captured layouts: "Stop response" in the
 * composer's box, in Submit's place (not the thread header's "Stop response (Esc)" hint, not Dictation's
 * "Stop dictation", which carries the same icon). `turn-2026-04`: "Stop" beside Submit.
 */
function stopControl(page: Page, gen: Generation) {
  return captured(gen)
    ? page.locator('[data-ask-input-container] button[aria-label^="Stop response"]')
    : page.locator('button[aria-label="Stop"]');
}

/** A follow-up in the thread on screen; waits until that many answers of this page load finished. */
async function askInThread(page: Page, query: string, finished: number): Promise<void> {
  await page.locator('#ask-input').click();
  await page.keyboard.type(query);
  await page.keyboard.press('Enter');
  await waitEvent(page, 'answer-finished', finished);
}

async function askFromHome(page: Page, query: string): Promise<void> {
  await page.goto(`${ORIGIN}/`);
  await page.locator('#ask-input').click();
  await page.keyboard.type(query);
  await page.keyboard.press('Enter');
  await waitEvent(page, 'turn-started');
}

async function savePages(gen: Generation, site: SimSite, page: Page): Promise<void> {
  await page.goto(`${ORIGIN}/`);
  await page.waitForSelector('.recent a[href]');
  await snapshot(page, gen, 'home', 'home page, composer empty, sidebar loaded');

  if (gen === 'A') {
    await page.locator('#ask-input').click();
    await page.keyboard.type('/');
    await page.waitForSelector('[role="listbox"][aria-label="Typeahead menu"]');
    await snapshot(page, gen, 'home-mode-menu', 'slash typeahead open (no mode active)');
    await page.keyboard.press('Enter'); // picks Deep research
    await page.keyboard.type('/');
    await page.waitForSelector('[role="listbox"] .bg-subtle');
    await snapshot(page, gen, 'home-mode-menu-active', 'slash typeahead open, Deep research active');
    await page.keyboard.press('Escape');
    await page.locator('button[aria-label^="Remove mode"]').click();
  } else {
    // Two mode-toggle wrappers, each with one aria-pressed button: the mode menu's trigger (a Radix trigger:
    // aria-expanded; no aria-haspopup, as in the Sep 2026 captures) and the Computer toggle (no aria-expanded).
    await page.locator('[data-testid="ask-input-mode-toggle-width-wrapper"] button[aria-expanded]').click();
    await page.waitForSelector('[role="menu"] [role="menuitemradio"]');
    await snapshot(page, gen, 'home-mode-menu', 'mode chip menu open (Search checked)');
    await page.keyboard.press('Escape');
    // The model button: labelled "Model", a Radix trigger outside the mode wrappers.
    await page.locator('button[aria-haspopup="menu"][aria-label="Model"]').click();
    await page.waitForSelector('[role="menu"][data-state="open"] use[href="#pplx-icon-check"]');
    await snapshot(page, gen, 'home-model-menu', 'model picker menu open (Best checked)');
    await page.keyboard.press('Escape');
  }

  // Streaming: the slow scenario pauses between 1.2 s and 3.7 s; snapshot inside that pause.
  site.setScenario('slow');
  await askFromHome(page, 'How do browser agents work?');
  await page.waitForSelector('[data-workflow-final-text]');
  await page.waitForTimeout(1500);
  await stopControl(page, gen).waitFor();
  await snapshot(page, gen, 'thread-streaming', 'a turn mid-stream: the stop control and spinners visible');

  site.setScenario('short');
  await askFromHome(page, 'What is the Model Context Protocol?');
  await waitEvent(page, 'answer-finished');
  await snapshot(page, gen, 'thread-short', 'finished short answer with citations');

  await askFromHome(page, 'Explain the research loop #scenario:keywords');
  await waitEvent(page, 'answer-finished');
  await snapshot(page, gen, 'thread-keywords', 'finished answer whose prose contains Reading / Searching / Preparing / Thinking');

  await askFromHome(page, 'Who covered the Comet launch? #scenario:grouped-citations');
  await waitEvent(page, 'answer-finished');
  if (gen === 'B') {
    // The chip is the outer span with the URL (captured layouts nest a second `.citation` inside it).
    await page.locator('[data-workflow-final-text] [data-pplx-citation-url]').nth(2).click();
    await page.waitForSelector('[role="dialog"]');
    await snapshot(page, gen, 'thread-grouped-citations', 'grouped citations, popover of the 3rd citation (with a title-only entry) open');
    await page.keyboard.press('Escape');
    // One Answer / Links / Images tablist in the thread header (captured layouts), not one per turn.
    await page.locator('[role="tablist"] [role="tab"]', { hasText: 'Links' }).first().click();
    await page.waitForSelector('[role="tabpanel"][data-state="active"] a[href]');
    await snapshot(page, gen, 'thread-links-tab', 'grouped citations, Links tab selected');
  } else {
    await snapshot(page, gen, 'thread-grouped-citations', 'grouped citations (generation A: badges wrapped in <a href>)');
    await page.locator('[data-workflow-entry="0"] [role="tab"]', { hasText: 'Sources' }).click();
    await snapshot(page, gen, 'thread-links-tab', 'Sources tab selected');
  }

  await askFromHome(page, 'State of retrieval benchmarks #scenario:deep-research');
  await waitEvent(page, 'answer-finished');
  await snapshot(page, gen, 'thread-deep-research', 'finished deep research (20 steps, code block, nested prose)');

  await askFromHome(page, 'This will fail #scenario:error');
  await waitEvent(page, 'error');
  await snapshot(page, gen, 'thread-error', 'a turn that ended with an error message');

  await askFromHome(page, 'This never ends #scenario:stopped');
  await page.waitForSelector('[data-workflow-final-text]');
  await page.waitForTimeout(1000);
  await stopControl(page, gen).click();
  await waitEvent(page, 'stopped');
  await snapshot(page, gen, 'thread-stopped', 'an answer stopped by the user mid-stream');

  await page.goto(`${ORIGIN}/search/rust-vs-go-Xq7Lr2TmQ1uV9cWzE0aB3g`);
  if (captured(gen)) {
    // Captured layouts keep only the latest five answers mounted: older turns leave the DOM, question and
    // all, and the rest keep their true data-workflow-entry index. The seeded thread has 4 turns: ask 3 more.
    await page.waitForSelector('[data-workflow-entry="3"]');
    for (let n = 1; n <= 3; n++) await askInThread(page, `Follow-up number ${n}`, n);
    await page.waitForFunction(() => !document.querySelector('[data-workflow-entry="1"]') && !!document.querySelector('[data-workflow-entry="6"]'));
    await snapshot(page, gen, 'thread-virtualized', '7 turns, only the latest five answers mounted: turns 0 and 1 have left the DOM');
  } else {
    // Several turns; the page scrolls to the last one and the early ones become placeholders.
    await page.waitForFunction(() => document.querySelector('[data-workflow-entry="0"]')?.childElementCount === 0);
    await snapshot(page, gen, 'thread-virtualized', '4 turns, scrolled to the last: turns 0 and 1 are empty placeholders');
  }

  if (gen === 'B') {
    await askFromHome(page, 'Write the long report #scenario:long');
    await waitEvent(page, 'answer-finished');
    await snapshot(page, gen, 'thread-long', 'finished 50,000+ character answer');
  }

  await page.goto(`${ORIGIN}/library`);
  await page.waitForSelector('.lib-item');
  await snapshot(page, gen, 'library', 'library listing every thread');
}

/** Computer tasks paused on the person: a question with suggested answers, a confirmation, and after a reply. */
async function saveTaskPages(gen: Generation, page: Page): Promise<void> {
  await askFromHome(page, 'Plan a weekend trip #scenario:task-question');
  await waitEvent(page, 'waiting');
  await snapshot(page, gen, 'task-question', 'computer task waiting on a question (suggested answers, text field, Send)');
  await page.getByRole('textbox', { name: 'Your answer' }).fill('Lyon, please');
  await page.getByRole('button', { name: 'Send answer' }).click();
  await waitEvent(page, 'answer-finished');
  await snapshot(page, gen, 'task-question-answered', 'the same task after the reply, finished with an answer quoting it');

  await askFromHome(page, 'Book dinner #scenario:task-confirm');
  await waitEvent(page, 'waiting');
  await snapshot(page, gen, 'task-confirm', 'computer task waiting on a confirmation (Approve / Deny)');
}

async function main(): Promise<void> {
  const tasksOnly = process.argv.includes('--tasks-only');
  fs.mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
  });
  try {
    for (const gen of ['A', 'B'] as const) {
      const layout = defaultLayout(gen);
      layoutOf[gen] = layout;
      const site = createSimSite({ generation: gen, layout, speed: 1 });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await routeSim(context, site);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error(`page error (${gen}):`, e.message));
      if (!tasksOnly) await savePages(gen, site, page);
      await saveTaskPages(gen, page);
      await context.close();
    }
  } finally {
    await browser.close();
  }
}

await main();
