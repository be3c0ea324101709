// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { PageContext } from '../../lib/page/dom/context';
import { PageWatcher } from '../../lib/page/answer/observer';
import { sendFollowUp } from '../../lib/page/threads/thread-actions';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { chooseSelectorSet } from '../../lib/selectors';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { installExecCommand } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';

/**
 * The other side of knowing an earlier notice by its words (refusal-redrawn.test.ts): this submit refused with the
 * same words, the notice drawn anew and no turn, the prompt still in the composer: refused for the page's reason
 * (notSent, insufficient_credits), not a bare "not taken" (2026-12-06).
 */
const URL_ = 'https://www.perplexity.ai/search/the-thread';
let exec: ReturnType<typeof installExecCommand> | null = null;
const removers: (() => void)[] = [];
afterEach(() => {
  exec?.uninstall();
  exec = null;
  for (const r of removers.splice(0)) r();
  document.body.innerHTML = '';
});

describe('a refusal with the words of a notice shown before', () => {
  it('this submit refused with the same words as a notice shown before (drawn anew): the follow-up is reported not sent', async () => {
    loadFixture('A-home.html', URL_);
    exec = installExecCommand();
    document.body.insertAdjacentHTML('beforeend', '<div data-testid="insufficient-credits">You have run out of Computer credits.</div>');
    const composer = document.getElementById('ask-input') as HTMLElement;
    const toolbar = document.querySelector('.toolbar') as HTMLElement;
    const submits: string[] = [];
    composer.addEventListener('input', () =>
      setTimeout(() => {
        if (!(composer.textContent ?? '').trim() || toolbar.querySelector('button')) return;
        toolbar.innerHTML = '<button aria-label="Submit">Go</button>';
      }, 2),
    );
    // The page refuses the submit: no turn, the composer keeps the text, and it draws its credits notice anew.
    const onClick = (e: Event) => {
      if (!(e.target as Element).closest?.('button[aria-label="Submit"]')) return;
      submits.push(composer.textContent ?? '');
      const n = document.querySelector('[data-testid="insufficient-credits"]') as HTMLElement;
      n.replaceWith(n.cloneNode(true));
    };
    document.addEventListener('click', onClick);
    removers.push(() => document.removeEventListener('click', onClick));
    const set = chooseSelectorSet(document).set;
    const watcher = new PageWatcher(window, () => set);
    const ctx: PageContext = { win: window, doc: document, set, waitFor: watcher.waitFor };
    const session = new ThreadSession({ ctx: () => ctx, watcher, json: () => threadJson2026, page: () => threadPage2026 });
    const outcome = await sendFollowUp(ctx, watcher, session, threadPage2026, { message: 'And the budget?', attachments: [], settings: {} }, { timeoutMs: 2000 }).then(
      (r) => r,
      (e: { code?: string; message?: string }) => ({ error: `[${e.code}] ${e.message}` }),
    );
    expect(submits).toEqual(['And the budget?']);
    expect(outcome).toMatchObject({ notSent: true, event: 'insufficient_credits' });
  }, 30_000);
});
