// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * page.ask against a small fake Perplexity page: a Lexical-like composer, a Submit button that
 * renders a moment after text arrives, a server round trip, then a new turn showing the question.
 * The page refuses prompts while an answer is being written (its Stop button is up), like the site.
 */
const HOME = '<main><div class="composer"><div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div></div></main>';

interface FakePage {
  /** Questions the page took (what reached its "server"). */
  submitted: string[];
  composer: HTMLElement;
  /** Shows or removes the Stop button of an answer in progress. */
  setWorking(working: boolean): void;
  /** Adds a turn for a question nobody here typed (another session, or the person). */
  addTurn(question: string): void;
}

function fakePage(turnDelayMs = 5): FakePage {
  loadHtml(HOME, 'https://www.perplexity.ai/');
  const submitted: string[] = [];
  const composer = document.getElementById('ask-input') as HTMLElement;
  const toolbar = document.querySelector('.toolbar') as HTMLElement;
  let working = false;
  const addTurn = (question: string) => void appendTurn(question);
  const render = () => {
    const has = (composer.textContent ?? '').trim() !== '';
    toolbar.innerHTML = working ? '<button aria-label="Stop">■</button>' : has ? '<button aria-label="Submit">Go</button>' : '';
    toolbar.querySelector('[aria-label="Submit"]')?.addEventListener('click', () => {
      if (working) return; // the page ignores a prompt while it answers
      const question = composer.textContent ?? '';
      submitted.push(question);
      composer.textContent = '';
      render();
      setTimeout(() => addTurn(question), turnDelayMs); // the server round trip
    });
  };
  composer.addEventListener('input', () => setTimeout(render, 2));
  render();
  return {
    submitted,
    composer,
    addTurn,
    setWorking(value) {
      working = value;
      render();
    },
  };
}

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
});

function ask(prompt: string, signal: AbortSignal, progress: string[] = []) {
  const handlers = pageWithAskKit(window);
  return handlers['page.ask']!({ prompt } as never, { signal, progress: (m) => progress.push(m) });
}

