// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { loadHtml } from '../fixtures/reader/load';

/**
 * The selector set is chosen from the page, and a page that cannot yet tell two sets apart (the
 * live home page scores gen-b-2026-10 and gen-b-2026-10-live alike) must not lock the first: the
 * thread the home page moves to by SPA navigation is read with the set that thread shows.
 */
const composer = (buttons: string) => `
  <div data-ask-input-container="true"><div id="ask-input" contenteditable="true" data-lexical-editor="true"></div>
  <span data-testid="ask-input-mode-toggle-width-wrapper"><button data-state="closed" aria-pressed="true">Search</button></span>${buttons}</div>`;
const home = `<main>${composer('')}</main>`;
const streaming = `<main><div class="max-w-threadContentWidth"><div class="flex flex-col">
  <div data-workflow-entry="0"><div class="group/user-bubble"><span class="whitespace-pre-line">why?</span></div></div>
  <div class="group/final-text" data-workflow-final-text=""><div class="prose" data-renderer="lm"><p>Because</p></div></div>
  </div></div>${composer('<button aria-label="Stop response"><svg><use xlink:href="#pplx-icon-player-stop-filled"></use></svg></button>')}</main>`;

afterEach(() => {
  document.body.innerHTML = '';
  history.replaceState(null, '', '/');
});

describe('choosing the selector set', () => {
  it('a tie on the home page goes to the live set (the newest facts), and the first thread reached by SPA navigation is read with its stop rule', async () => {
    history.replaceState(null, '', '/');
    loadHtml(home);
    const driver = createPageDriver(window);
    const before = driver.selectorSet();
    expect(before.name).toBe('gen-b-2026-10-live');
    const scores = before.probe.candidates.filter((c) => c.name.startsWith('gen-b')).map((c) => c.score);
    expect(new Set(scores).size).toBe(1); // the two gen-b sets tie here
    history.pushState(null, '', '/search/why-abc123');
    document.body.innerHTML = streaming;
    expect(driver.selectorSet().name).toBe('gen-b-2026-10-live');
    // The live set's stop rule sees the composer's "Stop response": the answer is still being written.
    expect(await driver.poll()).toMatchObject({ status: 'working' });
  });

  it('a confident, unique choice is kept while the page stays on its URL, and probed again when the URL changes', () => {
    history.replaceState(null, '', '/search/why-abc123');
    loadHtml(streaming);
    const driver = createPageDriver(window);
    expect(driver.selectorSet().name).toBe('gen-b-2026-10-live');
    document.body.innerHTML = home; // same URL: kept, even if the page now ties
    expect(driver.selectorSet().name).toBe('gen-b-2026-10-live');
    history.pushState(null, '', '/');
    // Probed again on the new URL: the home page ties, and a tie goes to the live set.
    expect(new URL(driver.selectorSet().probe.url).pathname).toBe('/');
  });
});
