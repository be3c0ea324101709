import { expect, test } from '@playwright/test';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * A generation-A page whose grouped citation badges have no URL of their own and expand
 * in place when clicked, and whose Sources tab names no panel (tests/sim variants groupedBadges
 * and unlinkedTabs). comet_get_sources must still list every source the answer cites.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
test.beforeAll(async () => {
  // The variants are of the sim's pre-capture layout (per-turn tabs, generation A's linked badges).
  world = await startSimWorld({ generation: 'A', speed: 4, layout: 'turn-2026-04', variants: { groupedBadges: true, unlinkedTabs: true } });
});
test.afterAll(async () => world?.harness.close());

test('comet_get_sources lists every source behind in-place badges and an unlinked Sources tab, and leaves the page as it was', async () => {
  await world.call('comet_ask', { prompt: 'Who covered the Comet launch? #scenario:grouped-citations' });
  await world.call('comet_wait');
  const page = world.page;
  await expect(page.locator('[data-citation-group]')).toHaveCount(4);
  await expect(page.locator('[role="tab"][aria-controls]')).toHaveCount(0);

  const { text } = await world.call('comet_get_sources');
  const cited = world.site.threads()[0]?.turns.at(-1)?.script.sources ?? [];
  const urls = [...text.matchAll(/^ {3}(https:\S+)$/gm)].map((m) => m[1]);
  expect(new Set(urls)).toEqual(new Set(cited.flatMap((s) => (s.url ? [s.url] : []))));
  expect(urls).toHaveLength(new Set(urls).size);
  const titleOnly = cited.find((s) => !s.url);
  expect(text).toContain(titleOnly?.title ?? 'a title-only source');
  expect(Number(/^Sources \((\d+)\):/.exec(text)?.[1])).toBe(cited.length);
  // Numbered as the page and the answer's [n] number them (the thread's web_results order), title-only entries in place.
  const listed = text.split('\n\n').slice(1).map((entry) => /^ {3}(https:\S+)$/m.exec(entry)?.[1] ?? entry.replace(/^\d+\. /, ''));
  expect(listed).toEqual(cited.map((s) => s.url ?? s.title));

  // Every expansion folded back, the Answer tab selected again.
  await expect(page.locator('.citation-expansion')).toHaveCount(0);
  await expect(page.locator('[role="tab"][aria-selected="true"]').last()).toContainText('Answer');
});
