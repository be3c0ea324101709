// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PageContext } from '../../lib/page/dom/context';
import { readSteps } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { readThreadDom, refusalOf } from '../../lib/page/threads/thread-dom-reader';
import { chooseSelectorSet, SELECTOR_SETS } from '../../lib/selectors';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { ThreadPageReaderSchema } from '../../lib/selectors/thread-schema';
import { loadFixture, loadHtml } from '../fixtures/reader/load';

/**
 * A Computer task page as the public record shows it (browser-use/browser-harness notes, April–May
 * 2026; lib/selectors/README.md, "Computer task pages"): the credits notice known only by its
 * words, tool steps in `group/tool-wrapper` rows whose label is the row's own button. Fragments in
 * our own markup, in the Aug–Oct 2026 turn layout (question block, then its blocks as siblings).
 */
const URL_ = 'https://www.perplexity.ai/computer/tasks/plan-the-trip-abcdefghijklmnopqrstuv';

function page(turnBlocks: string, outside = ''): PageContext {
  loadFixture('A-home.html', URL_);
  const column = document.createElement('div');
  column.className = 'max-w-threadContentWidth';
  column.innerHTML = `<div data-workflow-entry="0"><div class="group/query"><span class="select-text">Plan the trip</span></div></div>${turnBlocks}`;
  document.querySelector('main')?.prepend(column);
  if (outside) document.querySelector('main')?.insertAdjacentHTML('beforeend', outside);
  const set = chooseSelectorSet(document).set;
  return { win: window, doc: document, set, waitFor: async () => null };
}

const read = (ctx: PageContext) => readThreadDom(ctx, threadPage2026, { threadId: 'x', stopped: () => false }).turns.at(-1);

/** The notice as the record words it, with no test id (our markup). */
const CREDITS =
  '<div role="alert" class="notice"><div class="flex-1"><div class="font-medium">Insufficient credits</div><div>Add credits to continue</div></div>' +
  '<a href="https://www.perplexity.ai/account/usage">Add credits</a></div>';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('the credits notice, known by its words', () => {
  it('the reader data still checks, and the notice has no test id to lean on', () => {
    expect(ThreadPageReaderSchema.safeParse(threadPage2026).success).toBe(true);
    expect(CREDITS).not.toContain('data-testid');
  });

  it("a task's turn that stopped on credits: the event, its words and the billing link", () => {
    const turn = read(page(`<div class="contents">${CREDITS}</div>`));
    expect(turn?.event).toBe('insufficient_credits');
    expect(turn?.notice).toBe('Insufficient credits. Add credits to continue. Add credits.');
    expect(turn?.account).toMatchObject({ reason: 'insufficient_credits', billingUrl: 'https://www.perplexity.ai/account/usage' });
  });

  it('an answer that quotes the words is an answer, not the notice', () => {
    const answer =
      '<div data-workflow-final-text="" class="group/final-text"><div class="prose" data-renderer="lm">When Computer says "Insufficient credits", choose Add credits to continue.</div></div>' +
      '<div data-workflow-text-footer=""><button aria-label="Copy">c</button></div>';
    const turn = read(page(answer));
    expect(turn?.event).toBe('complete');
    expect(turn?.account).toBeUndefined();
  });

  it('the same words at the composer, outside every turn, are a refusal of the prompt', () => {
    const answer = '<div data-workflow-final-text="" class="group/final-text"><div class="prose" data-renderer="lm">Done.</div></div>';
    const ctx = page(answer, CREDITS);
    expect(refusalOf(ctx, threadPage2026)).toMatchObject({ event: 'insufficient_credits', account: { billingUrl: 'https://www.perplexity.ai/account/usage' } });
  });
});

