// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * The composer between the typing and the submit, once more (2026-12-06): the tab gone to another conversation
 * meanwhile (the person opened one) is no place to send the prompt, and a composer re-mounted while Submit waits to
 * enable, its text lost, is no sign the page took it: the prompt is neither sent elsewhere nor said taken ("do not send
 * it again") when nothing went out.
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

describe('the composer between the typing and the submit', () => {
  it('a composer dropped because the tab went to another conversation between typing and submit: the prompt is not sent there', async () => {
    const prompt = 'Delete the draft we discussed in this thread';
    const state = page('https://www.perplexity.ai/search/thread-a', {
      once: {
        ms: 15,
        run: () => {
          // The person opens another conversation from the sidebar (an SPA route change): its page mounts its own composer.
          history.pushState({}, '', '/search/thread-b');
          document.querySelector('.max-w-threadContentWidth')?.remove();
          const box = document.querySelector('.composer') as HTMLElement;
          box.replaceWith(box.cloneNode(false));
          (document.querySelector('.composer') as HTMLElement).innerHTML = '<div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div>';
        },
      },
    });
    appendTurn('the question of thread A');
    exec = installExecCommand();
    const outcome = await run(prompt);
    // What should hold: nothing goes to thread B (a conversation this ask was not made in); the ask says nothing was sent.
    expect(state.submitted).toEqual([]);
    expect(outcome).toHaveProperty('error');
  });

  it('a composer re-mounted (its text lost) while Submit waits to enable: never "the page took the prompt" of a prompt never sent', async () => {
    const prompt = 'What is the capital of France?';
    const state = page('https://www.perplexity.ai/', {
      enableAfterMs: 300,
      once: {
        ms: 150,
        run: () => {
          const box = document.querySelector('.composer') as HTMLElement;
          const fresh = box.cloneNode(true) as HTMLElement;
          (fresh.querySelector('#ask-input') as HTMLElement).textContent = '';
          (fresh.querySelector('.toolbar') as HTMLElement).innerHTML = '';
          box.replaceWith(fresh);
        },
      },
    });
    exec = installExecCommand();
    const outcome = await run(prompt);
    expect(state.submitted).toEqual([]);
    expect(JSON.stringify(outcome)).not.toMatch(/do not send it again/);
  });
});
