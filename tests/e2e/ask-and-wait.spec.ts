import { expect, test } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PAGE_KIT_HOOK } from '../../lib/protocol/page/page-kits';
import { evaluateInContentScript } from '../support/content-world';
import { textOf } from '../support/harness';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * Asking and waiting under pressure, through the whole chain: hostile prompts arrive as sent, a
 * session's wait is bound to its own question (two sessions in one tab, a tab that navigates
 * away), and a cancelled ask never types after the cancel.
 */

/** What the page receives for `prompt`: the site trims it, and its editor has one kind of line break. */
const asReceived = (prompt: string) => prompt.replace(/\r\n?/g, '\n').trim();

const HOSTILE_PROMPTS: Record<string, string> = {
  emoji: 'Emoji 👩‍👩‍👧‍👦 🇫🇷 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, a combining é (e\u0301) and a lone 🙂.',
  'right-to-left': 'مرحبا بالعالم — שלום עולם, mixed with English \u200f and an override \u202eevil\u202c here.',
  'control characters': 'ctrl: tab[\t] nul[\u0000] bell[\u0007] esc[\u001b] vt[\u000b] del[\u007f] zwsp[\u200b] bom[\ufeff] end.',
  'line breaks': 'line one\nline two\r\nline three after CRLF\n\nafter a blank line\n    indented',
  '100,000 characters': `${'The quick brown fox jumps over the lazy dog. '.repeat(2223)}END`.slice(-100_000),
};

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  return { text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError) };
}

/**
 * Generation A; generation B (the Aug 2026 layout); and the Sep 2026 layout with the composer's
 * dictation on: its stop control takes Submit's place while an answer is written, and "Stop
 * dictation" carries the same icon beside it.
 */
const PAGES = [
  { generation: 'A', name: 'generation A' },
  { generation: 'B', name: 'generation B' },
  { generation: 'B', name: 'generation B, sessions-2026-09 layout, dictation on', layout: 'sessions-2026-09', dictation: true },
] as const;

