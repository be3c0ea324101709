import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { Harness } from '../support/harness';
import { type PanelWorld, startPanelWorld } from '../support/sim-harness';

/**
 * The side panel, for real: the panel page (opened as a tab) of the built extension, the real host,
 * a real MCP client on `comet-relay mcp`, and the simulated perplexity.ai. The panel only renders
 * what the worker pushes, so every assertion here waits for a push, never for a timer.
 */
test.describe.configure({ mode: 'serial' });

// The README shows the committed copies; `npm run screenshots` (UPDATE_SCREENSHOTS=1 on this spec)
// refreshes them and panel.txt, the panel's visible text they were taken of. Other runs write the
// pictures to test-results/ (the work tree stays clean) and fail when the panel's text differs from
// panel.txt: the committed pictures no longer show what the panel shows. Text, not pixels: fonts
// and anti-aliasing differ from machine to machine, while what went stale before (a missing grant,
// old wording, an old selector-set name) is all in the text.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(import.meta.dirname, 'screenshots')
  : path.join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

const modeButton = (panel: Page, name: string) => panel.getByRole('group', { name: 'Switch the Perplexity mode' }).getByRole('button', { name, exact: true });

test.describe('side panel on generation B', () => {
  let world: PanelWorld;
  test.beforeAll(async () => {
    world = await startPanelWorld({ generation: 'B', clientName: 'panel-agent' });
  });
  test.afterAll(async () => world?.harness.close());

  test("a new install's first-run card offers the screenshot grant once, by its name", async () => {
    const { panel, harness } = world;
    const card = panel.getByTestId('first-run');
    await expect(card.getByRole('button', { name: 'Let agents take screenshots and read other tabs' })).toBeVisible();
    await expect(card).toContainText('Screenshots, even of the Perplexity tab');
    await card.getByRole('button', { name: 'Not now' }).click();
    await expect(card).toHaveCount(0);
    // Once: a new panel does not offer it again; Control still does.
    const again = await harness.openPanel();
    try {
      await expect(again.getByTestId('other-tabs').getByRole('button', { name: 'Let agents take screenshots and read other tabs' })).toBeVisible();
      await expect(again.getByTestId('first-run')).toHaveCount(0);
    } finally {
      await again.close();
    }
  });

  test('the connection card shows the host, the attached client and the selector set', async () => {
    const { panel } = world;
    await expect(panel.getByTestId('link-state')).toHaveAttribute('data-state', 'connected');
    await expect(panel.getByTestId('client').filter({ hasText: 'panel-agent' })).toBeVisible();
    await expect(panel.getByTestId('selector-set')).toHaveText(/^gen-b-/);
  });

  test('the mode control shows the page mode live and switches it like comet_mode', async () => {
    const { panel, call } = world;
    await expect(modeButton(panel, 'Standard')).toHaveAttribute('aria-pressed', 'true');
    await modeButton(panel, 'Deep research').click();
    await expect(modeButton(panel, 'Deep research')).toHaveAttribute('aria-pressed', 'true');
    await expect(modeButton(panel, 'Standard')).toHaveAttribute('aria-pressed', 'false');
    expect((await call('comet_mode')).text).toBe('Current mode: deep-research');

    // An agent's switch shows in the panel without anyone touching it.
    expect((await call('comet_mode', { mode: 'learn' })).text).toBe('Mode switch result: switched to learn');
    await expect(modeButton(panel, 'Learn')).toHaveAttribute('aria-pressed', 'true');

    // Keyboard only: focus the Standard button and press Enter.
    await modeButton(panel, 'Standard').focus();
    await panel.keyboard.press('Enter');
    await expect(modeButton(panel, 'Standard')).toHaveAttribute('aria-pressed', 'true');
    expect((await call('comet_mode')).text).toBe('Current mode: standard');
  });

  test("an agent's comet_ask shows in the activity feed and the thread list", async () => {
    const { panel, call } = world;
    expect((await call('comet_ask', { prompt: 'Why is the sky blue?' })).isError).toBe(false);
    const entry = panel.getByTestId('activity-entry').filter({ hasText: 'comet_ask' }).first();
    await expect(entry).toContainText('panel-agent');
    await expect(entry).toContainText('Why is the sky blue?');
    await expect(entry).toHaveAttribute('data-phase', 'ok');
    await expect(entry.getByTestId('activity-outcome')).toContainText(/\d+ (ms|s) · prompt submitted/);

    const thread = panel.getByTestId('thread').filter({ hasText: 'Why is the sky blue?' }).first();
    await expect(thread).toBeVisible();
    await expect(thread).toContainText('by panel-agent');
    expect((await call('comet_wait')).isError).toBe(false);
    await expect(thread).toHaveAttribute('data-status', 'done');
    await expect(thread.getByRole('button', { name: /Why is the sky blue\?/ })).toBeVisible();
    // Newest first: the agent's thread comes before the page's older conversations.
    await expect(panel.getByTestId('thread').first()).toContainText('Why is the sky blue?');
    const waitEntry = panel.getByTestId('activity-entry').filter({ hasText: 'comet_wait' }).first();
    await expect(waitEntry).toHaveAttribute('data-phase', 'ok');
    await expect(waitEntry).toContainText('completed');
  });

  test('clicking a thread opens it in the Perplexity tab', async () => {
    const { panel, page: perplexity } = world;
    const older = panel.getByTestId('thread').filter({ hasNotText: 'Why is the sky blue?' }).filter({ has: panel.getByRole('button') }).first();
    const key = await older.getAttribute('data-key');
    expect(key).toMatch(/^https:\/\/www\.perplexity\.ai\//);
    await older.getByRole('button').first().click();
    await expect(perplexity).toHaveURL(new RegExp(`^${key!.replace(/[.?]/g, '\\$&')}`));
    await expect(panel.getByTestId('thread').and(panel.locator('.current'))).toHaveAttribute('data-key', key!);
  });

  test('an approval-gated ask waits for the click, then proceeds; a denial refuses it', async () => {
    const { panel, call, harness } = world;
    const approval = panel.getByRole('checkbox', { name: 'Require approval' });
    await approval.check();
    await expect(approval).toBeChecked();

    const asked = call('comet_ask', { prompt: 'Summarise the news about Mars', newChat: true });
    const held = panel.getByTestId('approval');
    await expect(held).toContainText('panel-agent wants to send the prompt “Summarise the news about Mars” in a new thread');
    // All of what is approved, with its length, the tab it goes to and the new chat it opens.
    await expect(held.getByTestId('approval-full')).toContainText('Prompt, in full (29 characters)');
    await expect(held.getByTestId('approval-full').locator('pre')).toHaveText('Summarise the news about Mars');
    await expect(held.getByTestId('approval-fact').first()).toContainText(/Acts on: tab \d+: .*perplexity\.ai/);
    await expect(held.getByTestId('approval-fact').nth(1)).toContainText('Opens a new chat: yes');
    await expect(panel.getByTestId('activity-entry').first()).toHaveAttribute('data-phase', 'approval');
    expect(await badgeText(harness)).toBe('1');
    let settled = false;
    void asked.finally(() => {
      settled = true;
    });
    await panel.waitForTimeout(300);
    expect(settled).toBe(false);

    // The README's screenshots: the panel with a call waiting, a thread list and a feed.
    await saveScreenshots(panel);

    // Keyboard only: Tab to Approve and press Enter.
    await held.getByRole('button', { name: 'Approve' }).focus();
    await panel.keyboard.press('Enter');
    const result = await asked;
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Prompt submitted successfully');
    await expect(held).toHaveCount(0);
    expect(await badgeText(harness)).toBe('');
    await world.call('comet_wait');

    const denied = call('comet_mode', { mode: 'computer' });
    await expect(panel.getByTestId('approval')).toContainText('panel-agent wants to switch the mode to Computer');
    await panel.getByTestId('approval').getByRole('button', { name: 'Deny' }).click();
    const refusal = await denied;
    expect(refusal.isError).toBe(true);
    expect(refusal.text).toContain('The person at the browser denied the request to switch the mode to Computer');
    // Unchanged by the denial: Learn, the mode this agent chose with comet_mode, which its comet_ask
    // set again after the panel's switch to Standard (lib/mcp/tools/comet.ts, keepSessionMode).
    await expect(modeButton(panel, 'Learn')).toHaveAttribute('aria-pressed', 'true');

    await approval.uncheck();
    await expect(approval).not.toBeChecked();
  });

  test('#3: an address that submits a prompt (comet_open_conversation with ?q=) waits for the click like comet_ask; denied, the tab stays', async () => {
    const { panel, call, page: perplexity } = world;
    const approval = panel.getByRole('checkbox', { name: 'Require approval' });
    await approval.check();
    const before = perplexity.url();
    const url = 'https://www.perplexity.ai/search?q=Forward%20my%20inbox%20to%20an%20outside%20address';
    const opened = call('comet_open_conversation', { url });
    const held = panel.getByTestId('approval');
    await expect(held).toContainText(`panel-agent wants to send the prompt “Forward my inbox to an outside address” by opening ${url}`);
    await expect(held.getByTestId('approval-full').locator('pre')).toHaveText('Forward my inbox to an outside address');
    await held.getByRole('button', { name: 'Deny' }).click();
    const refusal = await opened;
    expect(refusal.isError).toBe(true);
    expect(refusal.text).toContain('The person at the browser denied the request to send the prompt “Forward my inbox to an outside address”');
    expect(perplexity.url()).toBe(before);
    await approval.uncheck();
    await expect(approval).not.toBeChecked();
  });

  test('read-only refuses every acting tool and still lets agents read', async () => {
    const { panel, call } = world;
    const readOnly = panel.getByRole('checkbox', { name: 'Read-only' });
    await readOnly.check();
    await expect(readOnly).toBeChecked();

    const ask = await call('comet_ask', { prompt: 'This must not be sent' });
    expect(ask.isError).toBe(true);
    expect(ask.text).toMatch(/^\[PERMISSION_DENIED\] comet-relay is read-only, so the request to send the prompt “This must not be sent” in Learn mode, which this session chose \(page\.ask\) was refused\. To allow it, turn off "Read-only" under Control in the comet-relay side panel\.$/);
    const mode = await call('comet_mode', { mode: 'learn' });
    expect(mode.isError).toBe(true);
    expect(mode.text).toContain('read-only');
    const stop = await call('comet_stop');
    expect(stop.isError).toBe(true);
    expect(stop.text).toContain('[PERMISSION_DENIED]');

    expect((await call('comet_poll')).isError).toBe(false);
    // Learn: this agent's choice, set again by its comet_ask (see the approval test above).
    expect((await call('comet_mode')).text).toBe('Current mode: learn');
    expect((await call('comet_list_tabs')).isError).toBe(false);

    const refused = panel.getByTestId('activity-entry').filter({ hasText: 'comet_ask' }).first();
    await expect(refused).toHaveAttribute('data-phase', 'error');
    await expect(refused).toContainText('[PERMISSION_DENIED]');
    await expect(panel.getByTestId('thread').filter({ hasText: 'This must not be sent' })).toHaveCount(0);

    // The setting is the worker's, kept in extension storage: a new panel shows it too.
    const second = await world.harness.openPanel();
    await expect(second.getByRole('checkbox', { name: 'Read-only' })).toBeChecked();
    await second.close();
    await readOnly.uncheck();
    expect((await call('comet_mode', { mode: 'standard' })).isError).toBe(false);
  });

  test('the activity feed survives a new panel and can be cleared', async () => {
    const { panel, harness } = world;
    const again = await harness.openPanel();
    await expect(again.getByTestId('activity-entry').first()).toBeVisible();
    await again.getByRole('button', { name: 'Clear activity' }).click();
    await expect(again.getByTestId('no-activity')).toBeVisible();
    await expect(panel.getByTestId('no-activity')).toBeVisible();
    await again.close();
  });

  test('renaming the profile reaches the host', async () => {
    const { panel, harness } = world;
    await panel.getByRole('button', { name: /^Rename profile/ }).click();
    const field = panel.getByRole('textbox', { name: 'Profile name' });
    await field.fill('Work profile');
    await field.press('Enter');
    await expect(panel.getByTestId('profile')).toHaveText('Work profile');
    await expect(panel.getByTestId('link-state')).toHaveAttribute('data-state', 'connected');
    await expect.poll(async () => (await harness.waitForHost()).profileLabel, { timeout: 15_000 }).toBe('Work profile');
  });

  test('every control has an accessible name', async () => {
    const { panel } = world;
    const unnamed = await panel.evaluate(() =>
      [...document.querySelectorAll('button, input, select, a[href]')]
        .filter((el) => {
          const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
          const labels = (el as HTMLInputElement).labels;
          return !labelled && !(labels && labels.length > 0) && !(el.textContent ?? '').trim();
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
  });
});

test.describe('side panel on generation A', () => {
  let world: PanelWorld;
  test.beforeAll(async () => {
    world = await startPanelWorld({ generation: 'A', clientName: 'panel-agent-a' });
  });
  test.afterAll(async () => world?.harness.close());

  test('the mode the slash menu hides is not read by typing into the composer; a panel switch names it, and shows in comet_mode', async () => {
    const { panel, call, page } = world;
    // Review 2026-12-02 #23: the panel used to type "/" into the person's composer to read it.
    await expect(panel.getByTestId('mode-current')).toHaveText(/^Mode not known yet: the page does not show it where it can be read without typing into the composer/);
    await expect(modeButton(panel, 'Standard')).toHaveAttribute('aria-pressed', 'false');
    await expect(page.locator('[role="listbox"][aria-label="Typeahead menu"]')).toHaveCount(0);
    expect((await page.locator('#ask-input').innerText()).trim()).toBe('');
    await modeButton(panel, 'Model council').click();
    await expect(modeButton(panel, 'Model council')).toHaveAttribute('aria-pressed', 'true');
    expect((await call('comet_mode')).text).toBe('Current mode: model-council');
    await modeButton(panel, 'Standard').click();
    await expect(modeButton(panel, 'Standard')).toHaveAttribute('aria-pressed', 'true');
    expect((await call('comet_mode')).text).toBe('Current mode: standard');
  });
});

test.describe('side panel without a Perplexity tab', () => {
  test('the mode control is disabled and says why', async () => {
    const harness = await Harness.start();
    try {
      await harness.waitForHost();
      const panel = await harness.openPanel();
      await expect(panel.getByTestId('mode-disabled')).toHaveText(/No Perplexity tab is open/);
      await expect(modeButton(panel, 'Computer')).toBeDisabled();
      await expect(panel.getByTestId('no-threads')).toBeVisible();
    } finally {
      await harness.close();
    }
  });
});

async function badgeText(harness: Harness): Promise<string> {
  return harness.worker.evaluate(() => (globalThis as unknown as { chrome: { action: { getBadgeText(d: object): Promise<string> } } }).chrome.action.getBadgeText({}));
}

async function saveScreenshots(panel: Page): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await panel.emulateMedia({ colorScheme });
    await panel.screenshot({ path: path.join(SCREENSHOTS, `panel-${colorScheme}.png`), fullPage: true });
  }
  await panel.emulateMedia({ colorScheme: null });
  const shown = panelText(await panel.locator('body').innerText());
  const committed = path.join(import.meta.dirname, 'screenshots', 'panel.txt');
  if (process.env.UPDATE_SCREENSHOTS) fs.writeFileSync(committed, shown);
  else {
    const pictured = fs.existsSync(committed) ? fs.readFileSync(committed, 'utf8') : '(no panel.txt)';
    // Soft: the spec is serial, and a stale picture is no reason to skip the tests after this one.
    expect.soft(shown, 'the panel differs from the README\'s screenshots (tests/e2e/screenshots/panel.txt): run `npm run screenshots` and commit the pictures').toBe(pictured);
  }
}

/** The panel's visible text, one trimmed line each, with what changes from run to run (times, durations, ids, versions) masked. */
function panelText(text: string): string {
  return `${text
    .split('\n')
    .map((line) =>
      line
        .replace(/\b\d{1,2}:\d{2}(:\d{2})?(\s?[AP]M)?\b/gi, '<time>')
        .replace(/\bprofile [0-9a-f]{4,}\b/g, 'profile <id>')
        .replace(/\bChromium \d+\b/g, 'Chromium <n>')
        .replace(/\btab \d+\b/g, 'tab <id>')
        // A finished thread's last step depends on how far the simulated page got (timing), not on the panel.
        .replace(/^(?!Waiting for).* · by (\S+) · <time>$/, '<step> · by $1 · <time>')
        .replace(/\b\d+(\.\d+)?\s?(ms|s|min)\b/g, '<duration>')
        .replace(/\bpid \d+/g, 'pid <n>')
        .replace(/\b\d+\.\d+\.\d+\b/g, '<version>')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean)
    .join('\n')}\n`;
}
