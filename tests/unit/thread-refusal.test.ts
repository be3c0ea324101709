// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { PageContext } from '../../lib/page/dom/context';
import { PageWatcher } from '../../lib/page/answer/observer';
import { sendFollowUp } from '../../lib/page/threads/thread-actions';
import { ThreadSession } from '../../lib/page/threads/thread-session';
import { refusalOf } from '../../lib/page/threads/thread-dom-reader';
import { chooseSelectorSet } from '../../lib/selectors';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { appendTurn, installExecCommand, wireSubmit } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';

/**
 * A submit's refusal is this submit's: a credits notice the page already showed before the prompt
 * was typed (an earlier refusal) never makes a message that went out count as "nothing was sent".
 */
const URL_ = 'https://www.perplexity.ai/search/the-thread';

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
});

function notice(text: string): void {
  document.body.insertAdjacentHTML('beforeend', `<div data-testid="insufficient-credits">${text}</div>`);
}


function follow(message: string) {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  const ctx: PageContext = { win: window, doc: document, set, waitFor: watcher.waitFor };
  const session = new ThreadSession({ ctx: () => ctx, watcher, json: () => threadJson2026, page: () => threadPage2026 });
  return sendFollowUp(ctx, watcher, session, threadPage2026, { message, attachments: [], settings: {} }, { timeoutMs: 2000 });
}

describe('a refusal notice already on the page', () => {
  it('is not this follow-up\'s refusal: the message that was typed and submitted is reported sent', async () => {
    loadFixture('A-home.html', URL_);
    exec = installExecCommand();
    notice('You have run out of Computer credits.');
    const { submits } = wireSubmit((q) => appendTurn(q));
    const result = await follow('And the budget?');
    expect(submits).toEqual(['And the budget?']);
    expect(result).not.toHaveProperty('notSent');
    expect(result).toMatchObject({ threadId: 'the-thread' });
  });

  it('a notice the page shows after this submit is its refusal: notSent', async () => {
    loadFixture('A-home.html', URL_);
    exec = installExecCommand();
    wireSubmit(() => notice('You have run out of Computer credits.'));
    const result = await follow('And the budget?');
    expect(result).toMatchObject({ notSent: true, event: 'insufficient_credits' });
  });
});

/**
 * In the Aug–Oct 2026 layout a task's own blocks are siblings of its question block: a task that
 * stopped on credits in its first second shows its card beside the turn, not inside it. That card
 * is the task's event, not a refusal of the prompt that started it.
 */
describe("a task's own credits card beside its question block", () => {
  function creditsCardAfter(turn: HTMLElement): void {
    turn.insertAdjacentHTML('afterend', '<div data-testid="insufficient-credits" role="alert">Insufficient credits. Add credits to continue.</div>');
  }

  it('belongs to the turn: refusalOf sees no refusal, and a composer-scoped notice still is one', () => {
    loadFixture('A-home.html', URL_);
    creditsCardAfter(appendTurn('Research the market'));
    const set = chooseSelectorSet(document).set;
    expect(refusalOf({ doc: document, set }, threadPage2026)).toBeUndefined();
    notice('Your message was not sent.');
    expect(refusalOf({ doc: document, set }, threadPage2026)).toMatchObject({ event: 'insufficient_credits' });
  });

  it('a follow-up whose new turn shows it was sent, not refused', async () => {
    loadFixture('A-home.html', URL_);
    exec = installExecCommand();
    const { submits } = wireSubmit((q) => creditsCardAfter(appendTurn(q)));
    const result = await follow('Now book it');
    expect(submits).toEqual(['Now book it']);
    expect(result).not.toHaveProperty('notSent');
  });
});
