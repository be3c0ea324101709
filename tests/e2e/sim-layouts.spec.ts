import { expect, test } from '@playwright/test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { routeSim } from '../sim/playwright';
import { createSimSite, type SimSite } from '../sim/site';
import type { SimLayout } from '../sim/types';
import { findChromium, QUIET_FLAGS } from '../support/chromium';

/**
 * The simulated site's thread layouts hold the structure the 2026 captures show (tests/sim/README.md
 * names the capture behind each): checked on the sim's own DOM, in plain Chromium, no extension.
 */
let browser: Browser;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: QUIET_FLAGS });
});
test.afterAll(async () => browser?.close());

async function open(layout: SimLayout, seedThreads = false, dictation = false): Promise<{ site: SimSite; page: Page }> {
  const site = createSimSite({ generation: 'B', scenario: 'short', speed: 4, layout, seedThreads, dictation });
  const context = await browser.newContext();
  await routeSim(context, site);
  const page = await context.newPage();
  await page.goto('https://www.perplexity.ai/');
  return { site, page };
}

async function ask(page: Page, prompt: string): Promise<void> {
  await page.locator('#ask-input').click();
  await page.keyboard.type(prompt);
  await page.keyboard.press('Enter');
}

const finished = (page: Page, n: number) =>
  page.waitForFunction((count) => window.__sim.events.filter((e) => e.type === 'answer-finished').length >= count, n, { timeout: 30_000 });

test('Aug–Oct 2026: question, answer and action row are siblings, the steps inside the answer above its prose; the answer mounts with the first token, the row when done', async () => {
  const { page } = await open('blocks-2026-08', false, true);
  await ask(page, 'Where is the answer? #scenario:slow');
  const final = page.locator('[data-workflow-final-text]');
  await expect(final).toHaveCount(1, { timeout: 15_000 });
  // Streaming: the answer block is there, the composer's stop control too, no action row yet.
  expect(await page.evaluate(() => window.__sim.events.some((e) => e.type === 'answer-finished'))).toBe(false);
  const stop = page.locator('[data-ask-input-container] button:has(use[href="#pplx-icon-player-stop-filled"]):not([aria-label="Stop dictation"])');
  await expect(stop).toHaveAttribute('aria-label', /^Stop response/);
  await expect(page.locator('[data-workflow-text-footer]')).toHaveCount(0);
  // Dictation is on: its button carries the same icon in the same box.
  await expect(page.locator('[data-ask-input-container] button[aria-label="Stop dictation"]:has(use[href="#pplx-icon-player-stop-filled"])')).toHaveCount(1);
  // The stop control takes the send button's place; a "Stop response (Esc)" hint far from the composer is not it.
  await expect(page.locator('[data-ask-input-container] button[aria-label="Submit"]')).toHaveCount(0);
  await expect(page.locator('button[aria-label="Stop response (Esc)"]')).toHaveCount(1);
  await expect(page.locator('[data-ask-input-container] button[aria-label="Stop response (Esc)"]')).toHaveCount(0);
  await finished(page, 1);
  await expect(stop).toHaveCount(0);
  await expect(page.locator('button[aria-label="Stop response (Esc)"]')).toHaveCount(0);
  const order = await page.evaluate(() => {
    const entry = document.querySelector('[data-workflow-entry="0"]') as Element;
    const siblings: string[] = [];
    for (let n = entry.nextElementSibling; n; n = n.nextElementSibling) {
      if (n.matches('[data-workflow-final-text]')) siblings.push('final');
      else if (n.querySelector('[data-workflow-text-footer]')) siblings.push('footer');
      else if (/Completed \d+ steps/.test(n.textContent ?? '')) siblings.push('steps');
    }
    // The steps, as the Sep 2026 captures place them: an item of the answer block before the prose, with no hook of its own.
    const final = document.querySelector('[data-workflow-final-text]') as Element;
    const header = [...final.querySelectorAll('button[aria-expanded]')].find((b) => /Completed \d+ steps/.test(b.textContent ?? ''));
    const prose = final.querySelector('.prose') as Element;
    const stepsAboveProse = header !== undefined && Boolean(prose.compareDocumentPosition(header) & Node.DOCUMENT_POSITION_PRECEDING);
    const stepsHooks = document.querySelectorAll('[data-testid*="steps"], [data-testid*="step"]').length;
    return { siblings, answerInsideEntry: entry.querySelector('[data-workflow-final-text]') !== null, bubble: entry.querySelector('[class~="group/user-bubble"]') !== null, stepsAboveProse, stepsHooks };
  });
  expect(order).toEqual({ siblings: ['final', 'footer'], answerInsideEntry: false, bubble: true, stepsAboveProse: true, stepsHooks: 0 });
  // The composer as the Aug 2026 capture has it (sim review #9): the mode trigger opens a menu, and an "Add files or
  // tools" menu button and an aria-hidden indicator with a test id of its own sit beside the wrappers (decoys).
  await expect(page.locator('[data-testid="ask-input-mode-toggle-width-wrapper"] button[aria-haspopup="menu"]')).toHaveCount(1);
  await expect(page.locator('[data-ask-input-container] button[aria-label="Add files or tools"][aria-haspopup="menu"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="ask-input-mode-toggle-indicator"][aria-hidden="true"]')).toHaveCount(1);
  // The steps header is folded; a read-aloud "Stop" in the action row is not the stop control.
  await expect(page.getByRole('button', { name: /^Completed \d+ steps$/ })).toHaveAttribute('aria-expanded', 'false');
  await expect(page.locator('[data-workflow-text-footer] button[aria-label="Stop"]')).toHaveCount(1);
  for (const label of ['Copy', 'Share', 'Helpful']) await expect(page.locator(`[data-workflow-text-footer] button[aria-label="${label}"]`)).toHaveCount(1);
});

