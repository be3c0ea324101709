// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { ask } from '../../lib/page/composer/actions';
import { questionKey } from '../../lib/page/answer/question';
import { askThrough } from '../../lib/page/kits/ask-kit';
import { stop } from '../../lib/page/answer/stop';
import { typePrompt } from '../../lib/page/composer/composer';
import type { PageContext } from '../../lib/page/dom/context';
import { createPageDriver } from '../../lib/page/driver';
import { PageWatcher } from '../../lib/page/answer/observer';
import { RelayError } from '../../lib/protocol/errors';
import { chooseSelectorSet, SELECTOR_SETS } from '../../lib/selectors';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { appendTurn, installExecCommand } from '../fixtures/reader/fake-page';
import { loadFixture, loadHtml } from '../fixtures/reader/load';

function context(): { ctx: PageContext; watcher: PageWatcher } {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  return { ctx: { win: window, doc: document, set, waitFor: watcher.waitFor }, watcher };
}

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
});

/** What the page shows after taking a question: a thread with a turn that shows it, after a round trip. */
function showTurn(question: string): void {
  setTimeout(() => appendTurn(question), 3);
}

/** A home page whose Submit appears a render after text arrives, and whose answer comes after a round trip. */
function wireHome(): { submits: string[] } {
  const submits: string[] = [];
  const composer = document.getElementById('ask-input') as HTMLElement;
  const toolbar = document.querySelector('.toolbar') as HTMLElement;
  composer.addEventListener('input', () => {
    setTimeout(() => {
      const has = (composer.textContent ?? '').trim() !== '';
      const btn = toolbar.querySelector('button[aria-label="Submit"]');
      if (has && !btn) toolbar.innerHTML = '<button aria-label="Submit">Go</button>';
      if (!has) btn?.remove();
      toolbar.querySelector('button')?.addEventListener('click', () => {
        submits.push(composer.textContent ?? '');
        showTurn(composer.textContent ?? '');
        composer.textContent = '';
        toolbar.innerHTML = '';
      });
    }, 2);
  });
  return { submits };
}

describe('typing', () => {
  it('select-all goes through the Selection API, never a Meta+A / Ctrl+A key event nor execCommand', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const keys: KeyboardEvent[] = [];
    document.addEventListener('keydown', (e) => keys.push(e), true);
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'old draft';
    const { ctx } = context();
    await typePrompt(ctx, 'What is new in Rust?');
    expect(composer.textContent).toBe('What is new in Rust?');
    // A plain contenteditable takes neither the paste nor beforeinput: the editing commands are the way
    // in, the old text deleted first, the new typed into the emptied editor.
    expect(exec.calls).toEqual(['delete:', 'insertText:What is new in Rust?']);
    expect(keys).toHaveLength(0);
  });

  it('without execCommand, text still lands through beforeinput/input', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    const seen: string[] = [];
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.addEventListener('beforeinput', (e) => seen.push((e as InputEvent).inputType));
    await typePrompt(context().ctx, 'hello');
    expect(composer.textContent).toBe('hello');
    expect(seen).toEqual(['insertText']);
  });

  it('the old <textarea> composer gets its value through the native setter and an input event', async () => {
    loadHtml('<textarea placeholder="Ask anything..."></textarea>', 'https://www.perplexity.ai/');
    const ta = document.querySelector('textarea') as HTMLTextAreaElement;
    const inputs: string[] = [];
    ta.addEventListener('input', () => inputs.push(ta.value));
    await typePrompt(context().ctx, 'old style');
    expect(ta.value).toBe('old style');
    expect(inputs).toEqual(['old style']);
  });

  it('an editor that rejects the text is reported, not ignored', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.addEventListener('beforeinput', (e) => e.preventDefault());
    await expect(typePrompt(context().ctx, 'nope')).rejects.toThrow(/did not accept the text/);
  });

  it('no composer: SELECTOR_MISS names the probe, every selector it tried, the page and the set', async () => {
    loadFixture('library.html', 'https://www.perplexity.ai/library');
    // The sets with every language's words, as a page holds them once the worker's first event came.
    const err = await askThrough(createPageDriver(window, new SelectorCatalog(SELECTOR_SETS)), { prompt: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).code).toBe('SELECTOR_MISS');
    expect((err as RelayError).message).toMatch(
      /^composer: none of `#ask-input`, `\[data-ask-input-container\] \[data-lexical-editor="true"\]`, `textarea\[placeholder\*="Ask"\], textarea\[placeholder\*="Search"\], .*` matched on https:\/\/www\.perplexity\.ai\/library — open a Perplexity home or thread page \(selector set gen-[ab]-\d{4}-\d{2}(-live)?, built-in\)$/,
    );
  });
});

