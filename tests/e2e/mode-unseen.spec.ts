import { expect, test } from '@playwright/test';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * No conclusion from absence: a generation-A page that shows the chosen mode in markup no built-in
 * set knows (tests/sim variant unknownModePill). A missing pill used to read as "standard", and every
 * switch then came back "already deep-research (the page did not confirm it)"; the slash menu,
 * which does show the mode, now answers.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'A', speed: 4, variants: { unknownModePill: true } });
});
test.afterAll(async () => world?.harness.close());

test('comet_mode reads and switches through the slash menu when the mode pill is not one it knows', async () => {
  expect((await world.call('comet_mode')).text).toBe('Current mode: standard');
  expect((await world.call('comet_mode', { mode: 'deep-research' })).text).toBe('Mode switch result: switched to deep-research');
  await expect(world.page.locator('.chosen-mode')).toHaveText('Deep research');
  expect((await world.call('comet_mode')).text).toBe('Current mode: deep-research');
  expect((await world.call('comet_mode', { mode: 'deep-research' })).text).toBe('Mode switch result: already deep-research');
  expect((await world.call('comet_mode', { mode: 'standard' })).text).toBe('Mode switch result: switched to standard');
  await expect(world.page.locator('.chosen-mode')).toHaveCount(0);
  // The composer is left as it was: reading through the slash menu typed "/" and took it away again.
  expect((await world.page.locator('#ask-input').innerText()).trim()).toBe('');
});
