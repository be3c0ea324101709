// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { PageContext } from '../../lib/page/dom/context';
import { PageWatcher } from '../../lib/page/answer/observer';
import { sendFollowUp } from '../../lib/page/threads/thread-actions';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { chooseSelectorSet } from '../../lib/selectors';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { appendTurn, installExecCommand, wireSubmit } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';

/**
 * A credits or access notice already showing before a follow-up is an earlier refusal, not this submit's. A page
 * may draw it anew on submit (React re-mounting the area around the composer: a new element, the same words):
 * until 2026-12-06 the notice was known by its element, so the redrawn one read as a new refusal and the follow-up,
 * typed, submitted and taken, came back `notSent` (the agent would send it again). Known by its words now
 * (lib/page/threads/thread-actions.ts `refusalWatch`).
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

function follow(message: string) {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  const ctx: PageContext = { win: window, doc: document, set, waitFor: watcher.waitFor };
  const session = new ThreadSession({ ctx: () => ctx, watcher, json: () => threadJson2026, page: () => threadPage2026 });
  return sendFollowUp(ctx, watcher, session, threadPage2026, { message, attachments: [], settings: {} }, { timeoutMs: 2000 });
}

describe('an earlier refusal notice redrawn by the submit', () => {
  it.each([
    ['control: the notice kept as it was', false],
    ['the notice redrawn (same words, new element) is still the earlier refusal: the follow-up is reported sent', true],
  ])('%s', async (_name, redraw) => {
    loadFixture('A-home.html', URL_);
    exec = installExecCommand();
    document.body.insertAdjacentHTML('beforeend', '<div data-testid="insufficient-credits">You have run out of Computer credits.</div>');
    const { submits } = wireSubmit((q) => appendTurn(q));
    // Like React re-rendering the area around the composer when it submits: the notice it showed is drawn anew.
    const onClick = (e: Event) => {
      if (!redraw || !(e.target as Element).closest?.('button[aria-label="Submit"]')) return;
      const n = document.querySelector('[data-testid="insufficient-credits"]') as HTMLElement;
      n.replaceWith(n.cloneNode(true));
    };
    document.addEventListener('click', onClick);
    removers.push(() => document.removeEventListener('click', onClick));
    const result = await follow('And the budget?');
    expect(submits).toEqual(['And the budget?']);
    expect(result).not.toHaveProperty('notSent');
    expect(result).toMatchObject({ threadId: 'the-thread' });
  });
});