describe('a cancelled ask never types or submits after the cancel', () => {
  it('a cancel that arrived before the page started: nothing is typed', async () => {
    const page = fakePage();
    exec = installExecCommand();
    page.composer.textContent = 'my own draft';
    const controller = new AbortController();
    controller.abort();
    await expect(ask('Should never be sent', controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((r) => setTimeout(r, 30));
    expect(page.submitted).toEqual([]);
    expect(page.composer.textContent).toBe('my own draft');
  });

  it('cancelled while waiting for a busy page: nothing is typed when the page frees up', async () => {
    const page = fakePage();
    exec = installExecCommand();
    page.setWorking(true);
    const controller = new AbortController();
    const asked = ask('Queued then cancelled', controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(asked).rejects.toMatchObject({ code: 'CANCELLED' });
    page.setWorking(false);
    await new Promise((r) => setTimeout(r, 30));
    expect(page.submitted).toEqual([]);
    expect(page.composer.textContent).toBe('');
  });

  it('cancelled between typing and submitting: not submitted, and the composer gets back what it held', async () => {
    const page = fakePage();
    exec = installExecCommand();
    page.composer.textContent = 'draft';
    const controller = new AbortController();
    page.composer.addEventListener('input', () => {
      if (page.composer.textContent === 'Typed then cancelled') controller.abort();
    });
    await expect(ask('Typed then cancelled', controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((r) => setTimeout(r, 30));
    expect(page.submitted).toEqual([]);
    expect(page.composer.textContent).toBe('draft');
  });

  it('cancelled after submitting, while the page is slow to show the turn: the draft goes back, and the error says the prompt may be taken (review 2026-12-05, page #1)', async () => {
    const page = fakePage(600);
    exec = installExecCommand();
    page.composer.textContent = 'my half-written notes';
    const controller = new AbortController();
    const asked = ask('What is the capital of France?', controller.signal);
    const submitted = async () => {
      for (let i = 0; i < 200 && page.submitted.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    };
    await submitted();
    controller.abort();
    await expect(asked).rejects.toMatchObject({ code: 'CANCELLED', message: expect.stringMatching(/after its prompt was submitted.*check with comet_poll \(read_thread for a Computer thread\) before sending it again/) });
    expect(page.submitted).toEqual(['What is the capital of France?']);
    expect(page.composer.textContent).toBe('my half-written notes');
  });
});

describe('ask succeeds only when the page took this prompt', () => {
  it('an earlier answer still streaming: the ask waits for it to end, then submits', async () => {
    const page = fakePage();
    exec = installExecCommand();
    page.addTurn('Earlier question');
    page.setWorking(true);
    const progress: string[] = [];
    const asked = ask('Second question', new AbortController().signal, progress);
    await new Promise((r) => setTimeout(r, 40));
    expect(page.submitted).toEqual([]);
    expect(progress.join(' ')).toMatch(/still answering/);
    page.setWorking(false);
    const handle = (await asked) as { turnIndex: number; afterTurn: number };
    expect(page.submitted).toEqual(['Second question']);
    expect(handle).toMatchObject({ afterTurn: 1, turnIndex: 1 });
  });

  it('the page never frees up: a clear error, not "submitted successfully"', async () => {
    const page = fakePage();
    exec = installExecCommand();
    page.addTurn('Earlier question');
    page.setWorking(true);
    const handlers = pageWithAskKit(window);
    const err = await handlers['page.ask']!({ prompt: 'Ignored', busyWaitMs: 60 } as never, { signal: new AbortController().signal, progress: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).message).toMatch(/still answering.*comet_wait.*comet_stop/);
    expect(page.submitted).toEqual([]);
  });

  /** The page shows another conversation, as a click in its sidebar does: its address and its own turns. */
  const openOther = (path: string, question: string) => {
    history.pushState(null, '', path);
    document.querySelector('.max-w-threadContentWidth')?.remove();
    appendTurn(question);
  };
  /** An answer being written at `path` when a prompt arrives; `during` runs while it waits; the outcome. */
  async function waitedAt(path: string, during: () => void) {
    const page = fakePage();
    exec = installExecCommand();
    history.replaceState(null, '', path);
    page.addTurn('First question');
    page.setWorking(true);
    const asked = ask('The waiting prompt', new AbortController().signal);
    await new Promise((r) => setTimeout(r, 20));
    during();
    page.setWorking(false);
    const outcome = await asked.then(
      () => 'typed',
      (e: RelayError) => e,
    );
    return { outcome, submitted: page.submitted };
  }

  it('the tab opened another conversation while the prompt waited: nothing is typed, and the other page is not named (review 10, router)', async () => {
    const { outcome, submitted } = await waitedAt('/search/the-asked-one', () => openOther('/search/the-persons-private-thread', 'Private question'));
    expect(outcome).toMatchObject({ code: 'AGENT_ERROR', data: { notSent: true } });
    expect((outcome as RelayError).message).toMatch(/^The tab left https:\/\/www\.perplexity\.ai\/search\/the-asked-one while this prompt waited for an answer to end; nothing was typed\. Call again once the tab shows the conversation it is for\.$/);
    expect(submitted).toEqual([]);
  });

  it('from home the prompt follows only the answer being written to its own address, never a thread the person opens (review 11b, F1)', async () => {
    // The page names the new thread, then the person opens another in the sidebar; or opens it first.
    for (const during of [
      () => {
        history.pushState(null, '', '/search/first-question-abc');
        openOther('/search/the-persons-private-thread', 'Private question');
      },
      () => openOther('/search/the-persons-private-thread', 'Private question'),
    ]) {
      const { outcome, submitted } = await waitedAt('/', during);
      expect(outcome).toMatchObject({ code: 'AGENT_ERROR', message: expect.stringMatching(/^The tab left https:\/\/www\.perplexity\.ai\/ while/) });
      expect(submitted).toEqual([]);
    }
    expect((await waitedAt('/', () => history.pushState(null, '', '/search/first-question-abc'))).submitted).toEqual(['The waiting prompt']);
  });

  it('from home, a page of no conversation the tab goes to is no place for it either: a Space, New thread (review 11c, W1)', async () => {
    const space = await waitedAt('/', () => openOther('/spaces/team-notes-abc', 'A question of the Space'));
    expect(space.outcome).toMatchObject({ code: 'AGENT_ERROR' });
    const fresh = await waitedAt('/', () => {
      history.pushState(null, '', '/');
      document.querySelector('.max-w-threadContentWidth')?.remove();
    });
    expect(fresh.outcome).toMatchObject({ code: 'AGENT_ERROR' });
    expect([space.submitted, fresh.submitted]).toEqual([[], []]);
  });

  it('the same conversation under another address is followed: /search/new named, a task slug re-summarized, a slash, a query or fragment (review 11b, F2)', async () => {
    const moves: [string, string][] = [
      ['/search/new?q=why+is+the+sky+blue', '/search/why-is-the-sky-blue-Abc123xyz'],
      ['/computer/tasks/summarize-hn-AbCdEfGhIjKlMnOpQrStUv', '/computer/tasks/top-5-hacker-news-stories-AbCdEfGhIjKlMnOpQrStUv'],
      ['/search/the-asked-one', '/search/the-asked-one/'],
      ['/search/the-asked-one', '/search/the-asked-one?preview=1#x'],
      ['/search/the-asked-one?ref=/computer/tasks/x', '/search/the-asked-one'],
    ];
    for (const [from, to] of moves) {
      const { outcome, submitted } = await waitedAt(from, () => history.replaceState(null, '', to));
      expect(outcome, `${from} → ${to}`).toBe('typed');
      expect(submitted).toEqual(['The waiting prompt']);
    }
  });

  it('a new turn with someone else\'s question is not ours', async () => {
    const page = fakePage();
    exec = installExecCommand();
    // The page takes the text away on Submit, but what appears is another question (say the person's own).
    document.querySelector('.toolbar')?.addEventListener(
      'click',
      (e) => {
        if (page.composer.textContent !== 'Mine') return;
        e.stopImmediatePropagation();
        page.composer.textContent = '';
        page.addTurn('Somebody else asked this');
      },
      { capture: true },
    );
    const handlers = pageWithAskKit(window);
    const err = await handlers['page.ask']!({ prompt: 'Mine', confirmMs: 80 } as never, { signal: new AbortController().signal, progress: () => {} }).catch(
      (e: unknown) => e,
    );
    // The composer emptied: the page took a prompt, so the agent is never told to send it again.
    expect((err as RelayError).code).toBe('TIMEOUT');
    expect((err as RelayError).message).toMatch(/the page took the prompt .* do not send it again/);
    expect((err as RelayError).message).not.toMatch(/did not take it/);
    // The comet_wait it asks for follows this prompt's turn, the one after those the page had (none), as page.ask's
    // result would have named it; bound to its question too, the other turn that showed there is never its answer.
    expect((err as RelayError).data?.taken).toMatchObject({ turnIndex: 0, conversationUrl: location.href, questionKey: 'Mine' });
    expect(typeof (err as RelayError).data?.taken?.askedAt).toBe('number');
  });

  it('a prompt the page took (composer emptied) whose turn shows late is confirmed, never "not taken" (#11)', async () => {
    // The page empties the composer on Submit, as it does when it takes a prompt, and shows the turn well after the
    // confirmation budget.
    fakePage(250);
    exec = installExecCommand();
    const handlers = pageWithAskKit(window);
    const handle = await handlers['page.ask']!({ prompt: 'Slow to show', confirmMs: 80 } as never, { signal: new AbortController().signal, progress: () => {} });
    expect(handle).toMatchObject({ turnIndex: 0 });
  });
});

describe("the ask kit asks through the page script's driver (lib/page/kits/ask-kit.ts)", () => {
  it('two asks in one tab go one after the other, and the page script binds its wait to the last of them', async () => {
    const page = fakePage();
    exec = installExecCommand();
    const handlers = pageWithAskKit(window);
    const call = (progress: string[] = []) => ({ signal: new AbortController().signal, progress: (m: string) => progress.push(m) });
    const queued: string[] = [];
    const first = handlers['page.ask']!({ prompt: 'First' } as never, call());
    const second = handlers['page.ask']!({ prompt: 'Second' } as never, call(queued));
    expect(await first).toMatchObject({ turnIndex: 0 });
    expect(await second).toMatchObject({ turnIndex: 1, afterTurn: 1 });
    expect(page.submitted).toEqual(['First', 'Second']);
    expect(queued).toEqual(['Another prompt is being sent in this tab; this one follows it.']);
    // page.wait is the page script's own: without a binding it follows the last ask the kit made.
    document
      .querySelector('[data-workflow-entry="1"]')
      ?.insertAdjacentHTML('beforeend', '<div data-workflow-final-text><div class="prose" data-renderer="lm">Second answer.</div></div>');
    expect(await handlers['page.wait']!({ timeoutMs: 2000 } as never, call())).toMatchObject({ turnIndex: 1, questionText: 'Second', response: 'Second answer.' });
  });
});
