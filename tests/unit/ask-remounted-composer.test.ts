// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * A composer re-mounted between the typing and the submit (React re-keying the composer's box: the route settling
 * after New thread, hydration recovering, the Computer composer loading). A page that listens at its root takes
 * neither a click nor an Enter on the dropped copy: until 2026-12-06 the prompt waited unsent in the live composer,
 * and the ask read the dropped one as emptied and said "the page took the prompt … do not send it again". The prompt
 * goes through the composer the page shows now (lib/page/composer/actions.ts `composerHolding`), once.
 */
const HOME = '<main><div class="composer"><div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div></div></main>';

let exec: ReturnType<typeof installExecCommand> | null = null;
const removers: (() => void)[] = [];
afterEach(() => {
  exec?.uninstall();
  exec = null;
  for (const r of removers.splice(0)) r();
  document.body.innerHTML = '';
});

function on(type: string, fn: (e: Event) => void): void {
  document.addEventListener(type, fn);
  removers.push(() => document.removeEventListener(type, fn));
}

/** A React-like page: every listener at the document, every read of the composer the live one. */
function reactLikeHome(prompt: string, redraw = true): { submitted: string[]; redraws: number } {
  loadHtml(HOME, 'https://www.perplexity.ai/');
  const state = { submitted: [] as string[], redraws: 0 };
  const live = () => document.getElementById('ask-input') as HTMLElement;
  const render = () => {
    const toolbar = document.querySelector('.toolbar') as HTMLElement;
    toolbar.innerHTML = (live().textContent ?? '').trim() ? '<button aria-label="Submit">Go</button>' : '';
  };
  const send = () => {
    const question = live().textContent ?? '';
    if (!question.trim()) return;
    state.submitted.push(question);
    live().textContent = '';
    render();
    setTimeout(() => appendTurn(question), 5);
  };
  on('input', (e) => {
    if (!(e.target as Element).closest?.('#ask-input')) return;
    setTimeout(render, 2);
    // The composer box re-mounts a moment after the prompt arrived (its state, the text, kept).
    if (redraw && state.redraws === 0 && live().textContent === prompt) {
      state.redraws++;
      setTimeout(() => {
        const box = document.querySelector('.composer') as HTMLElement;
        box.replaceWith(box.cloneNode(true));
      }, 15);
    }
  });
  on('click', (e) => {
    if ((e.target as Element).closest?.('[aria-label="Submit"]')) send();
  });
  on('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter' && (e.target as Element).closest?.('#ask-input')) send();
  });
  return state;
}

describe('the composer re-mounted between typing and submitting', () => {
  it('control: the same page without the re-mount takes the prompt', async () => {
    const prompt = 'What is the capital of France?';
    const page = reactLikeHome(prompt, false);
    exec = installExecCommand();
    const handle = await pageWithAskKit(window)['page.ask']!({ prompt, confirmMs: 150 } as never, { signal: new AbortController().signal, progress: () => {} });
    expect(handle).toMatchObject({ turnIndex: 0 });
    expect(page.submitted).toEqual([prompt]);
  });

  it('the prompt is submitted through the composer the page shows now, and the ask resolves with its turn', async () => {
    const prompt = 'What is the capital of France?';
    const page = reactLikeHome(prompt);
    exec = installExecCommand();
    const handlers = pageWithAskKit(window);
    const outcome = await handlers['page.ask']!({ prompt, confirmMs: 150 } as never, { signal: new AbortController().signal, progress: () => {} }).then(
      (handle) => ({ handle }),
      (error: { code?: string; message?: string }) => ({ error: `[${error.code}] ${error.message}` }),
    );
    expect(page.redraws).toBe(1);
    expect(outcome).toEqual({ handle: expect.objectContaining({ turnIndex: 0 }) });
    expect(page.submitted).toEqual([prompt]);
  });
});
