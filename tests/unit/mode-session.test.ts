import { afterAll, describe, expect, it } from 'vitest';
import { cometTools } from '../../lib/mcp/tools/comet';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';

/**
 * comet_mode and comet_ask around the person's tab and this session's mode, with a scripted browser:
 * a switch that misses never moves the tab unless the page has no composer at all, and then says so
 * (review 2026-12-02, #10); the mode a session chose is set again after Perplexity drops it (it goes
 * back to Search after every navigation), and the result says so.
 */
afterAll(removeFakeHomes);

const THREAD = 'https://www.perplexity.ai/search/my-thread-abc';
const handle = { afterTurn: 0, baselineUrl: THREAD, turnIndex: 1, conversationUrl: THREAD, questionKey: 'q', previousAnswerKey: '', submittedAt: 0, via: 'button' as const };

describe('comet_mode: a switch that misses (review #10)', () => {
  it('a miss on a page with a composer (a mode the menu lacks) is reported with its probe, and the tab stays where it is', async () => {
    const browser = new FakeBrowser().fail(
      'page.mode',
      'SELECTOR_MISS',
      `modeMenuItem: none of \`[role="menuitemradio"]\` matched for the mode "model-council" inside the open mode menu on ${THREAD}`,
    );
    const { context } = fakeContext(browser);
    const out = await runTool(cometTools, 'comet_mode', { mode: 'model-council' }, context);
    expect(browser.methods()).toEqual(['page.mode']);
    expect(out.isError).toBe(true);
    expect(out.text).toBe(
      // The reference's sentence, then the code (review 8, errors #5).
      `Mode switch failed: [SELECTOR_MISS] modeMenuItem: none of \`[role="menuitemradio"]\` matched for the mode "model-council" inside the open mode menu on ${THREAD}. The tab was not moved.`,
    );
    // A failed switch is no choice: comet_ask keeps no mode from it.
    expect(context.session.mode).toBeUndefined();
  });

  for (const probe of ['modeMenu', 'computerToggle', 'modeChip'] as const) {
    it(`a ${probe} miss does not navigate either`, async () => {
      const browser = new FakeBrowser().fail('page.mode', 'SELECTOR_MISS', `${probe}: none of \`x\` matched on ${THREAD}`);
      const out = await runTool(cometTools, 'comet_mode', { mode: 'learn' }, fakeContext(browser).context);
      expect(browser.methods()).toEqual(['page.mode']);
      expect(out.text).toContain('The tab was not moved.');
    });
  }

  it('a page with no composer at all: the tab goes home, and the result says from where', async () => {
    const library = 'https://www.perplexity.ai/library';
    const browser = new FakeBrowser()
      .fail('page.mode', 'SELECTOR_MISS', `composer: none of \`#ask-input\` matched on ${library} — open a Perplexity home or thread page`)
      .on('page.mode', { mode: 'learn', source: 'switched', previous: 'standard', changed: true, verified: true })
      .on('tabs.navigate', { tab: { id: '3', title: 'Perplexity', url: 'https://www.perplexity.ai/', category: 'Main' } } as never);
    const { context } = fakeContext(browser);
    const out = await runTool(cometTools, 'comet_mode', { mode: 'learn' }, context);
    expect(browser.methods()).toEqual(['page.mode', 'tabs.navigate', 'page.mode']);
    expect(out.text).toBe(`Mode switch result: switched to learn (the page ${library} has no composer, so the tab was taken to https://www.perplexity.ai/ first)`);
    expect(context.session.mode).toBe('learn');
  });

  it('when the switch misses again at home, the failure still says the tab was moved', async () => {
    const browser = new FakeBrowser()
      .fail('page.mode', 'SELECTOR_MISS', 'composer: none of `#ask-input` matched on https://www.perplexity.ai/settings')
      .on('tabs.navigate', { tab: { id: '3', title: 'Perplexity', url: 'https://www.perplexity.ai/', category: 'Main' } } as never);
    const out = await runTool(cometTools, 'comet_mode', { mode: 'learn' }, fakeContext(browser).context);
    expect(browser.methods()).toEqual(['page.mode', 'tabs.navigate', 'page.mode']);
    expect(out.text).toMatch(/the tab was taken to https:\/\/www\.perplexity\.ai\/ first, and is there now\)$/);
  });
});

describe("comet_ask keeps this session's mode", () => {
  it('no mode chosen: the ask is sent as it is, without reading the mode', async () => {
    const browser = new FakeBrowser().on('page.ask', handle);
    const out = await runTool(cometTools, 'comet_ask', { prompt: 'hi' }, fakeContext(browser).context);
    expect(browser.methods()).toEqual(['page.ask']);
    expect(out.text).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
  });

  it("a mode chosen: the tool sends it with the ask, and the worker sets it again after the approval (unit/router.test.ts, review 2026-12-05 worker #5)", async () => {
    const browser = new FakeBrowser().on('page.ask', handle);
    const { context } = fakeContext(browser);
    context.session.mode = 'deep-research';
    const out = await runTool(cometTools, 'comet_ask', { prompt: 'hi' }, context);
    expect(browser.calls.map((c) => [c.method, c.params])).toEqual([['page.ask', { prompt: 'hi', newChat: false, keepMode: 'deep-research' }]]);
    expect(out.text).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
  });

  it('a new chat: nothing moves before the approval; the worker sets the session mode again on the new page and the result says so', async () => {
    const note = "\nThe page was in standard (Perplexity goes back to Search after every navigation), so this session's mode, deep-research, was set again before sending.";
    const browser = new FakeBrowser().on('page.ask', { ...handle, modeNote: note } as never);
    const { context } = fakeContext(browser);
    // This session chose it with comet_mode earlier (through a browser of its own, to keep the calls below apart).
    const chose = new FakeBrowser().on('page.mode', { mode: 'deep-research', source: 'switched', previous: 'standard', changed: true, verified: true });
    await runTool(cometTools, 'comet_mode', { mode: 'deep-research' }, { ...context, browser: chose });
    expect(context.session.mode).toBe('deep-research');
    const out = await runTool(cometTools, 'comet_ask', { prompt: 'hi', newChat: true }, context);
    // The tool sends the ask alone (review #15): the worker navigates after the approval, then keeps the mode.
    expect(browser.calls.map((c) => [c.method, c.params])).toEqual([['page.ask', { prompt: 'hi', newChat: true, keepMode: 'deep-research' }]]);
    expect(out.text).toBe(`Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.${note}`);
  });

  it("the mode is this session's: another session's comet_ask does not set it", async () => {
    const chose = new FakeBrowser().on('page.mode', { mode: 'learn', source: 'switched', previous: 'standard', changed: true, verified: true });
    const first = fakeContext(chose).context;
    await runTool(cometTools, 'comet_mode', { mode: 'learn' }, first);
    const other = new FakeBrowser().on('page.ask', handle);
    await runTool(cometTools, 'comet_ask', { prompt: 'hi' }, fakeContext(other).context);
    expect(other.methods()).toEqual(['page.ask']);
  });
});