test('Sep–Oct 2026: Stop response takes Submit\'s place while the answer is written; Dictation, when on, is "Stop dictation" with the same icon', async () => {
  const { page } = await open('sessions-2026-09');
  const box = page.locator('[data-ask-input-container]');
  const stopIcon = 'use[href="#pplx-icon-player-stop-filled"]';
  // Off (the default): the microphone, labelled "Dictation", and no stop icon anywhere in the box.
  await ask(page, 'Swap the send button #scenario:slow');
  await expect(page.locator('[data-workflow-final-text]')).toHaveCount(1, { timeout: 15_000 });
  await expect(box.locator('button[aria-label="Dictation"] use[href="#pplx-icon-microphone"]')).toHaveCount(1);
  await expect(box.locator(`button:has(${stopIcon})`)).toHaveCount(1);
  await expect(box.locator(`button:has(${stopIcon})`)).toHaveAttribute('aria-label', /^Stop response/);
  await expect(box.locator('button[aria-label="Submit"]')).toHaveCount(0);
  // A person turns dictation on: two buttons with the stop icon in the box, one of them the stop control.
  await box.locator('button[aria-label="Dictation"]').click();
  await expect(box.locator('button[aria-label="Stop dictation"]').locator(stopIcon)).toHaveCount(1);
  await expect(box.locator(`button:has(${stopIcon})`)).toHaveCount(2);
  await finished(page, 1);
  // Done: Submit is back (disabled, nothing typed), the stop control gone, dictation still on.
  await expect(box.locator('button[aria-label="Submit"]')).toBeDisabled();
  await expect(box.locator(`button:has(${stopIcon})`)).toHaveCount(1);
  await expect(box.locator('button[aria-label="Stop dictation"]')).toHaveCount(1);
  // Its place in the toolbar, as captured: after Model, in a wrapper of its own, right before Submit (last).
  const row = await page.evaluate(() => {
    const submit = document.querySelector('[data-ask-input-container] button[aria-label="Submit"]') as Element;
    return [...(submit.parentElement?.parentElement?.querySelectorAll('button[aria-label]') ?? [])].map((b) => b.getAttribute('aria-label'));
  });
  expect(row.slice(-2)).toEqual(['Stop dictation', 'Submit']);
  expect(row.indexOf('Model')).toBeGreaterThan(-1);
  expect(row.indexOf('Model')).toBeLessThan(row.indexOf('Stop dictation'));
  // Turned off again, and on for a whole page load by the URL's switch.
  await box.locator('button[aria-label="Stop dictation"]').click();
  await expect(box.locator('button[aria-label="Dictation"]')).toHaveCount(1);
  await page.goto(`${page.url()}?dictation=on`);
  await expect(page.locator('[data-ask-input-container] button[aria-label="Stop dictation"]')).toHaveCount(1);
});

