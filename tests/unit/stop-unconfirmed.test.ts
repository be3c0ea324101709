// @vitest-environment happy-dom
import { expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { stop } from '../../lib/page/answer/stop';
import { cometTools } from '../../lib/mcp/tools/comet';
import { FakeBrowser, fakeContext, runTool } from '../support/fake-browser';
import { loadHtml } from '../fixtures/reader/load';

/**
 * A stop that did not take (its control stayed) must not make the turn's normal end read "stopped", and comet_stop
 * must not say "Agent stopped." for it (review 2026-12-05, page #2). The live layout, from the structure of the
 * 2026-09-26 one-turn capture: a question block, the answer block, the stop control in the composer, the action row
 * added when the answer ends.
 */
const PAGE = `<main><div class="max-w-threadContentWidth">
  <div data-workflow-entry="0"><span class="select-text">What is the capital of France?</span></div>
  <div data-workflow-final-text class="group/final-text"><div class="prose" data-renderer="lm"><p>Paris is</p></div></div>
</div>
<div data-ask-input-container><div id="ask-input" contenteditable="true" role="textbox"></div>
  <button aria-label="Stop response" id="stop"><svg><use href="#pplx-icon-player-stop-filled"></use></svg></button></div></main>`;

it('a click that stops nothing: unconfirmed, and the answer that then ends normally reads completed, not stopped', async () => {
  loadHtml(PAGE, 'https://www.perplexity.ai/search/the-thread-abc');
  const d = createPageDriver(window);
  // The page does not react to the click (a control that needs more, or a network slow to stop).
  const s = await stop(d.context(), d.watcher, 300);
  expect(s).toMatchObject({ stopped: true, confirmed: false });
  // The answer goes on and ends normally: the stop control goes, the action row comes.
  document.querySelector('.prose')!.innerHTML = '<p>Paris is the capital of France.</p>';
  document.getElementById('stop')!.remove();
  const footer = document.createElement('div');
  footer.setAttribute('data-workflow-text-footer', '');
  footer.innerHTML = '<button aria-label="Copy">c</button>';
  document.querySelector('[data-workflow-final-text]')!.after(footer);
  const p = await d.poll();
  expect(p.status).toBe('completed');
  expect(p.stopped).toBeUndefined();
  const w = await d.wait({ latest: true, timeoutMs: 2000 });
  expect(w.status).toBe('completed');
});

it('comet_stop says when its click did not take, and what to do', async () => {
  const browser = new FakeBrowser().on('page.stop', { stopped: true, confirmed: false, message: 'Agent stopped.' });
  const out = await runTool(cometTools, 'comet_stop', {}, fakeContext(browser).context);
  expect(out.text).toMatch(/^Stop was clicked, but the answer's stop control did not go away within 5 s: .*comet_poll/);
  const confirmed = new FakeBrowser().on('page.stop', { stopped: true, confirmed: true, message: 'Agent stopped.' });
  expect((await runTool(cometTools, 'comet_stop', {}, fakeContext(confirmed).context)).text).toBe('Agent stopped.');
});

it('no stop control on a turn still being written is a miss, never "No stop button found." (review 2026-12-05, page #3)', async () => {
  const poll = { status: 'working' as const, steps: [] as string[], currentStep: '', response: '', hasStopButton: false, hasLoadingSpinner: false, proseCount: 1, turnCount: 1, lastTurnIndex: 0, questionText: 'q', url: 'https://www.perplexity.ai/search/x', truncated: false, totalLength: 0 };
  const working = new FakeBrowser().on('page.stop', { stopped: false, confirmed: false, message: 'No stop button found.' }).on('page.poll', poll);
  const out = await runTool(cometTools, 'comet_stop', {}, fakeContext(working).context).catch((e: Error & { code?: string }) => ({ text: `[${e.code}] ${e.message}` }));
  expect(out.text).toMatch(/^\[SELECTOR_MISS\] stopButton: the turn is still being written .* nothing was clicked/);
  // A finished turn: nothing to stop, as before.
  const done = new FakeBrowser().on('page.stop', { stopped: false, confirmed: false, message: 'No stop button found.' }).on('page.poll', { ...poll, status: 'completed' });
  expect((await runTool(cometTools, 'comet_stop', {}, fakeContext(done).context)).text).toBe('No stop button found.');
});
