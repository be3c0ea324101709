import { expect, test } from '@playwright/test';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * comet_poll and comet_wait through the whole chain on the simulated site, whose thread JSON has
 * the real shapes: a finished answer comes from the JSON as Markdown (answerSource "json"); when
 * the JSON is broken, from the page's text (answerSource "page"), with the same text format. The
 * page's answers come without its ask stream here (a turn with one is read from it: comet-stream.spec.ts).
 */
for (const jsonMode of ['ok', 'error'] as const) {
  test.describe(`thread JSON ${jsonMode}`, () => {
    let world: SimWorld;
    test.beforeAll(async () => {
      world = await startSimWorld({ generation: 'B', speed: 4, jsonMode, askStream: false });
    });
    test.afterAll(async () => world?.harness.close());

    test(`a finished answer comes from ${jsonMode === 'ok' ? 'the JSON' : 'the page'}, and comet_poll says which`, async () => {
      await world.call('comet_ask', { prompt: 'Why are there two tides a day?' });
      const before = world.site.json.stats().requests;
      const waited = await world.call('comet_wait', { timeout: 60_000 });
      expect(waited.isError).toBe(false);
      expect(waited.text).not.toMatch(/^Agent (is still working|completed with no visible response)/);
      const polled = (await world.call('comet_poll')).raw as { structuredContent: { status: string; response: string; answerSource?: string } };
      expect(polled.structuredContent.status).toBe('completed');
      expect(polled.structuredContent.answerSource).toBe(jsonMode === 'ok' ? 'json' : 'page');
      expect(polled.structuredContent.response.length).toBeGreaterThan(0);
      // comet_wait's text is the same answer, in the reference's format (the answer, then its steps).
      expect(waited.text.startsWith(polled.structuredContent.response.slice(0, 40))).toBe(true);
      // One thread JSON request for the finished turn: the one the page made as it saw the turn end (issue 31
      // item 5), whose answer the poll reuses.
      if (jsonMode === 'ok') expect(world.site.json.stats().requests - before).toBe(1);
    });
  });
}
