import { expect, test } from '@playwright/test';
import { type PanelWorld, startPanelWorld } from '../support/sim-harness';

/**
 * A computer-mode task that waits on a question or a confirmation is answered from
 * the side panel. A real MCP client asks (comet_ask), comet_wait comes back at once saying the agent
 * waits for the person, the panel (opened as a tab) shows the thread as "Waiting for you" with the
 * question, the person answers there, and the next comet_wait returns the finished answer.
 */
test.describe.configure({ mode: 'serial' });

/** Asks in computer mode and checks that comet_wait returns promptly with the waiting text. */
async function askAndWait(world: PanelWorld, prompt: string, question: string): Promise<string> {
  const { call } = world;
  const asked = await call('comet_ask', { prompt, newChat: true });
  expect(asked.isError, asked.text).toBe(false);
  const started = Date.now();
  const waited = await call('comet_wait', { timeout: 60_000 });
  expect(waited.isError).toBe(false);
  expect(waited.text.startsWith(`Agent is waiting for your input: ${question}`), waited.text).toBe(true);
  expect(waited.text).toContain('side panel');
  expect(waited.text).toContain('Steps so far:');
  expect(Date.now() - started).toBeLessThan(30_000);
  return waited.text;
}

for (const generation of ['B', 'A'] as const) {
  test.describe(`answering a waiting task from the side panel on generation ${generation}`, () => {
    let world: PanelWorld;
    test.beforeAll(async () => {
      world = await startPanelWorld({ generation, clientName: 'task-agent' });
      expect((await world.call('comet_mode', { mode: 'computer' })).text).toBe('Mode switch result: switched to computer');
    });
    test.afterAll(async () => world?.harness.close());

    test('a question: comet_wait says waiting, the panel answers it, the answer quotes the reply', async () => {
      const { panel, call } = world;
      const text = await askAndWait(world, 'Plan a weekend trip #scenario:task-question', 'Which city should I plan this for?');
      expect(text).toContain('Suggested answers: Paris | Lyon | Marseille');
      expect(text).toContain('  - Asking you a question');

      const thread = panel.getByTestId('thread').filter({ hasText: 'Plan a weekend trip' }).first();
      await expect(thread).toHaveAttribute('data-status', 'waiting');
      await expect(thread).toContainText('Waiting for you');
      const form = thread.getByTestId('interaction');
      await expect(form).toContainText('Which city should I plan this for?');
      await expect(form.getByRole('button', { name: 'Lyon', exact: true })).toBeVisible();

      await form.getByRole('textbox', { name: 'Your answer' }).fill('Annecy, by the lake');
      await form.getByRole('button', { name: 'Send' }).click();
      await expect(thread.getByTestId('interaction')).toHaveCount(0);
      await expect(thread).not.toHaveAttribute('data-status', 'waiting');

      const done = await call('comet_wait', { timeout: 60_000 });
      expect(done.isError).toBe(false);
      expect(done.text).toContain('You answered “Annecy, by the lake”');
      expect(done.text).toContain('Got your answer: Annecy, by the lake');
      await expect(thread).toHaveAttribute('data-status', 'done');
    });

    test('a confirmation approved in the panel: the task books and finishes', async () => {
      const { panel, call } = world;
      await askAndWait(world, 'Book dinner for Friday #scenario:task-confirm', 'Book the table at Chez Nous for 2 on Friday 19:30?');
      const thread = panel.getByTestId('thread').filter({ hasText: 'Book dinner for Friday' }).first();
      await expect(thread).toHaveAttribute('data-status', 'waiting');
      const form = thread.getByTestId('interaction');
      await expect(form).toContainText('Book the table at Chez Nous for 2 on Friday 19:30?');
      await form.getByRole('button', { name: 'Approve' }).click();
      await expect(thread.getByTestId('interaction')).toHaveCount(0);
      const done = await call('comet_wait', { timeout: 60_000 });
      expect(done.text).toContain('I booked the table at Chez Nous for 2 on Friday at 19:30.');
      expect(done.text).toContain('You approved the booking');
    });

    test('a confirmation denied in the panel: the task finishes without doing it', async () => {
      const { panel, call } = world;
      await askAndWait(world, 'Book dinner again #scenario:task-confirm', 'Book the table at Chez Nous for 2 on Friday 19:30?');
      const thread = panel.getByTestId('thread').filter({ hasText: 'Book dinner again' }).first();
      const form = thread.getByTestId('interaction');
      await expect(form).toContainText('Chez Nous');
      await form.getByRole('button', { name: 'Deny' }).click();
      await expect(thread.getByTestId('interaction')).toHaveCount(0);
      const done = await call('comet_wait', { timeout: 60_000 });
      expect(done.text).toContain('I did not book the table at Chez Nous');
      await expect(thread).toHaveAttribute('data-status', 'done');
    });
  });
}
