import { afterAll, expect, it } from 'vitest';
import { cometTools } from '../../lib/mcp/tools/comet';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';

/**
 * comet_get_sources says when the page states more sources than were read (the Sep 2026 action row's "15 sources",
 * while the answer's chips name only those its text cites; captures review 2026-12-05, M1), and says nothing more
 * when it states as many or none.
 */
afterAll(removeFakeHomes);

const two = [
  { title: 'Example nine', url: 'https://example.com/9' },
  { title: 'Example ten', url: 'https://example.com/10' },
];
const sources = async (result: { sources: typeof two; stated?: number }) => {
  const browser = new FakeBrowser().on('page.sources', { grouped: 0, expanded: 0, fromTab: false, ...result });
  return (await runTool(cometTools, 'comet_get_sources', {}, fakeContext(browser).context)).text;
};

it('a part of what the page states is said to be a part', async () => {
  const text = await sources({ sources: two, stated: 15 });
  expect(text.startsWith('Sources (2):\n\n1. Example nine')).toBe(true);
  expect(text).toMatch(/\n\nThe page says this answer has 15 sources; 2 of them could be read \(the answer's citations, and a Sources tab where the page has one\): the pane its "15 sources" button opens is not read\.$/);
});

it('as many as the page states, or no statement: the list alone', async () => {
  for (const stated of [2, undefined]) expect(await sources({ sources: two, ...(stated === undefined ? {} : { stated }) })).not.toMatch(/The page says/);
});
