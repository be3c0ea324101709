/**
 * Saves, for every computer-task scenario, what both thread readers see at the moment the task
 * reaches its checkpoint: the page (a DOM snapshot, scripts removed, like save-pages.ts) and the
 * web app's thread JSON fetched at the same moment with the app's headers:
 *
 *   tests/fixtures/threads/{A|B}-{scenario}.html   and   .json
 *
 *   npm run sim:save-threads        (needs Chromium: CHROMIUM_PATH, /usr/bin/chromium or Playwright's)
 *
 * Each generation is saved with its default layout (site.ts `defaultLayout`, pinned so that
 * COMET_SIM_LAYOUT does not change the fixtures): A the pre-capture `turn-2026-04`, B the captured
 * `blocks-2026-08`. Each page's header names its layout and the day it was saved. Last regenerated
 * 2026-12-05 (before that, both generations were saved on `turn-2026-04`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { routeSim } from './playwright';
import { createSimSite, defaultLayout, type Generation } from './site';
import type { SimLayout } from './types';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { REQUIRED_HEADERS } from './json/thread-json';
import { findChromium } from '../support/chromium';

const OUT = fileURLToPath(new URL('../fixtures/threads/', import.meta.url));
const ORIGIN = 'https://www.perplexity.ai';
/** The day the fixtures are saved (UTC), written into each page's header. */
const SAVED_ON = new Date().toISOString().slice(0, 10);

/**
 * The composer's stop control while a turn runs. Captured layouts: "Stop response" in the composer's
 * box, in Submit's place (not the thread header's "Stop response (Esc)" hint, nor Dictation's "Stop
 * dictation", which carries the same icon). `turn-2026-04`: "Stop" in the composer.
 */
function stopControl(page: Page, layout: SimLayout) {
  return layout === 'turn-2026-04'
    ? page.locator('[data-ask-input-container] button[aria-label="Stop"]')
    : page.locator('[data-ask-input-container] button[aria-label^="Stop response"]');
}

/** Scenario → the page-script event that marks its checkpoint (window.__sim). */
export const THREAD_FIXTURES: {
  scenario: string;
  until: string;
  mode?: 'research';
  name?: string;
  afterwards?: (page: Page, layout: SimLayout) => Promise<void>;
}[] = [
  { scenario: 'computer-complete', until: 'answer-finished' },
  { scenario: 'computer-files', until: 'answer-finished' },
  { scenario: 'computer-question', until: 'waiting' },
  { scenario: 'computer-questions', until: 'waiting' },
  { scenario: 'computer-confirm', until: 'waiting' },
  { scenario: 'computer-auth', until: 'waiting' },
  { scenario: 'computer-2fa', until: 'blocked' },
  { scenario: 'computer-form', until: 'blocked' },
  { scenario: 'computer-sleep', until: 'sleeping' },
  { scenario: 'computer-waiting', until: 'blocked' },
  { scenario: 'computer-error', until: 'error' },
  { scenario: 'computer-credits', until: 'blocked' },
  { scenario: 'computer-denied', until: 'blocked' },
  { scenario: 'computer-long', until: 'step', name: 'computer-running' },
  {
    scenario: 'computer-long',
    until: 'step',
    name: 'computer-cancelled',
    afterwards: async (page, layout) => {
      await stopControl(page, layout).click();
      await page.waitForFunction(() => window.__sim.events.some((e) => e.type === 'stopped'));
    },
  },
  { scenario: 'research-clarify', until: 'waiting', mode: 'research' },
];

async function dom(page: Page): Promise<string> {
  return page.evaluate(() => {
    const clone = document.documentElement.cloneNode(true) as HTMLElement;
    for (const s of clone.querySelectorAll('script')) s.remove();
    return clone.outerHTML;
  });
}

async function threadJson(page: Page): Promise<string> {
  const id = new URL(page.url()).pathname.split('/').pop() ?? '';
  return page.evaluate(
    async ([ref, headers, query]) => (await fetch(`/rest/thread/${ref}?${new URLSearchParams(query)}`, { headers })).text(),
    [id, REQUIRED_HEADERS, threadJson2026.request.query] as const,
  );
}

async function chooseMode(page: Page, gen: Generation, mode: 'computer' | 'research'): Promise<void> {
  // Generation B: two mode-toggle wrappers, each holding one button with aria-pressed and a visible name
  // (Sep 2026 captures): first the mode menu's trigger (a Radix trigger: aria-expanded, no aria-haspopup),
  // then the Computer toggle (no aria-label, icon #pplx-icon-custom-computer).
  const wrappers = '[data-testid="ask-input-mode-toggle-width-wrapper"]';
  if (gen === 'B' && mode === 'computer') {
    const toggle = page.locator(`${wrappers} button[aria-pressed]:has(use[href="#pplx-icon-custom-computer"])`);
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    return;
  }
  if (gen === 'B') {
    await page.locator(`${wrappers} button[aria-expanded]`).click();
    await page.locator('[role="menu"][data-state="open"] [role="menuitemradio"]', { hasText: 'Deep research' }).click();
    return;
  }
  await page.locator('#ask-input').click();
  await page.keyboard.type(mode === 'computer' ? '/Computer' : '/Deep');
  await page.keyboard.press('Enter');
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const gen of ['A', 'B'] as const) {
      for (const f of THREAD_FIXTURES) {
        // Each generation's default layout: A turn-2026-04, B blocks-2026-08 (the live layout of Aug–Oct 2026).
        const layout = defaultLayout(gen);
        const site = createSimSite({ generation: gen, layout, speed: 4, seedThreads: false, longTaskMs: 60_000 });
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await routeSim(context, site);
        const page = await context.newPage();
        page.on('pageerror', (e) => console.error(`page error (${gen} ${f.scenario}):`, e.message));
        await page.goto(`${ORIGIN}/`);
        await chooseMode(page, gen, f.mode ?? 'computer');
        await page.locator('#ask-input').click();
        await page.keyboard.type(`Task for the fixtures #scenario:${f.scenario}`);
        await page.keyboard.press('Enter');
        await page.waitForFunction((t) => window.__sim.events.some((e) => e.type === t), f.until, { timeout: 30_000 });
        await page.waitForTimeout(100);
        await f.afterwards?.(page, layout);
        const name = `${gen}-${f.name ?? f.scenario}`;
        const header = `<!DOCTYPE html>\n<!-- simulated perplexity.ai, generation ${gen}, layout ${layout}: ${f.name ?? f.scenario} at its checkpoint. URL: ${new URL(page.url()).pathname}. Saved ${SAVED_ON} by tests/sim/save-threads.ts -->\n`;
        fs.writeFileSync(path.join(OUT, `${name}.html`), `${header}${await dom(page)}\n`);
        const json = JSON.parse(await threadJson(page)) as unknown;
        fs.writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify({ url: page.url(), savedAt: new Date().toISOString(), body: json }, null, 1)}\n`);
        console.log(`${name}: saved`);
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) await main();