describe('ask', () => {
  it('types, waits for Submit to render, clicks it, and records the turn count before submitting', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const { submits } = wireHome();
    const driver = createPageDriver(window);
    const handle = await askThrough(driver, { prompt: 'Explain MCP' });
    expect(submits).toEqual(['Explain MCP']);
    expect(handle).toMatchObject({ afterTurn: 0, baselineUrl: 'https://www.perplexity.ai/', via: 'button', turnIndex: 0, questionKey: 'Explain MCP' });
    // The asked turn is followed (its steps must be seen before the page folds them) until it ends.
    expect(driver.watcher.active).toBe(true);
    document
      .querySelector('[data-workflow-entry="0"]')
      ?.insertAdjacentHTML('beforeend', '<div data-workflow-final-text><div class="prose" data-renderer="lm">MCP is a protocol.</div></div>');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(driver.watcher.active).toBe(false);
  });

  it('presses Enter when there is no Submit button', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const composer = document.getElementById('ask-input') as HTMLElement;
    const enters: KeyboardEvent[] = [];
    composer.addEventListener('keydown', (e) => {
      enters.push(e);
      if (e.key !== 'Enter') return;
      showTurn(composer.textContent ?? '');
      composer.textContent = '';
    });
    const handle = await askThrough(createPageDriver(window), { prompt: 'via enter' });
    expect(handle.via).toBe('enter');
    expect(enters.map((e) => [e.key, e.metaKey, e.ctrlKey])).toEqual([['Enter', false, false]]);
  });

  it('the page\'s own ask stream for the question confirms the page took it, whatever its turn\'s hooks (issue 30)', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const composer = document.getElementById('ask-input') as HTMLElement;
    const toolbar = document.querySelector('.toolbar') as HTMLElement;
    let streamed = '';
    composer.addEventListener('input', () => {
      if (toolbar.querySelector('button')) return;
      toolbar.innerHTML = '<button aria-label="Submit">Go</button>';
      toolbar.querySelector('button')?.addEventListener('click', () => {
        // A redesign: the new turn carries hooks no set knows; the page's stream for it opens.
        streamed = composer.textContent ?? '';
        setTimeout(() => document.body.insertAdjacentHTML('beforeend', `<section class="turn-2027"><p>${streamed}</p></section>`), 3);
        composer.textContent = '';
        toolbar.innerHTML = '';
      });
    });
    const { ctx, watcher } = context();
    const since = Date.now();
    const seen: [string, number][] = [];
    const handle = await ask(ctx, watcher, { prompt: 'What is new?' }, {
      confirmMs: 2000,
      streamTook: (key, at) => {
        seen.push([key, at]);
        return questionKey(streamed) === key;
      },
    });
    expect(handle).toMatchObject({ turnIndex: 0, questionKey: questionKey('What is new?') });
    expect(seen.at(-1)?.[1]).toBeGreaterThanOrEqual(since);
  });

  it('a page that does not take the prompt is an error, not a silent success', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const { ctx, watcher } = context();
    await expect(ask(ctx, watcher, { prompt: 'ignored' }, { confirmMs: 50 })).rejects.toMatchObject({ code: 'AGENT_ERROR' });
  });
});

describe('stop', () => {
  it('waits for a stop button that appears late (agent just started), clicks it, and confirms it went away', async () => {
    loadFixture('A-thread.html');
    setTimeout(() => {
      const btn = document.createElement('button');
      btn.setAttribute('aria-label', 'Stop');
      btn.addEventListener('click', () => setTimeout(() => btn.remove(), 3));
      document.querySelector('form')?.append(btn);
    }, 20);
    const r = await createPageDriver(window).stop();
    expect(r).toEqual({ stopped: true, confirmed: true, message: 'Agent stopped.' });
  });

  it('says so when there is no stop button', async () => {
    loadFixture('A-thread.html');
    const { ctx, watcher } = context();
    const r = await stop(ctx, watcher, 30);
    expect(r).toEqual({ stopped: false, confirmed: false, message: 'No stop button found.' });
    expect(watcher.active).toBe(false);
  });
});
