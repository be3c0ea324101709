// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { appendTurn, pageTeardown } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * The composer between the typing and the submit, on a page that listens at its root (React: a click or a key on an
 * element it dropped reaches nobody) and may re-mount the composer or change conversation meanwhile. Until
 * 2026-12-06 the ask pressed Submit or Enter on the composer it had typed into, then read a dropped one as emptied:
 * "the page took the prompt … do not send it again" of a prompt never sent. What holds now: the prompt goes through
 * the composer the page shows, once; never into a conversation the tab went to meanwhile (nor the person's draft
 * there); never said taken when nothing went out; a Computer task whose slug changes is the same conversation.
 */
const HOME = '<main><div class="composer"><div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div></div></main>';

const teardown = pageTeardown();
function on(type: string, fn: (e: Event) => void): void {
  document.addEventListener(type, fn);
  teardown.cleanup(() => document.removeEventListener(type, fn));
}

/** A React-like page (listeners at the document). `after(prompt landed)` runs once, `ms` after the prompt arrived. */
function page(url: string, opts: { enableAfterMs?: number; once?: { ms: number; run: () => void } } = {}) {
  loadHtml(HOME, url);
  const state = { submitted: [] as { question: string; url: string }[] };
  const live = () => document.getElementById('ask-input') as HTMLElement;
  const render = () => {
    const toolbar = document.querySelector('.toolbar') as HTMLElement;
    const has = (live().textContent ?? '').trim() !== '';
    toolbar.innerHTML = has ? `<button aria-label="Submit"${opts.enableAfterMs ? ' disabled' : ''}>Go</button>` : '';
    if (has && opts.enableAfterMs) setTimeout(() => document.querySelector('.toolbar button')?.removeAttribute('disabled'), opts.enableAfterMs);
  };
  const send = () => {
    const question = live().textContent ?? '';
    if (!question.trim()) return;
    state.submitted.push({ question, url: location.href });
    live().textContent = '';
    render();
    setTimeout(() => appendTurn(question), 5);
  };
  let fired = false;
  on('input', (e) => {
    if (!(e.target as Element).closest?.('#ask-input')) return;
    setTimeout(render, 2);
    if (opts.once && !fired && (live().textContent ?? '').trim() !== '') {
      fired = true;
      setTimeout(opts.once.run, opts.once.ms);
    }
  });
  on('click', (e) => {
    if ((e.target as Element).closest?.('[aria-label="Submit"]') && !(e.target as HTMLButtonElement).disabled) send();
  });
  on('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter' && (e.target as Element).closest?.('#ask-input')) send();
  });
  return state;
}

const run = (prompt: string) =>
  pageWithAskKit(window)['page.ask']!({ prompt, confirmMs: 150 } as never, { signal: new AbortController().signal, progress: () => {} }).then(
    (handle) => ({ handle: handle as { conversationUrl?: string } }),
    (error: { code?: string; message?: string; data?: unknown }) => ({ error: `[${error.code}] ${error.message}`, data: error.data }),
  );

/** The page re-mounts the composer's box (new elements); `text` false: the prompt typed in it is lost. */
function remount(text = true): void {
  const box = document.querySelector('.composer') as HTMLElement;
  const fresh = box.cloneNode(true) as HTMLElement;
  if (!text) {
    (fresh.querySelector('#ask-input') as HTMLElement).textContent = '';
    (fresh.querySelector('.toolbar') as HTMLElement).innerHTML = '';
  }
  box.replaceWith(fresh);
}

/** The person opens thread B (an SPA route): its page mounts its own composer, holding `composer` (its inner HTML). */
function openThreadB(composer = '<div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div>'): void {
  history.pushState({}, '', '/search/thread-b');
  document.querySelector('.max-w-threadContentWidth')?.remove();
  const box = document.querySelector('.composer') as HTMLElement;
  const fresh = box.cloneNode(false) as HTMLElement;
  fresh.innerHTML = composer;
  box.replaceWith(fresh);
  appendTurn('the question of thread B');
}

