import { afterAll, describe, expect, it } from 'vitest';
import { cometTools } from '../../lib/mcp/tools/comet';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';

/** The reference's sentences for an empty answer, word for word (seed 004; review 15b, F7: none was pinned). */
afterAll(removeFakeHomes);

describe('nothing to list, in the reference’s words', () => {
  it('comet_list_tabs, comet_get_sources and comet_list_conversations', async () => {
    const browser = new FakeBrowser().on('tabs.list', { tabs: [] }).on('page.sources', { sources: [], grouped: 0, expanded: 0, fromTab: false }).on('page.conversations', { conversations: [] });
    const { context } = fakeContext(browser);
    expect((await runTool(cometTools, 'comet_list_tabs', {}, context)).text).toBe('No tabs found.');
    // A session that asked nothing: the latest turn is all it asked about, so no note follows.
    expect((await runTool(cometTools, 'comet_get_sources', {}, context)).text).toBe('No sources found on the current page.');
    expect((await runTool(cometTools, 'comet_list_conversations', {}, context)).text).toBe('No conversation links found on the current page.');
  });
});
