import { expect, test } from '@playwright/test';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

test.describe.configure({ mode: 'serial' });

/**
 * No conclusion from absence: a generation-A page that shows the chosen mode in markup no built-in
 * set knows (tests/sim variant unknownModePill). A missing pill used to read as "standard", and every
 * switch then came back "already deep-research (the page did not confirm it)"; the slash menu,
 * which does show the mode, now answers.
 */
test.describe('a mode pill no set knows (generation A)', () => {
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
});

/**
 * The Sep 2026 composer (generation B here): both wrapper buttons carry aria-pressed and a name, the
 * trigger has no aria-haspopup, and the page goes back to Search at every load, as the live site does
 * after every navigation (variant modeResets). The mode trigger is not read as Computer, and the mode
 * this session chose is set again before each ask, which says so.
 */
test.describe('the mode as it is, and kept for the session (generation B, mode resets on navigation)', () => {
  let world: SimWorld;
  test.beforeAll(async () => {
    world = await startSimWorld({ generation: 'B', speed: 4, layout: 'sessions-2026-09', variants: { modeResets: true } });
  });
  test.afterAll(async () => world?.harness.close());

  test('a pressed mode trigger beside an unpressed Computer toggle reads as its mode, not computer', async () => {
    const trigger = world.page.locator('[data-testid="ask-input-mode-toggle-width-wrapper"] button').first();
    await expect(trigger).toHaveAttribute('aria-pressed', 'true');
    await expect(trigger).not.toHaveAttribute('aria-haspopup', /./);
    expect((await world.call('comet_mode')).text).toBe('Current mode: standard');
  });

  test('comet_ask with newChat sets the session mode again after the page dropped it, and says so', async () => {
    expect((await world.call('comet_mode', { mode: 'deep-research' })).text).toBe('Mode switch result: switched to deep-research');
    const ask = await world.call('comet_ask', { prompt: 'Which mode am I in?', newChat: true });
    expect(ask.isError).toBe(false);
    expect(ask.text).toBe(
      'Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.\n' +
        "The page was in standard (Perplexity goes back to Search after every navigation), so this session's mode, deep-research, was set again before sending.",
    );
    const asked = world.site.threads().find((t) => t.turns.some((turn) => turn.query === 'Which mode am I in?'));
    expect(asked?.turns.at(-1)?.mode).toBe('deep-research');
    await world.call('comet_wait');
    // A follow-up on the same page: the mode is still there, nothing is switched or said.
    const again = await world.call('comet_ask', { prompt: 'And now?' });
    expect(again.text).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
  });
});
