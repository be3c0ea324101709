import { expect, test } from '@playwright/test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { routeSim } from '../sim/playwright';
import { createSimSite, type SimOptions, type SimSite } from '../sim/site';
import type { Generation } from '../sim/types';
import { findChromium, QUIET_FLAGS } from '../support/chromium';
import { type RelayWorld, relayWorld } from '../support/composer-world';

/**
 * comet_ask's typing (lib/page/composer) on the real Lexical editor (npm `lexical` 0.52 with
 * `@lexical/rich-text`, the sim's composer), in real Chromium, our code in an isolated world as the
 * content script runs: what the page sends is read from the sim's server (the turn's query), what
 * the editor holds from its model (not the DOM). Review fault #19: a successful ask used to destroy the
 * person's unsent draft.
 */
let browser: Browser;
test.beforeAll(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: QUIET_FLAGS });
});
test.afterAll(async () => browser?.close());

interface Opened {
  site: SimSite;
  page: Page;
  relay: RelayWorld;
}

/** The home page, or with `thread` the page of the seeded thread of that title. */
async function open(generation: Generation = 'B', thread?: string, more: Pick<SimOptions, 'layout' | 'dictation'> = {}): Promise<Opened> {
  const site = createSimSite({ generation, scenario: 'short', speed: 8, seedThreads: thread !== undefined, ...more });
  const path = thread === undefined ? '/' : (site.threads().find((t) => t.title === thread)?.path ?? `/no-seeded-thread-${thread}`);
  const context = await browser.newContext();
  await routeSim(context, site);
  const page = await context.newPage();
  await page.goto(`https://www.perplexity.ai${path}`);
  await page.locator('#ask-input').waitFor();
  return { site, page, relay: await relayWorld(page) };
}

/** The thread the sim holds at `path`, or the newest one. */
function queries(site: SimSite, path?: string): string[] {
  const thread = path ? site.thread(path) : site.threads()[0];
  return thread?.turns.map((t) => t.query) ?? [];
}

/** What the editor's model holds (what Submit would send). */
const model = (page: Page) => page.evaluate(() => window.__sim.composerText?.() ?? '<no composer>');

/** Types like a person: a click, keys, Shift+Enter for a line break. */
async function typeDraft(page: Page, draft: string): Promise<void> {
  await page.locator('#ask-input').click();
  const lines = draft.split('\n');
  for (const [i, line] of lines.entries()) {
    if (i > 0) await page.keyboard.press('Shift+Enter');
    await page.keyboard.type(line);
  }
  await expect.poll(() => model(page)).toBe(draft);
}