test('Aug–Oct 2026: citations are nested spans with no anchors, grouped chips read "name +N", one tablist in the header', async () => {
  const { page } = await open('blocks-2026-08');
  await ask(page, 'Cite a lot #scenario:grouped-citations');
  await finished(page, 1);
  const facts = await page.evaluate(() => {
    const final = document.querySelector('[data-workflow-final-text]') as Element;
    const outer = [...final.querySelectorAll('span.citation.inline[data-pplx-citation-url]')];
    return {
      anchors: final.querySelectorAll('a[href]').length,
      outer: outer.length,
      nested: outer.every((o) => o.querySelector('span.citation.inline:not([data-pplx-citation-url])') !== null),
      labels: outer.map((o) => o.textContent?.trim()),
      tablists: document.querySelectorAll('[role="tablist"]').length,
      tabs: [...document.querySelectorAll('[role="tablist"] [role="tab"]')].map((t) => t.textContent?.trim()),
      tablistInTurn: document.querySelector('[data-workflow-entry] [role="tablist"]') !== null,
    };
  });
  expect(facts.anchors).toBe(0);
  expect(facts.outer).toBeGreaterThan(3);
  expect(facts.nested).toBe(true);
  expect(facts.labels).toContain('reuters +2');
  expect(facts).toMatchObject({ tablists: 1, tabs: ['Answer', 'Links', 'Images'], tablistInTurn: false });
  await page.getByRole('tab', { name: 'Links' }).click();
  await expect(page.locator('[role="tabpanel"][data-state="active"] a[href^="https://www.reuters.com/"]').first()).toBeVisible();
});

test('Aug–Oct 2026: a long thread keeps only its latest five answers mounted; entries keep their index', async () => {
  const { page } = await open('blocks-2026-08');
  for (let i = 0; i < 7; i++) {
    await ask(page, `Question number ${i}`);
    await finished(page, i + 1);
  }
  const mounted = await page.evaluate(() => ({
    answers: document.querySelectorAll('[data-workflow-final-text]').length,
    entries: [...document.querySelectorAll('[data-workflow-entry]')].map((e) => e.getAttribute('data-workflow-entry')),
  }));
  expect(mounted).toEqual({ answers: 5, entries: ['2', '3', '4', '5', '6'] });
});

test('February 2026: group/query questions, answers in #markdown-content-N, citations wrapping links, "Reviewed N sources"', async () => {
  const { page } = await open('markdown-2026-02');
  await ask(page, 'An old-style page');
  await finished(page, 1);
  await ask(page, 'A follow-up');
  await finished(page, 2);
  const facts = await page.evaluate(() => ({
    entries: document.querySelectorAll('[data-workflow-entry], [data-workflow-final-text]').length,
    answers: [...document.querySelectorAll('div[id^="markdown-content-"]')].map((d) => d.id),
    heading: document.querySelector('h1[class~="group/query"] span.select-text')?.textContent,
    queries: document.querySelectorAll('[class~="group/query"]').length,
    citedLinks: document.querySelectorAll('#markdown-content-1 span.citation.inline[data-pplx-citation-url] a[href]').length,
    header: [...document.querySelectorAll('[role="tablist"][aria-label="Answer mode tabs"] [role="tab"]')].map((t) => t.textContent?.trim()),
  }));
  expect(facts).toMatchObject({ entries: 0, answers: ['markdown-content-0', 'markdown-content-1'], heading: 'An old-style page', queries: 2 });
  expect(facts.citedLinks).toBeGreaterThan(0);
  expect(facts.header).toEqual(['Answer', 'Links', 'Images']);
  await expect(page.getByRole('button', { name: /^Reviewed \d+ sources$/ })).toHaveCount(2);
});

test('mixed-2026-08: two threads of one site served in the two layouts', async () => {
  const { page } = await open('mixed-2026-08');
  await ask(page, 'First thread');
  await finished(page, 1);
  await expect(page.locator('[data-workflow-final-text]')).toHaveCount(1);
  await page.goto('https://www.perplexity.ai/');
  await ask(page, 'Second thread');
  await page.waitForURL(/\/search\//);
  await expect(page.locator('div[id^="markdown-content-"]')).toHaveCount(1, { timeout: 15_000 });
  await expect(page.locator('[data-workflow-final-text]')).toHaveCount(0);
});