describe('the composer re-mounted between the typing and the submit', () => {
  it('control: the same page without the re-mount takes the prompt', async () => {
    const prompt = 'What is the capital of France?';
    const state = page('https://www.perplexity.ai/');
    teardown.execCommand();
    expect(await run(prompt)).toEqual({ handle: expect.objectContaining({ turnIndex: 0 }) });
    expect(state.submitted.map((s) => s.question)).toEqual([prompt]);
  });

  it('the prompt is submitted through the composer the page shows now, and the ask resolves with its turn', async () => {
    const prompt = 'What is the capital of France?';
    const state = page('https://www.perplexity.ai/', { once: { ms: 15, run: () => remount() } });
    teardown.execCommand();
    expect(await run(prompt)).toEqual({ handle: expect.objectContaining({ turnIndex: 0 }) });
    expect(state.submitted.map((s) => s.question)).toEqual([prompt]);
  });

  it('re-mounted with its text lost while Submit waits to enable: never "the page took the prompt" of a prompt never sent', async () => {
    const state = page('https://www.perplexity.ai/', { enableAfterMs: 300, once: { ms: 150, run: () => remount(false) } });
    teardown.execCommand();
    const outcome = await run('What is the capital of France?');
    expect(state.submitted).toEqual([]);
    expect(JSON.stringify(outcome)).not.toMatch(/do not send it again/);
  });

  it('a Computer task whose slug changes while its composer re-mounts (text kept) is the same conversation: the prompt is sent', async () => {
    const prompt = 'Continue with the second option';
    const state = page('https://www.perplexity.ai/computer/tasks/plan-a-trip-AbCdEfGhIjKlMnOpQrStUv', {
      once: {
        ms: 15,
        run: () => {
          // The page renames the task (its slug changes, its last 22 characters stay) and re-mounts the composer.
          history.replaceState({}, '', '/computer/tasks/plan-a-trip-to-lisbon-AbCdEfGhIjKlMnOpQrStUv');
          remount();
        },
      },
    });
    appendTurn('Plan a trip');
    teardown.execCommand();
    const outcome = await run(prompt);
    expect(JSON.stringify(outcome)).not.toMatch(/left .* for another conversation/);
    expect(state.submitted.map((s) => s.question)).toEqual([prompt]);
  });
});

describe('the tab goes to another conversation after the prompt was typed', () => {
  it('before the submit: the prompt is not sent there, and the ask says so', async () => {
    const state = page('https://www.perplexity.ai/search/thread-a', { once: { ms: 15, run: () => openThreadB() } });
    appendTurn('the question of thread A');
    teardown.execCommand();
    const outcome = await run('Delete the draft we discussed in this thread');
    expect(state.submitted).toEqual([]);
    expect(outcome).toHaveProperty('error');
  });

  it('while Submit waits to enable: nothing is sent, and the ask never says "the page took the prompt; do not send it again"', async () => {
    const state = page('https://www.perplexity.ai/search/thread-a', { enableAfterMs: 300, once: { ms: 150, run: () => openThreadB() } });
    appendTurn('the question of thread A');
    teardown.execCommand();
    const outcome = await run('Summarise what we decided in this thread');
    expect(state.submitted).toEqual([]);
    expect(JSON.stringify(outcome)).not.toMatch(/do not send it again/);
  });

  it("while Submit waits, thread B's composer holding the person's own draft: nothing is submitted there", async () => {
    const draft = '<div id="ask-input" contenteditable="true" role="textbox">Half-written note for B, not ready</div><div class="toolbar"><button aria-label="Submit">Go</button></div>';
    const state = page('https://www.perplexity.ai/search/thread-a', { enableAfterMs: 300, once: { ms: 150, run: () => openThreadB(draft) } });
    appendTurn('the question of thread A');
    teardown.execCommand();
    await run('Summarise what we decided in this thread');
    expect(state.submitted).toEqual([]);
  });
});
