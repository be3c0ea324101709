// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { typePrompt } from '../../lib/page/composer/composer';
import { PageWatcher } from '../../lib/page/answer/observer';
import { ask as askOn } from '../../lib/page/composer/actions';
import { chooseSelectorSet } from '../../lib/selectors';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadHtml } from '../fixtures/reader/load';
import { pageWithAskKit } from '../support/ask-page';

/**
 * A composer like the Lexical build two maintained projects report (lib/selectors/README.md, "The
 * composer"): its state changes only through its own handlers (a paste carrying a DataTransfer,
 * `beforeinput`), and it renders the DOM from that state a microtask later. execCommand changes
 * the DOM text only: the text shows, the state stays empty, Submit never appears, Enter sends
 * nothing. Like Lexical 0.52, it reads the DOM selection on `beforeinput` but a paste goes where it
 * last saw the caret (after a person's draft: the end of it). The real library, in real Chromium:
 * tests/e2e/composer-lexical.spec.ts.
 */
interface Lexical {
  el: HTMLElement;
  /** What the editor's state holds (what Enter or Submit sends). */
  state(): string;
  submitted: string[];
  events: string[];
}

/** `turnAfterMs`: when the page shows the sent prompt's turn (null: not within the test). */
function lexicalPage(held = '', turnAfterMs: number | null = 3): Lexical {
  loadHtml(
    '<main><div data-ask-input-container="true"><div id="ask-input" contenteditable="true" role="textbox" data-lexical-editor="true"></div><div class="toolbar"></div></div></main>',
    'https://www.perplexity.ai/',
  );
  const el = document.getElementById('ask-input') as HTMLElement;
  const toolbar = document.querySelector('.toolbar') as HTMLElement;
  const submitted: string[] = [];
  const events: string[] = [];
  let state = held;
  /** The selection as the editor last took it, in state offsets: the caret after the person's draft. */
  let selection: [number, number] = [held.length, held.length];
  const send = () => {
    if (!state.trim()) return;
    const q = state;
    submitted.push(q);
    set('');
    if (turnAfterMs !== null) setTimeout(() => appendTurn(q), turnAfterMs);
  };
  const render = () => {
    el.innerHTML = state ? state.split('\n').map((line) => `<p>${line}</p>`).join('') : '<p><br></p>';
    // No Submit until the state holds text (Aug 2026 capture).
    toolbar.innerHTML = state.trim() ? '<button aria-label="Submit">Go</button>' : '';
    toolbar.querySelector('button')?.addEventListener('click', send);
  };
  const set = (next: string, caret = next.length) => {
    state = next;
    selection = [caret, caret];
    queueMicrotask(render);
  };
  /** The DOM selection, read as the editor reads it on beforeinput (everything, or the caret at the end). */
  const takeDomSelection = () => {
    const selected = window.getSelection()?.toString() ?? '';
    selection = selected !== '' && selected === el.textContent ? [0, state.length] : [state.length, state.length];
  };
  /** Replaces the selection the editor holds with `text`. */
  const replace = (text: string) => {
    const [a, b] = selection;
    set(state.slice(0, a) + text + state.slice(b), a + text.length);
  };
  el.addEventListener('paste', (e) => {
    events.push('paste');
    e.preventDefault();
    replace((e as ClipboardEvent).clipboardData?.getData('text/plain') ?? '');
  });
  el.addEventListener('beforeinput', (e) => {
    const { inputType, data } = e as InputEvent;
    events.push(inputType);
    e.preventDefault();
    takeDomSelection();
    if (inputType === 'insertText') replace(data ?? '');
    else if (inputType === 'insertLineBreak') replace('\n');
    else if (inputType === 'deleteContentBackward') {
      if (selection[0] === selection[1]) selection[0] = Math.max(0, selection[0] - 1);
      replace('');
    }
  });
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') send();
  });
  render();
  return { el, state: () => state, submitted, events };
}

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
});

function context() {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  return { win: window, doc: document, set, waitFor: watcher.waitFor };
}

function ask(prompt: string, signal = new AbortController().signal) {
  return pageWithAskKit(window)['page.ask']!({ prompt } as never, { signal, progress: () => {} });
}

