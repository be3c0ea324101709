// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { PageContext } from '../../lib/page/dom/context';
import { PageWatcher } from '../../lib/page/answer/observer';
import { sendFollowUp, startThread } from '../../lib/page/threads/thread-actions';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { chooseSelectorSet } from '../../lib/selectors';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { appendTurn, pageTeardown } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';

/**
 * A credits or access notice already showing when a follow-up or a new task is submitted. Known by its words, not its
 * element: a page may draw the same notice anew on submit (React re-mounting the area around the composer), which
 * until 2026-12-06 read as this submit's refusal, and a follow-up the page took came back `notSent` (the agent would
 * send it again). A submit refused with those same words is `notSent` for the page's reason only while the composer
 * typed into still holds the prompt and no turn came: a page that took the prompt, re-mounted its composer and shows
 * the turn or the thread's address late is never "not sent" (a double send; a started task's tab closed). The page's
 * long waits run 50× faster here (lib/page/threads/thread-actions.ts `refusalWatch`, composer/actions.ts).
 */
const URL_ = 'https://www.perplexity.ai/search/the-thread';
const NOTICE = '<div data-testid="insufficient-credits">You have run out of Computer credits.</div>';
const teardown = pageTeardown();

function setup(onSubmit: (composer: HTMLElement) => void, url = URL_) {
  loadFixture('A-home.html', url);
  teardown.execCommand();
  // A credits notice from an earlier refusal, still on the page.
  document.body.insertAdjacentHTML('beforeend', NOTICE);
  const composer = document.getElementById('ask-input') as HTMLElement;
  const toolbar = document.querySelector('.toolbar') as HTMLElement;
  const submits: string[] = [];
  composer.addEventListener('input', () =>
    setTimeout(() => {
      if (!(composer.textContent ?? '').trim() || toolbar.querySelector('button')) return;
      toolbar.innerHTML = '<button aria-label="Submit">Go</button>';
    }, 2),
  );
  const onClick = (e: Event) => {
    if (!(e.target as Element).closest?.('button[aria-label="Submit"]')) return;
    submits.push(composer.textContent ?? '');
    onSubmit(composer);
  };
  document.addEventListener('click', onClick);
  teardown.cleanup(() => document.removeEventListener('click', onClick));
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  const waitFor: PageContext['waitFor'] = (fn, ms, signal) => watcher.waitFor(fn, ms >= 5000 ? ms / 50 : ms, signal);
  const ctx: PageContext = { win: window, doc: document, set, waitFor };
  const session = new ThreadSession({ ctx: () => ctx, watcher, json: () => threadJson2026, page: () => threadPage2026 });
  const send = () =>
    sendFollowUp(ctx, watcher, session, threadPage2026, { message: 'And the budget?', attachments: [], settings: {} }, { timeoutMs: 100_000 }).then(
      (r) => r,
      (e: { code?: string; message?: string; data?: unknown }) => ({ error: `[${e.code}] ${e.message}`, data: e.data }),
    );
  const start = () =>
    startThread(ctx, watcher, threadPage2026, { message: 'Plan the offsite', attachments: [], settings: {} }, { timeoutMs: 100_000 }).then(
      (r) => r,
      (e: { code?: string; message?: string; data?: unknown }) => ({ error: `[${e.code}] ${e.message}`, data: e.data }),
    );
  return { submits, send, start, set };
}

describe('a notice shown before the submit, drawn anew', () => {
  /** The page draws its credits notice anew (same words, a new element). */
  const redrawNotice = () => {
    const n = document.querySelector('[data-testid="insufficient-credits"]') as HTMLElement;
    n.replaceWith(n.cloneNode(true));
  };

  it.each([
    ['control: the notice kept as it was', false],
    ['the notice redrawn on a submit the page took is still the earlier refusal: the follow-up is reported sent', true],
  ])('%s', async (_name, redraw) => {
    const { submits, send } = setup(() => {
      if (redraw) redrawNotice();
      // The turn comes with the server's answer, a moment after the submit.
      const t = setTimeout(() => appendTurn('And the budget?'), 30);
      teardown.cleanup(() => clearTimeout(t));
    });
    const outcome = await send();
    expect(submits).toEqual(['And the budget?']);
    expect(outcome).not.toHaveProperty('notSent');
    expect(outcome).toMatchObject({ threadId: 'the-thread' });
  });

  it('this submit refused with the same words (the prompt kept, no turn): not sent, for the page\'s reason', async () => {
    const { submits, send } = setup(() => redrawNotice());
    const outcome = await send();
    expect(submits).toEqual(['And the budget?']);
    expect(outcome).toMatchObject({ notSent: true, event: 'insufficient_credits' });
  }, 20_000);
});

describe('a notice shown before the submit, a turn that comes late', () => {
  it('the page took the prompt (its composer re-mounted empty in place), the turn shows after confirmMs: never "not sent"', async () => {
    const { submits, send } = setup((composer) => {
      // Taken: the composer's box is mounted afresh (empty), and the turn shows a little after the confirmation's time.
      const fresh = composer.cloneNode(false) as HTMLElement;
      composer.replaceWith(fresh);
      const t = setTimeout(() => appendTurn('And the budget?'), 400);
      teardown.cleanup(() => clearTimeout(t));
    });
    const outcome = await send();
    expect(submits).toEqual(['And the budget?']);
    // The prompt went out: telling the agent "notSent" makes it send it a second time.
    expect(outcome).not.toHaveProperty('notSent');
  }, 20_000);

  it('startThread: the page took the prompt, its thread\'s address comes after confirmMs: never "not sent" (the worker would discard the tab)', async () => {
    const { submits, start } = setup((composer) => {
      // Taken: the home composer is unmounted at once; the new thread's address and turn come a little later.
      composer.replaceWith(composer.cloneNode(false));
      const t = setTimeout(() => {
        history.pushState({}, '', '/computer/tasks/plan-the-offsite-AbCdEfGhIjKlMnOpQrStUv');
        appendTurn('Plan the offsite');
      }, 400);
      teardown.cleanup(() => clearTimeout(t));
    }, 'https://www.perplexity.ai/');
    const outcome = await start();
    expect(submits).toEqual(['Plan the offsite']);
    expect(outcome).not.toHaveProperty('notSent');
  }, 20_000);
});
