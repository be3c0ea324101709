import { expect, test } from '@playwright/test';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * An MCP client's cancellation travels the whole chain down to the page, and nothing is left running.
 * The composer's dictation is on: its "Stop dictation" carries the stop control's icon beside it.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'B', dictation: true, clientName: 'cancelling-agent' });
});
test.afterAll(async () => world?.harness.close());

test('cancelling comet_wait aborts the wait in the page; the agent keeps working and can be stopped', async () => {
  await world.call('comet_ask', { prompt: 'Never ending #scenario:stopped' });
  const controller = new AbortController();
  const waiting = world.client.callTool({ name: 'comet_wait', arguments: { timeout: 60_000 } }, undefined, { signal: controller.signal });
  const panel = await world.harness.openPanel();
  const entry = panel.locator('[data-testid="activity-entry"][data-tool="comet_wait"]').first();
  await expect(entry).toHaveAttribute('data-phase', 'running');
  controller.abort();
  await expect(waiting).rejects.toThrow();
  await expect(entry.getByTestId('activity-outcome')).toContainText('CANCELLED');
  const snapshot = JSON.parse((await world.call('comet_poll')).text);
  expect(snapshot.status).toBe('working');
  expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
  // The answer's stop was the one pressed: the site recorded it, and dictation is still on.
  await expect.poll(() => world.site.threads()[0]?.turns.at(-1)?.stoppedAfter ?? null).not.toBeNull();
  await expect(world.page.locator('button[aria-label="Stop dictation"]')).toHaveCount(1);
});