describe('typing into a Lexical composer that ignores execCommand', () => {
  it('the fake is faithful: execCommand shows the text but leaves the state empty', async () => {
    const page = lexicalPage();
    exec = installExecCommand();
    page.el.focus();
    document.execCommand('insertText', false, 'shown, not taken');
    expect(page.el.textContent).toBe('shown, not taken');
    expect(page.state()).toBe('');
    expect(document.querySelector('[aria-label="Submit"]')).toBeNull();
  });

  it('the fake is faithful: a paste right after a select-all lands where the editor last saw the caret', async () => {
    const page = lexicalPage('an old draft');
    page.el.focus();
    window.getSelection()?.selectAllChildren(page.el);
    const clipboardData = new DataTransfer();
    clipboardData.setData('text/plain', ' and more');
    page.el.dispatchEvent(new ClipboardEvent('paste', { bubbles: true, cancelable: true, clipboardData }));
    expect(page.state()).toBe('an old draft and more');
  });

  it('over a draft: the old text goes through a beforeinput delete, the new one through a paste, never through execCommand', async () => {
    const page = lexicalPage('an old draft');
    exec = installExecCommand();
    await typePrompt(context(), 'What is new in Rust?');
    expect(page.state()).toBe('What is new in Rust?');
    expect(page.events).toEqual(['deleteContentBackward', 'paste']);
    expect(exec.calls).toEqual([]);
  });

  it("a multi-line prompt keeps its lines: pasted line by line, with the editor's own line break between", async () => {
    const page = lexicalPage();
    exec = installExecCommand();
    await typePrompt(context(), 'first line\nsecond line');
    expect(page.state()).toBe('first line\nsecond line');
    expect(page.events).toEqual(['paste', 'insertLineBreak', 'paste']);
  });

  it('an empty prompt clears the state through beforeinput', async () => {
    const page = lexicalPage('a draft');
    exec = installExecCommand();
    await typePrompt(context(), '');
    expect(page.state()).toBe('');
  });

  it('an editor that takes no paste gets beforeinput insertText', async () => {
    const page = lexicalPage();
    exec = installExecCommand();
    // A build without the paste handler: the synthetic paste goes unhandled and changes nothing.
    page.el.addEventListener('paste', (e) => e.stopImmediatePropagation(), { capture: true });
    await typePrompt(context(), 'via beforeinput');
    expect(page.state()).toBe('via beforeinput');
    expect(page.events).toEqual(['insertText']);
  });

  it('comet_ask over a draft (review #19): the page sends exactly the prompt, and the draft is back once it is sent', async () => {
    const page = lexicalPage('my half-written draft');
    exec = installExecCommand();
    await ask('Explain MCP');
    expect(page.submitted).toEqual(['Explain MCP']);
    expect(page.state()).toBe('my half-written draft');
  });

  it('comet_ask over a draft with execCommand throwing: the same, and execCommand is never called', async () => {
    const page = lexicalPage('my half-written draft');
    const calls: string[] = [];
    const doc = document as unknown as { execCommand?: unknown };
    doc.execCommand = (command: string) => {
      calls.push(command);
      throw new Error('execCommand is not available here');
    };
    exec = { calls, uninstall: () => void delete doc.execCommand };
    await ask('Explain MCP\nin two lines');
    expect(page.submitted).toEqual(['Explain MCP\nin two lines']);
    expect(page.state()).toBe('my half-written draft');
    expect(calls).toEqual([]);
  });

  it('comet_ask on it: the page sends the prompt', async () => {
    const page = lexicalPage();
    exec = installExecCommand();
    const handle = (await ask('Explain MCP')) as { via: string; turnIndex: number };
    expect(page.submitted).toEqual(['Explain MCP']);
    expect(handle).toMatchObject({ via: 'button', turnIndex: 0 });
  });

  it('a cancel while typing: nothing more is typed, nothing is sent, and the composer gets back what it held', async () => {
    const page = lexicalPage('my draft');
    exec = installExecCommand();
    const controller = new AbortController();
    page.el.addEventListener('paste', () => controller.abort());
    await expect(ask('first line\nsecond line', controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((r) => setTimeout(r, 20));
    expect(page.submitted).toEqual([]);
    expect(page.state()).toBe('my draft');
    // The draft was deleted and the first line went in before the cancel; its line break and the second line never did.
    expect(page.events.slice(0, 2)).toEqual(['deleteContentBackward', 'paste']);
    expect(page.events).not.toContain('insertLineBreak');
  });

  it('#18 (review 2026-12-04): the page took the prompt but shows no turn in time: TIMEOUT, never "not taken", and the draft is back', async () => {
    const page = lexicalPage('my half-written draft', null);
    const ctx = context();
    const watcher = new PageWatcher(window, () => ctx.set);
    await expect(askOn(ctx, watcher, { prompt: 'Explain MCP' }, { confirmMs: 40 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(page.submitted).toEqual(['Explain MCP']);
    expect(page.state()).toBe('my half-written draft');
  });

  it('#18 (review 2026-12-04): a composer the page mounts again later than 2 s still gets the draft back, within the confirmation\'s time', async () => {
    const page = lexicalPage('my half-written draft');
    const ctx = context();
    const watcher = new PageWatcher(window, () => ctx.set);
    // The page swaps its composer out as it sends, and mounts it again 2.2 s later (a slow new-thread load).
    const parent = page.el.parentElement as HTMLElement;
    const progress: string[] = [];
    const sent = askOn(ctx, watcher, { prompt: 'Explain MCP' }, { confirmMs: 3000, onProgress: (m) => progress.push(m) });
    await new Promise((r) => setTimeout(r, 30));
    page.el.remove();
    setTimeout(() => parent.prepend(page.el), 2200);
    await sent;
    expect(progress).toEqual([]);
    expect(page.state()).toBe('my half-written draft');
  });
});
