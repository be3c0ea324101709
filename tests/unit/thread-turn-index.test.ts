// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { PageWatcher } from '../../lib/page/answer/observer';
import type { PageContext } from '../../lib/page/dom/context';
import { sendFollowUp } from '../../lib/page/threads/thread-actions';
import { readThreadDom } from '../../lib/page/threads/thread-dom-reader';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { waitForCheckpoint } from '../../lib/page/threads/thread-wait';
import { chooseSelectorSet } from '../../lib/selectors';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { installExecCommand, wireSubmit } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';

/**
 * A long thread keeps only its latest five answers mounted (measured live 2026-09-18): turns are
 * known by the page's own index (`data-workflow-entry`), never by their position among the blocks
 * still mounted. Fragments in the Aug–Oct 2026 layout: the question block, then its answer and
 * action row as siblings.
 */
const URL_ = 'https://www.perplexity.ai/computer/tasks/plan-the-trip-abcdefghijklmnopqrstuv';

function turnHtml(n: number, answered = true, text = `question ${n}`): string {
  const question = `<div data-workflow-entry="${n}"><div class="group/query"><span class="select-text">${text}</span></div></div>`;
  if (!answered) return question;
  return `${question}<div data-workflow-final-text="" class="group/final-text"><div class="prose" data-renderer="lm">answer ${n}</div></div><div data-workflow-text-footer=""><button aria-label="Copy">c</button></div>`;
}

/** Turns 5…9 of a ten-turn thread, the older five no longer mounted. */
function longThread(): HTMLElement {
  loadFixture('A-home.html', URL_);
  const column = document.createElement('div');
  column.className = 'max-w-threadContentWidth';
  column.innerHTML = [5, 6, 7, 8, 9].map((n) => turnHtml(n)).join('');
  document.querySelector('main')?.prepend(column);
  return column;
}

function context(): { ctx: PageContext; watcher: PageWatcher; session: ThreadSession } {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  const ctx: PageContext = { win: window, doc: document, set, waitFor: watcher.waitFor };
  // No JSON here: every body is empty ("later"), so the page answers.
  Object.defineProperty(window, 'fetch', { value: async () => ({ status: 200, text: async () => '' }) as Response, configurable: true });
  const session = new ThreadSession({ ctx: () => ctx, watcher, json: () => threadJson2026, page: () => threadPage2026 });
  return { ctx, watcher, session };
}

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
  document.body.innerHTML = '';
});

describe('turns of a long thread by the page\'s own index', () => {
  it('the page reading numbers the mounted turns 5…9 and counts ten', () => {
    longThread();
    const { ctx } = context();
    expect(ctx.set.name).toBe('gen-b-2026-10-live');
    const reading = readThreadDom(ctx, threadPage2026, { threadId: 'x', stopped: () => false });
    expect(reading.turns.map((t) => [t.index, t.query])).toEqual([5, 6, 7, 8, 9].map((n) => [n, `question ${n}`]));
    expect(reading.turnCount).toBe(10);
  });

  it('the latest turn from the page is turn 9 of ten', () => {
    longThread();
    const { session } = context();
    const latest = session.latestFromPage();
    expect(latest.turn).toMatchObject({ index: 9, query: 'question 9', event: 'complete' });
    expect(latest.reading.turnCount).toBe(10);
  });

  it('a wait for turn 7 returns turn 7, not the turn at position 7 or none', async () => {
    longThread();
    const { session, watcher } = context();
    const outcome = await waitForCheckpoint(session, watcher, { threadId: session.threadId ?? '', turn: 7, timeoutMs: 500 });
    expect(outcome.turn).toMatchObject({ index: 7, query: 'question 7', event: 'complete', answer: 'answer 7' });
  });

  it('a follow-up is seen as sent when turn 10 mounts (and turn 5 leaves): its turn is 10', async () => {
    const column = longThread();
    exec = installExecCommand();
    const { ctx, watcher, session } = context();
    wireSubmit(() => {
      // The page mounts the new question and unmounts the oldest turn's blocks.
      for (const el of Array.from(column.children).slice(0, 3)) el.remove();
      column.insertAdjacentHTML('beforeend', turnHtml(10, false, 'And the budget?'));
    });
    const result = await sendFollowUp(ctx, watcher, session, threadPage2026, { message: 'And the budget?', attachments: [], settings: {} }, { timeoutMs: 60_000 });
    expect(result).toMatchObject({ turn: 10 });
    // Counting mounted turns (five) against the page's count (ten) would wait out the whole minute.
  }, 15_000);
});
