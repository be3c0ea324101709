import { afterAll, describe, expect, it } from 'vitest';
import { allTools } from '../../lib/mcp/tools';
import { instructionsFor } from '../../lib/mcp/server';
import { cometTools } from '../../lib/mcp/tools/comet';
import { RelayError } from '../../lib/protocol/errors';
import { NO_PERPLEXITY_TAB_OPEN } from '../../lib/protocol/urls';
import { NO_BROWSER } from '../../lib/relay/client';
import { noPerplexityTab } from '../../lib/worker/calls/tabs';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';

/**
 * The reference server connects on a session's first call (seed 004: "All tools call ensureConnected() before
 * executing"), so an agent prompt written for it starts with comet_ask. Ours does for comet_ask, the call that starts
 * a session's work; the read tools do not start a browser, and the instructions name comet_connect (review 15b, F1).
 */
afterAll(removeFakeHomes);

const SUBMITTED = 'Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.';
const handle = { afterTurn: 0, baselineUrl: 'https://www.perplexity.ai/', turnIndex: 0, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'q', previousAnswerKey: '', submittedAt: 1 } as never;
const tab = { tab: { id: '7', title: 'Perplexity', url: 'https://www.perplexity.ai/', active: true, category: 'Main' }, created: true } as never;

class Closed extends FakeBrowser {
  started = 0;
  override async ensureBrowser() {
    this.started++;
    return { launched: true };
  }
}

describe('comet_ask as the first call, like the reference', () => {
  it('with no browser running: starts it, readies a Perplexity tab, and asks', async () => {
    const browser = new Closed()
      .fail('page.ask', 'EXTENSION_NOT_CONNECTED', `${NO_BROWSER} Open the browser you installed it in.`)
      .on('page.ask', handle)
      .on('tabs.ensurePerplexity', tab);
    const { text } = await runTool(cometTools, 'comet_ask', { prompt: 'What is fusion?' }, fakeContext(browser).context);
    expect(text).toBe(SUBMITTED);
    expect(browser.started).toBe(1);
    expect(browser.methods()).toEqual(['page.ask', 'tabs.ensurePerplexity', 'page.ask']);
  });

  it('with no Perplexity tab: opens one and asks, starting no browser', async () => {
    const browser = new Closed().fail('page.ask', 'NO_PERPLEXITY_TAB', NO_PERPLEXITY_TAB_OPEN).on('page.ask', handle).on('tabs.ensurePerplexity', tab);
    expect((await runTool(cometTools, 'comet_ask', { prompt: 'What is fusion?' }, fakeContext(browser).context)).text).toBe(SUBMITTED);
    expect(browser.started).toBe(0);
  });

  it('with page tools set to another page (switched to with the grant): no other Perplexity tab is taken in its place', async () => {
    const elsewhere = noPerplexityTab({ id: 3, url: 'https://en.wikipedia.org/wiki/Tide' } as never);
    const browser = new Closed().on('page.ask', () => Promise.reject(elsewhere)).on('tabs.ensurePerplexity', tab);
    await expect(runTool(cometTools, 'comet_ask', { prompt: 'x' }, fakeContext(browser).context)).rejects.toBe(elsewhere);
    expect(browser.methods()).toEqual(['page.ask']);
  });

  it('a browser that is there but unreachable (a hung host, another profile) is said as it is: no browser is started for it', async () => {
    for (const message of [
      'The comet-relay host of profile "Default" did not answer the handshake within 3 s: it may be hung or overloaded.',
      'No connected browser profile is named "Work" or has a name beginning with it. Connected profiles: "Home".',
    ]) {
      const browser = new Closed().fail('page.ask', 'EXTENSION_NOT_CONNECTED', message).on('tabs.ensurePerplexity', tab);
      await expect(runTool(cometTools, 'comet_ask', { prompt: 'x' }, fakeContext(browser).context)).rejects.toMatchObject({ message });
      expect(browser.started).toBe(0);
      expect(browser.methods()).toEqual(['page.ask']);
    }
  });

  it('any other failure is not asked again, and one that comes again is the answer', async () => {
    const denied = new Closed().fail('page.ask', 'PERMISSION_DENIED', 'The person denied it.');
    await expect(runTool(cometTools, 'comet_ask', { prompt: 'x' }, fakeContext(denied).context)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(denied.methods()).toEqual(['page.ask']);
    const still = new Closed().fail('page.ask', 'NO_PERPLEXITY_TAB', NO_PERPLEXITY_TAB_OPEN).on('tabs.ensurePerplexity', tab);
    await expect(runTool(cometTools, 'comet_ask', { prompt: 'x' }, fakeContext(still).context)).rejects.toBeInstanceOf(RelayError);
    expect(still.methods()).toEqual(['page.ask', 'tabs.ensurePerplexity', 'page.ask']);
  });

  it('the instructions send an agent to comet_connect, not to the person first', () => {
    expect(instructionsFor(allTools)).toContain('call comet_connect (it starts one)');
  });
});