for (const { generation, name, ...page } of PAGES) {
  test.describe(`asking on ${name}`, () => {
    test.describe.configure({ mode: 'serial' });
    let world: SimWorld;
    test.beforeAll(async () => {
      world = await startSimWorld({ generation, speed: 4, ...page });
    });
    test.afterAll(async () => world?.harness.close());

    test('prompts of 100,000 characters, emoji, right-to-left text and control characters reach the page intact', async () => {
      expect(HOSTILE_PROMPTS['100,000 characters']).toHaveLength(100_000);
      const sent: string[] = [];
      for (const [what, prompt] of Object.entries(HOSTILE_PROMPTS)) {
        const asked = await world.call('comet_ask', { prompt });
        expect(asked.text, what).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
        sent.push(asReceived(prompt));
        const received = world.site.threads()[0]?.turns.map((turn) => turn.query) ?? [];
        expect(received.at(-1) === sent.at(-1), `${what}: the page received ${JSON.stringify(received.at(-1)?.slice(0, 200))}`).toBe(true);
        const waited = await world.call('comet_wait');
        expect(waited.isError, what).toBe(false);
      }
      // One conversation, each question once, in order.
      expect(world.site.threads()[0]?.turns.map((turn) => turn.query)).toEqual(sent);
    });

    test('reading the mode never types into what the person is typing', async () => {
      await world.call('comet_mode', { mode: 'learn' });
      const composer = world.page.locator('#ask-input');
      await composer.click();
      await world.page.keyboard.type('half a question');
      const edits = await world.page.evaluate(() => {
        const counter = { n: 0 };
        document.getElementById('ask-input')?.addEventListener('input', () => counter.n++);
        (window as unknown as { __edits: typeof counter }).__edits = counter;
        return counter.n;
      });
      expect((await world.call('comet_mode')).text).toBe('Current mode: learn');
      expect(await world.page.evaluate(() => (window as unknown as { __edits: { n: number } }).__edits.n)).toBe(edits);
      expect((await composer.innerText()).trim()).toBe('half a question');
      await world.call('comet_mode', { mode: 'standard' });
      await composer.click();
      await world.page.keyboard.press('ControlOrMeta+A');
      await world.page.keyboard.press('Delete');
    });

    test('steps shown and folded away while no call watched are still reported by comet_wait and comet_poll', async () => {
      // An agent that asks, then waits only after the answer ended: the page folds the step rows
      // away at the end ("Finished N steps"), so only what the content script saw while they showed is left.
      await world.call('comet_ask', { prompt: 'Steps nobody waited for' });
      // The page has drawn this turn's end (its stream ended before: the page types it out after).
      await world.pageDrewEnd();
      // The last turn's steps header (inside its entry, or its sibling in the Aug–Oct 2026 layout), folded.
      await expect(world.page.locator('.steps button[aria-expanded="false"]').last()).toBeVisible();
      const steps = ['Preparing to assist…', 'Searching "Steps nobody waited for"', 'Reviewing sources', /^Reading /, /^Found \d+ sources$/];
      const waited = await world.call('comet_wait');
      expect(waited.isError).toBe(false);
      const listed = waited.text.split('\n\nSteps:\n')[1]?.split('\n').map((line) => line.replace(/^ {2}- /, '')) ?? [];
      expect(waited.text).not.toMatch(/still working/);
      const poll = JSON.parse((await world.call('comet_poll')).text) as { status: string; hasStopButton: boolean; steps: string[] };
      // Done, with nothing said to be at work (a "Stop dictation" beside the composer is no sign of work).
      expect([poll.status, poll.hasStopButton]).toEqual(['completed', false]);
      const polled = poll.steps;
      for (const got of [listed, polled]) {
        expect(got).toHaveLength(steps.length);
        for (const [i, step] of steps.entries()) expect(got[i]).toMatch(step);
      }
    });

    if (generation === 'A') return;

    test('two sessions asking in one tab each get their own answer', async () => {
      const one = world.client;
      const two = await world.harness.stdioClient('second-session');
      await call(two, 'comet_connect');
      expect((await call(one, 'comet_ask', { prompt: 'Session one keeps it busy #scenario:stopped' })).isError).toBe(false);
      // The page takes no prompt while it answers: session two's ask waits for that answer to end.
      const progress: string[] = [];
      const second = two.callTool({ name: 'comet_ask', arguments: { prompt: 'Session two asks about tides' } }, undefined, {
        timeout: 120_000,
        onprogress: (p) => progress.push(String(p.message)),
      });
      await expect.poll(() => progress.join('\n')).toMatch(/still answering/);
      expect(world.site.threads()[0]?.turns.map((turn) => turn.query)).not.toContain('Session two asks about tides');
      // Stop once session one's answer has begun, so the stopped turn has words of its own to return.
      await expect.poll(() => world.page.locator('[data-workflow-final-text]').last().innerText()).toContain('Answering “Session one keeps it busy”');
      expect((await call(one, 'comet_stop')).text).toBe('Agent stopped.');
      expect(textOf(await second)).toMatch(/^Prompt submitted successfully/);
      // Session one waits after session two's turn exists (and is the last): it still gets its own answer.
      const first = await call(one, 'comet_wait');
      expect(first.text).toContain('Answering “Session one keeps it busy”');
      expect(first.text).not.toContain('tides');
      const own = await call(two, 'comet_wait');
      expect(own.text).toContain('Here is a short answer to “Session two asks about tides”');
      expect(own.text).not.toContain('Session one');
    });

    test('a tab navigated away mid-wait gives a clear error at once, never the other conversation\'s answer; back there, the right answer', async () => {
      await world.call('comet_ask', { prompt: 'Navigation victim #scenario:stopped', newChat: true });
      const conversation = JSON.parse((await world.call('comet_poll')).text).url as string;
      expect(conversation).toMatch(/\/search\//);
      const waiting = world.call('comet_wait', { timeout: 60_000 });
      // The person clicks another conversation in the sidebar (an in-page navigation).
      await world.page.locator('nav a[href^="/search/rust-vs-go"], aside a[href^="/search/rust-vs-go"]').first().click();
      await expect(world.page).toHaveURL(/rust-vs-go/);
      const result = await waiting;
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/left the conversation of your question/);
      expect(result.text).toContain(conversation);
      expect(result.text).not.toMatch(/Rust|memory safety/);
      await world.call('comet_open_conversation', { url: conversation });
      expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
      const back = await world.call('comet_wait');
      expect(back.isError).toBe(false);
      expect(back.text).toContain('Answering “Navigation victim”');
    });

    test('a cancelled comet_ask never types or submits after the cancel', async () => {
      await world.call('comet_ask', { prompt: 'Keeps the page busy #scenario:stopped' });
      const controller = new AbortController();
      const queued: string[] = [];
      const asked = world.client.callTool({ name: 'comet_ask', arguments: { prompt: 'Cancelled before it could be typed' } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => queued.push(String(p.message)),
      });
      await expect.poll(() => queued.join(' ')).toMatch(/still answering/);
      controller.abort();
      await expect(asked).rejects.toThrow();
      expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
      // The page is free again: give a late typist every chance to show up.
      await world.page.waitForTimeout(1000);
      expect((await world.page.locator('#ask-input').innerText()).trim()).toBe('');
      const queries = world.site.threads().flatMap((thread) => thread.turns.map((turn) => turn.query));
      expect(queries).not.toContain('Cancelled before it could be typed');
    });

    test('the ask code comes into the tab with its first ask, and again after the tab reloads; polling needs none', async () => {
      const kitsIn = () => evaluateInContentScript<string[]>(world.page, `globalThis.${PAGE_KIT_HOOK}.loaded()`);
      // This session's mode, set again before each of its asks (comet_mode's kit).
      await world.call('comet_mode', { mode: 'learn' });
      expect((await world.call('comet_ask', { prompt: 'Asked before a reload' })).isError).toBe(false);
      expect((await world.call('comet_wait')).isError).toBe(false);
      expect(await kitsIn()).toEqual(expect.arrayContaining(['ask', 'mode']));
      await world.page.reload();
      await expect.poll(() => kitsIn().catch(() => ['not yet']), { timeout: 15_000 }).toEqual([]);
      expect((await world.call('comet_poll')).isError).toBe(false);
      expect(await kitsIn()).not.toContain('ask');
      const asked = await world.call('comet_ask', { prompt: 'Asked again after a reload' });
      expect(asked.text).toContain('Prompt submitted successfully.');
      // The mode kit comes in again to read (and set again) the session's mode, then the ask kit.
      expect(await kitsIn()).toEqual(expect.arrayContaining(['ask', 'mode']));
      const waited = await world.call('comet_wait');
      expect(waited.isError, waited.text).toBe(false);
      expect(waited.text).toContain('Asked again after a reload');
    });
  });
}