/** Records every text the composer shows from now on (Lexical renders its model to the DOM on every change). */
async function recordComposer(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    new MutationObserver(() => {
      const text = (document.getElementById('ask-input') as HTMLElement | null)?.innerText ?? '';
      if (seen.at(-1) !== text) seen.push(text);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
}

async function ask(opened: Opened, prompt: string): Promise<{ turnIndex?: number; error?: { code: string; message: string } }> {
  return opened.relay.run(`__relay.ask(${JSON.stringify(prompt)})`);
}

/** Our world's `document.execCommand`: counted, and refusing (`false`) or throwing. */
async function breakExecCommand(relay: RelayWorld, how: 'false' | 'throw'): Promise<void> {
  await relay.run(
    `(document.execCommand = (...args) => { __relay.execCommand.calls.push(args[0]); ${how === 'throw' ? "throw new Error('execCommand is not available here')" : 'return false'}; }, true)`,
  );
}

const execCalls = (relay: RelayWorld) => relay.run<string[]>('__relay.execCommand.calls');

const LONG_UNICODE = [
  'Émojis 👩🏽‍💻🧑‍🤝‍🧑🏳️‍🌈 and flags 🇯🇵🇫🇷',
  'עברית: מה חדש ב-Rust? والعربية: ما الجديد في لغة رست؟',
  '中文：Rust 有什么新功能？日本語：Rust の新機能は？한국어: 러스트의 새 기능은?',
  'combining: e\u0301 a\u0308 — zero width\u200bspace — tab\there',
].join(' ').repeat(12);

test('on a fresh editor: the page sends exactly the prompt, and the editor is left empty', async () => {
  const opened = await open();
  const result = await ask(opened, 'What is new in Rust?');
  expect(result.error).toBeUndefined();
  expect(queries(opened.site)).toEqual(['What is new in Rust?']);
  await expect.poll(() => model(opened.page)).toBe('');
});

for (const generation of ['A', 'B'] as const) {
  test(`generation ${generation}, over a person's draft: the prompt goes alone, and the draft comes back once it is sent (#19)`, async () => {
    const opened = await open(generation);
    await typeDraft(opened.page, 'my half-written draft, not to be sent');
    const seen = await recordComposer(opened.page);
    const result = await ask(opened, 'What is new in Rust?');
    expect(result.error).toBeUndefined();
    expect(queries(opened.site)).toEqual(['What is new in Rust?']);
    // Never appended to or merged with the draft, not even for a moment.
    expect((await seen()).filter((text) => text.includes('draft') && text.includes('Rust'))).toEqual([]);
    // The new conversation's composer (mounted fresh) holds the draft again, in the editor's model.
    await expect.poll(() => model(opened.page)).toBe('my half-written draft, not to be sent');
  });
}

test("on a thread page, a follow-up over a multi-line draft: the prompt goes alone, the draft comes back line for line", async () => {
  const opened = await open('B', 'Rust vs Go');
  const path = new URL(opened.page.url()).pathname;
  const before = queries(opened.site, path);
  expect(before.length).toBeGreaterThan(0);
  await typeDraft(opened.page, 'first thought\nsecond thought');
  const result = await ask(opened, 'And which one has the better tooling?');
  expect(result.error).toBeUndefined();
  expect(queries(opened.site, path)).toEqual([...before, 'And which one has the better tooling?']);
  await expect.poll(() => model(opened.page)).toBe('first thought\nsecond thought');
});

test('Sep 2026 layout, dictation on: a follow-up asked while the previous answer is written waits for it, then goes alone over the draft', async () => {
  const opened = await open('B', 'Rust vs Go', { layout: 'sessions-2026-09', dictation: true });
  const path = new URL(opened.page.url()).pathname;
  const before = queries(opened.site, path);
  // The person asks, and while the answer is written (Stop in Submit's place, "Stop dictation" beside it) starts a draft.
  await typeDraft(opened.page, 'Explain it slowly #scenario:slow');
  await opened.page.keyboard.press('Enter');
  const box = opened.page.locator('[data-ask-input-container]');
  await expect(box.locator('button[aria-label^="Stop response"]')).toHaveCount(1);
  await expect(box.locator('button[aria-label="Submit"]')).toHaveCount(0);
  await expect(box.locator('button[aria-label="Stop dictation"]')).toHaveCount(1);
  await typeDraft(opened.page, 'a draft of mine');
  const result = await ask(opened, 'And which one has the better tooling?');
  expect(result.error).toBeUndefined();
  expect(queries(opened.site, path)).toEqual([...before, 'Explain it slowly #scenario:slow', 'And which one has the better tooling?']);
  // The first answer had ended before the prompt was typed; dictation was never turned off.
  expect(opened.site.thread(path)?.turns.at(-2)?.stoppedAfter).toBeNull();
  await expect(box.locator('button[aria-label="Stop dictation"]')).toHaveCount(1);
  await expect.poll(() => model(opened.page)).toBe('a draft of mine');
});

test('a multi-line prompt keeps its lines (blank ones too), over a draft', async () => {
  const opened = await open();
  await typeDraft(opened.page, 'draft');
  const prompt = 'first line\nsecond line\n\nfourth line, after a blank one';
  const result = await ask(opened, prompt);
  expect(result.error).toBeUndefined();
  expect(queries(opened.site)).toEqual([prompt]);
  await expect.poll(() => model(opened.page)).toBe('draft');
});

test('a long prompt in many scripts (emoji sequences, right to left, CJK, combining marks, a tab) arrives exactly', async () => {
  const opened = await open();
  await typeDraft(opened.page, 'مسودة draft 草稿 😀');
  const result = await ask(opened, LONG_UNICODE);
  expect(result.error).toBeUndefined();
  expect(queries(opened.site)).toEqual([LONG_UNICODE]);
  await expect.poll(() => model(opened.page)).toBe('مسودة draft 草稿 😀');
});

for (const how of ['false', 'throw'] as const) {
  test(`with document.execCommand unavailable (${how === 'false' ? 'refusing' : 'throwing'}): over a draft, the prompt goes alone and the draft comes back, execCommand never needed`, async () => {
    const opened = await open();
    await breakExecCommand(opened.relay, how);
    await typeDraft(opened.page, 'a draft the person is still writing');
    const result = await ask(opened, 'Explain MCP\nin two lines');
    expect(result.error).toBeUndefined();
    expect(queries(opened.site)).toEqual(['Explain MCP\nin two lines']);
    await expect.poll(() => model(opened.page)).toBe('a draft the person is still writing');
    expect(await execCalls(opened.relay)).toEqual([]);
  });
}

test('an editor that takes none of our events: nothing is sent, the draft is left as it was, and the error says so', async () => {
  const opened = await open();
  await breakExecCommand(opened.relay, 'false');
  await typeDraft(opened.page, 'keep me');
  // A build whose editor listens to none of the synthetic events (they reach no handler, nothing cancels them).
  await opened.page.evaluate(() => {
    const el = document.getElementById('ask-input') as HTMLElement;
    for (const type of ['paste', 'beforeinput']) el.addEventListener(type, (e) => e.stopImmediatePropagation(), { capture: true });
  });
  const result = await ask(opened, 'never sent');
  expect(result.error?.code).toBe('EVALUATION_FAILED');
  expect(result.error?.message).toMatch(/did not accept the text.*Nothing was sent\. Your draft in the composer was put back\./s);
  expect(opened.site.threads().some((t) => t.turns.some((turn) => turn.query === 'never sent'))).toBe(false);
  expect(await model(opened.page)).toBe('keep me');
});
