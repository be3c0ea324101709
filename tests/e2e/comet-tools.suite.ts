import { expect, test } from '@playwright/test';
import { allowOtherTabsFromPanel } from '../support/other-tabs';
import type { SimLanguage } from '../sim/locales';
import type { ThreadLayout } from '../sim/types';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * Every comet_* tool through the real chain (MCP client → comet-relay → host → worker → content
 * script → simulated perplexity.ai), for one UI generation and one language of the page's labels.
 * Response texts are the reference's; the answers are the scenarios' (English) content.
 */
export function defineCometToolSuite(
  generation: 'A' | 'B',
  language: SimLanguage = 'en',
  layout?: ThreadLayout,
  /**
   * `dictation`: the composer's dictation is on throughout ("Stop dictation", with the stop control's icon, beside it).
   * `askStream: false`: the page's answers come without its ask stream (the paint-only path: SimOptions.askStream).
   */
  options: { dictation?: boolean; askStream?: boolean } = {},
): void {
  const where = `${language === 'en' ? '' : ` in ${language}`}${layout ? `, ${layout} layout` : ''}${options.dictation ? ', dictation on' : ''}${options.askStream === false ? ', no ask stream' : ''}`;
  test.describe(`comet_* tools on generation ${generation}${where}`, () => {
    test.describe.configure({ mode: 'serial' });
    let world: SimWorld;

    test.beforeAll(async () => {
      world = await startSimWorld({
        generation,
        language,
        ...(layout ? { layout } : {}),
        ...(options.dictation ? { dictation: true } : {}),
        ...(options.askStream === false ? { askStream: false } : {}),
        clientName: `e2e-${generation}-${language}`,
      });
    });
    test.afterAll(async () => world?.harness.close());

    test('comet_connect names the selector set chosen by probing the page', async () => {
      const { text } = await world.call('comet_connect');
      expect(text).toMatch(/^Connected to \S+ on profile ".+" \(Chrome\/\d+[\d.]*\), target tab \d+/);
      expect(text).toContain(`Selector set: gen-${generation.toLowerCase()}-`);
    });

    test('comet_ask returns at once; comet_wait returns the answer with its steps', async () => {
      const asked = await world.call('comet_ask', { prompt: 'What is the capital of France?' });
      expect(asked.text).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
      const { text, isError } = await world.call('comet_wait');
      expect(isError).toBe(false);
      expect(text).toMatch(/Nothing else happens after this last sentence, which ends the answer\./);
      expect(text).toMatch(/\n\nSteps:\n {2}- Preparing to assist…\n {2}- Searching "What is the capital of France\?"/);
      expect(text.match(/Preparing to assist/g)).toHaveLength(1);
    });

    test('comet_poll returns the reference fields as JSON text and as structured content', async () => {
      // comet_wait returned on the ask stream's end; the page's stop control goes when it has drawn the end.
      await world.pageDrewEnd();
      const { text, raw } = await world.call('comet_poll');
      const parsed = JSON.parse(text);
      expect(parsed).toMatchObject({ status: 'completed', hasStopButton: false, hasLoadingSpinner: false, currentStep: '' });
      expect(parsed.steps.length).toBeGreaterThan(2);
      expect(parsed.proseCount).toBeGreaterThanOrEqual(1);
      expect(parsed.response).toContain('which ends the answer');
      expect((raw as { structuredContent: unknown }).structuredContent).toEqual(parsed);
    });

    test('comet_poll while working, then comet_stop stops the agent', async () => {
      // With dictation on, its "Stop dictation" carries the stop icon beside the stop control: never clicked
      // (a click would turn dictation off), never taken for work going on.
      const dictating = world.page.locator('button[aria-label="Stop dictation"]:has(use[href="#pplx-icon-player-stop-filled"])');
      const dictationStaysOn = async () => {
        if (options.dictation) await expect(dictating).toHaveCount(1);
      };
      await world.call('comet_ask', { prompt: 'Write forever #scenario:stopped' });
      await expect.poll(async () => JSON.parse((await world.call('comet_poll')).text).status, { timeout: 10_000 }).toBe('working');
      const working = JSON.parse((await world.call('comet_poll')).text);
      expect(working.hasStopButton).toBe(true);
      await dictationStaysOn();
      expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
      await dictationStaysOn();
      // The page's own stop was pressed: the site recorded the turn as stopped.
      await expect.poll(() => world.site.threads()[0]?.turns.at(-1)?.stoppedAfter ?? null).not.toBeNull();
      // The page draws the stopped turn's end a moment after its stop control goes; until then it shows neither
      // that it works nor that it is done, and the thread JSON may still say running: no status is made up meanwhile.
      await expect.poll(async () => JSON.parse((await world.call('comet_poll')).text).status, { timeout: 15_000 }).not.toBe('working');
      const after = JSON.parse((await world.call('comet_poll')).text);
      expect(after.hasStopButton).toBe(false);
      expect((await world.call('comet_stop')).text).toBe('No stop button found.');
      await dictationStaysOn();
    });

    test('comet_wait sends each new step as a progress notification; a Deep Research answer names its report card', async () => {
      await world.call('comet_mode', { mode: 'deep-research' });
      try {
        await world.call('comet_ask', { prompt: 'Research the history of MCP #scenario:deep-research' });
        const messages: string[] = [];
        const result = await world.client.callTool({ name: 'comet_wait', arguments: {} }, undefined, {
          timeout: 120_000,
          onprogress: (progress) => messages.push(String(progress.message)),
        });
        expect(result.isError).toBeFalsy();
        expect(messages.length).toBeGreaterThanOrEqual(10);
        expect(new Set(messages).size).toBe(messages.length);
        // Only the Sep–Oct layout draws the card, and its label is known in English only: elsewhere, nothing is said.
        const text = (result.content as { text: string }[])[0]?.text ?? '';
        const note = /This is the summary Perplexity wrote under its Deep research report "Research the history of MCP", a separate document/;
        if (layout === 'sessions-2026-09' && language === 'en') expect(text).toMatch(note);
        else expect(text).not.toMatch(/Deep research report/);
      } finally {
        // The session's kept mode back to Search, whatever happened: the tests after this one ask in it.
        await world.call('comet_mode', { mode: 'standard' });
      }
    });

    test('a prompt written in Markdown is followed to its answer, though the page draws its question rendered', async () => {
      // The Sep–Oct 2026 page draws a question with the answer's renderer: no backticks, no stars, no list numbers
      // (the sim's sessions layout does, tests/sim/prompt-markdown.ts); the turn is still this prompt's (review 13a, Q1).
      const prompt = 'Which is the **capital** of `France`? Answer:\n1. in one word\n- see [the atlas](https://example.com/atlas)';
      await world.call('comet_ask', { prompt });
      const { text, isError } = await world.call('comet_wait');
      expect(isError).toBe(false);
      expect(text).toMatch(/ends the answer\./);
      await world.pageDrewEnd();
      const polled = JSON.parse((await world.call('comet_poll')).text);
      expect(polled.status).toBe('completed');
      // The question as the page shows it: rendered (its lists' items still on lines of their own), or as typed.
      expect(polled.questionText).toMatch(layout === 'sessions-2026-09' ? /^Which is the capital of France\? Answer:\s*\n1\. in one word\s*\n- see the atlas$/ : /\*\*capital\*\* of `France`/);
    });

    test('comet_wait reports an error turn as an error', async () => {
      await world.call('comet_ask', { prompt: 'Break please #scenario:error' });
      const { text, isError } = await world.call('comet_wait');
      expect(isError).toBe(true);
      expect(text).toContain('Something went wrong');
    });

    test('comet_wait times out with the reference text while the agent is still working', async () => {
      await world.call('comet_ask', { prompt: 'Take your time #scenario:slow' });
      const { text } = await world.call('comet_wait', { timeout: 300 });
      expect(text).toMatch(/^Agent is still working after timeout\./);
      await world.call('comet_stop');
    });

    test('comet_mode reads and switches all seven modes, standard included', async () => {
      expect((await world.call('comet_mode')).text).toMatch(/^Current mode: (standard|[a-z-]+)$/);
      for (const mode of ['deep-research', 'model-council', 'create', 'learn', 'review', 'computer', 'standard']) {
        expect((await world.call('comet_mode', { mode })).text).toMatch(new RegExp(`^Mode switch result: (switched to|already) ${mode}$`));
        expect((await world.call('comet_mode', { mode: null })).text).toBe(`Current mode: ${mode}`);
      }
    });

    test('comet_get_sources expands grouped citations, dedupes by URL, keeps title-only entries', async () => {
      await world.call('comet_ask', { prompt: 'Sources please #scenario:grouped-citations' });
      await world.call('comet_wait');
      const { text } = await world.call('comet_get_sources');
      const count = Number(/^Sources \((\d+)\):/.exec(text)?.[1]);
      expect(count).toBeGreaterThanOrEqual(6);
      const urls = [...text.matchAll(/^ {3}(https:\S+)$/gm)].map((m) => m[1]);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls.some((u) => /perplexity\.ai/.test(u ?? ''))).toBe(false);
      const entries = text.split('\n\n').slice(1);
      expect(entries.filter((entry) => !entry.includes('https://')), text).not.toEqual([]);
    });

    test('comet_list_conversations gives absolute URLs and undoubled titles; comet_open_conversation opens one', async () => {
      const { text } = await world.call('comet_list_conversations');
      expect(text).toMatch(/^Conversations \(\d+\):\n\n1\. /);
      expect(text).toContain('Rust vs Go\n   https://www.perplexity.ai/search/rust-vs-go-');
      expect(text).not.toContain('Rust vs GoRust vs Go');
      const url = /(https:\/\/www\.perplexity\.ai\/search\/rust-vs-go-\S+)/.exec(text)?.[1] as string;
      expect((await world.call('comet_open_conversation', { url })).text).toBe(`Navigated to: ${url}`);
      await expect(world.page).toHaveURL(url);
      const poll = JSON.parse((await world.call('comet_poll')).text);
      expect(poll.status).toBe('completed');
      expect(poll.questionText.length).toBeGreaterThan(0);
    });

    test('comet_screenshot returns the Perplexity tab as PNG or JPEG even when another tab is in front', async () => {
      // Chromium captures tabs only with the optional all-sites permission, which the person grants in the panel.
      const refused = await world.call('comet_screenshot');
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/^\[PERMISSION_DENIED\] Screenshots, the Perplexity tab's too, need the grant “Let agents take screenshots and read other tabs”.*open the comet-relay side panel/);
      await allowOtherTabsFromPanel(world.harness);
      const other = await world.harness.context.newPage();
      await other.goto('about:blank');
      await other.bringToFront();
      const png = (await world.client.callTool({ name: 'comet_screenshot', arguments: {} })) as { content: { type: string; data: string; mimeType: string }[] };
      expect(png.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
      expect(Buffer.from(png.content[0]!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
      const jpeg = (await world.client.callTool({ name: 'comet_screenshot', arguments: { format: 'jpeg' } })) as { content: { data: string; mimeType: string }[] };
      expect(jpeg.content[0]!.mimeType).toBe('image/jpeg');
      expect(Buffer.from(jpeg.content[0]!.data, 'base64')[0]).toBe(0xff);
      await other.close();
    });

    test('comet_get_page_content returns visible text and says when it cut it', async () => {
      const { text } = await world.call('comet_get_page_content', { maxLength: 50 });
      expect(text).toMatch(/^Title: .+\n\n[\s\S]{1,50}\n\n\[Truncated: showing 50 of \d+ characters/);
    });
  });
}
