// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * The tab going to another conversation while Submit is awaited: nothing is sent there (not even the person's own
 * draft in that conversation's composer), and the ask never says "taken" of it; a Computer task whose slug changes is
 * the same conversation (its id), where the prompt goes.
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

describe('the tab goes to another conversation while Submit waits to enable', () => {
  it('nothing was sent: the ask never says "the page took the prompt; do not send it again"', async () => {
    const prompt = 'Summarise what we decided in this thread';
    const state = page('https://www.perplexity.ai/search/thread-a', {
      enableAfterMs: 300,
      once: {
        // After composerHolding looked (the composer was still ours), inside submit's wait for Submit to enable.
        ms: 150,
        run: () => {
          history.pushState({}, '', '/search/thread-b');
          document.querySelector('.max-w-threadContentWidth')?.remove();
          const box = document.querySelector('.composer') as HTMLElement;
          const fresh = box.cloneNode(false) as HTMLElement;
          fresh.innerHTML = '<div id="ask-input" contenteditable="true" role="textbox"></div><div class="toolbar"></div>';
          box.replaceWith(fresh);
          appendTurn('the question of thread B');
        },
      },
    });
    appendTurn('the question of thread A');
    exec = installExecCommand();
    const outcome = await run(prompt);
    expect(state.submitted).toEqual([]);
    // The prompt went nowhere: it must not be said taken.
    expect(JSON.stringify(outcome)).not.toMatch(/do not send it again/);
  });

  it("the other conversation's composer holds the person's own draft: submit presses it there", async () => {
    const prompt = 'Summarise what we decided in this thread';
    const state = page('https://www.perplexity.ai/search/thread-a', {
      enableAfterMs: 300,
      once: {
        ms: 150,
        run: () => {
          history.pushState({}, '', '/search/thread-b');
          document.querySelector('.max-w-threadContentWidth')?.remove();
          const box = document.querySelector('.composer') as HTMLElement;
          const fresh = box.cloneNode(false) as HTMLElement;
          // Thread B's page keeps the person's unsent draft for it, its Submit enabled.
          fresh.innerHTML = '<div id="ask-input" contenteditable="true" role="textbox">Half-written note for B, not ready</div><div class="toolbar"><button aria-label="Submit">Go</button></div>';
          box.replaceWith(fresh);
          appendTurn('the question of thread B');
        },
      },
    });
    appendTurn('the question of thread A');
    exec = installExecCommand();
    await run(prompt);
    // Nothing may be submitted in thread B: neither our prompt nor the person's draft there.
    expect(state.submitted).toEqual([]);
  });

  it('a Computer task whose slug drifts while its composer re-mounts (text kept) is the same conversation: the prompt is sent', async () => {
    const prompt = 'Continue with the second option';
    const state = page('https://www.perplexity.ai/computer/tasks/plan-a-trip-AbCdEfGhIjKlMnOpQrStUv', {
      once: {
        ms: 15,
        run: () => {
          // The page renames the task (its slug drifts, its last 22 characters stay) and re-mounts the composer, text kept.
          history.replaceState({}, '', '/computer/tasks/plan-a-trip-to-lisbon-AbCdEfGhIjKlMnOpQrStUv');
          const box = document.querySelector('.composer') as HTMLElement;
          box.replaceWith(box.cloneNode(true));
        },
      },
    });
    appendTurn('Plan a trip');
    exec = installExecCommand();
    const outcome = await run(prompt);
    expect(JSON.stringify(outcome)).not.toMatch(/left .* for another conversation/);
    expect(state.submitted.map((s) => s.question)).toEqual([prompt]);
  });
});