describe('tool steps, from the `group/tool-wrapper` rows', () => {
  const row = (label: string, meta: string) =>
    `<div class="group/tool-wrapper flex"><button type="button"><svg><use href="#pplx-icon-file"></use></svg><span>${label}</span></button><span class="text-xs">${meta}</span></div>`;

  it('each row is one step, its label without the time and duration beside it', () => {
    const rows = `<div class="flex flex-col">${row('Writing to chart.py', 'Apr 17, 4:00 AM · 9s')}${row('Generating the comparison chart', 'Apr 17, 4:01 AM · 12s')}</div>`;
    const answer = '<div data-workflow-final-text="" class="group/final-text"><div class="prose" data-renderer="lm">The chart is ready.</div></div>';
    const turn = read(page(rows + answer));
    expect(turn?.steps).toEqual(['Writing to chart.py', 'Generating the comparison chart']);
  });

  it('a row quoted inside the answer is not a step', () => {
    const answer = `<div data-workflow-final-text="" class="group/final-text"><div class="prose" data-renderer="lm">Rows look like ${row('Writing to x', 'Apr 17 · 1s')}.</div></div>`;
    const turn = read(page(row('Researching: trains to Lyon', 'Apr 17, 4:00 AM · 3s') + answer));
    expect(turn?.steps).toEqual(['Researching: trains to Lyon']);
  });
});

describe("the page script's step list (comet_wait, comet_poll, the panel) on a task page", () => {
  it('takes each tool row by its label, without the time and duration beside it', () => {
    loadHtml(readFileSync(join(import.meta.dirname, '../fixtures/threads/B-computer-complete.html'), 'utf8'), URL_);
    const set = chooseSelectorSet(document, null, SELECTOR_SETS).set;
    const turn = turnsOf(document, set).at(-1);
    if (!turn) throw new Error('the saved task page shows no turn');
    const { steps } = readSteps(turn, set);
    expect(steps).toContain('Navigating to news.ycombinator.com');
    expect(steps.filter((s) => / · \d+s$|\d+s$/.test(s))).toEqual([]);
  });
});

describe("the simulated site's task pages (as saved by npm run sim:save-threads) draw what the record shows", () => {
  const load = (gen: 'A' | 'B', name: string) => loadHtml(readFileSync(join(import.meta.dirname, `../fixtures/threads/${gen}-${name}.html`), 'utf8'), URL_);

  it.each(['A', 'B'] as const)('generation %s: top bar h1, Todo trigger and its panel, tool rows, the composer', (gen) => {
    load(gen, 'computer-complete');
    expect(document.querySelector('.topbar h1')?.textContent).toBe('Task for the fixtures');
    const todo = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Todo');
    expect(todo?.getAttribute('data-state')).toBe('closed');
    expect(todo?.getAttribute('aria-expanded')).toBe('false');
    expect(todo?.getAttribute('aria-controls')).toMatch(/\S/);
    const rows = [...document.querySelectorAll('[class*="group/tool-wrapper"]')];
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) {
      expect(row.querySelectorAll(':scope > button')).toHaveLength(1);
      expect(row.textContent).toMatch(/[A-Z][a-z]{2} \d{1,2}, \d{1,2}:\d\d [AP]M · \d+s$/);
    }
    const editor = document.querySelector('[data-ask-input-container] [data-lexical-editor="true"]');
    expect(editor?.getAttribute('contenteditable')).toBe('true');
    expect(editor?.getAttribute('aria-placeholder')).toBe('Type a command...');
    const send = [...(document.querySelector('[data-ask-input-container]')?.querySelectorAll('button') ?? [])].at(-1);
    expect(send?.getAttribute('aria-label')).toBe('Submit');
    expect(send?.hasAttribute('disabled')).toBe(true);
  });

  it.each(['A', 'B'] as const)('generation %s: the credits notice in words, with no test id', (gen) => {
    load(gen, 'computer-credits');
    expect(document.querySelector('[data-testid="insufficient-credits"], [data-testid="add-credits"]')).toBeNull();
    const alert = [...document.querySelectorAll('[role="alert"]')].find((el) => el.textContent?.includes('Insufficient credits'));
    expect(alert?.textContent).toContain('Add credits to continue');
  });
});
