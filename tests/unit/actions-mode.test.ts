// @vitest-environment happy-dom
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { modeControl } from '../../lib/page/kits/mode-kit';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { generationA } from '../../lib/selectors/generation-a';
import { installExecCommand, wireChip, wireTypeahead } from '../fixtures/reader/fake-page';
import { loadFixture, loadHtml } from '../fixtures/reader/load';

let exec: ReturnType<typeof installExecCommand> | null = null;
afterEach(() => {
  exec?.uninstall();
  exec = null;
});

describe('mode on generation B (chip)', () => {
  it('reads the chip text without opening anything', async () => {
    loadFixture('B-thread-streaming.html');
    const fake = wireChip('deep-research');
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toEqual({ mode: 'deep-research', source: 'chip' });
    expect(fake.chipEvents).toHaveLength(0);
  });

  it('setMode opens the Radix chip with the full pointer sequence', async () => {
    loadFixture('B-thread-streaming.html');
    const fake = wireChip('standard');
    const r = await modeControl(createPageDriver(window)).setMode('learn');
    expect(r).toEqual({ mode: 'learn', source: 'switched', previous: 'standard', changed: true, verified: true });
    expect(fake.mode()).toBe('learn');
    expect(fake.chipEvents.map((e) => e.type)).toEqual(['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']);
    const down = fake.chipEvents[0] as PointerEvent;
    expect(down).toBeInstanceOf(PointerEvent);
    expect([down.bubbles, down.button, down.pointerId, down.pointerType]).toEqual([true, 0, 1, 'mouse']);
    expect(fake.chipEvents[1]).toBeInstanceOf(MouseEvent);
    expect(document.getElementById('mode-menu')).toBeNull();
  });

  it('create is reported as create, not computer', async () => {
    loadFixture('B-thread-streaming.html');
    wireChip('standard');
    const driver = modeControl(createPageDriver(window));
    expect(await driver.setMode('create')).toMatchObject({ mode: 'create', verified: true });
    expect(await driver.getMode()).toEqual({ mode: 'create', source: 'chip' });
  });

  it('computer is the separate toggle, and leaving it goes back to the chip mode', async () => {
    loadFixture('B-thread-streaming.html');
    const fake = wireChip('deep-research');
    const driver = modeControl(createPageDriver(window));
    expect(await driver.setMode('computer')).toMatchObject({ mode: 'computer', previous: 'deep-research', verified: true });
    expect(fake.computer()).toBe(true);
    expect(await driver.getMode()).toEqual({ mode: 'computer', source: 'toggle' });
    expect(await driver.setMode('review')).toMatchObject({ mode: 'review', previous: 'computer', verified: true });
    expect(fake.computer()).toBe(false);
  });

  it('a chip label in another language is read from the menu\'s checked item icon, and the menu is closed again', async () => {
    loadFixture('B-thread-streaming.html');
    wireChip('model-council', { standard: 'Recherche', 'deep-research': 'Recherche approfondie', 'model-council': 'Conseil', create: 'Créer', learn: 'Apprendre', review: 'Réviser' });
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toEqual({ mode: 'model-council', source: 'menu' });
    expect(document.getElementById('mode-menu')).toBeNull();
  });

  it('a look-only read does not open the menu for a chip in another language: it says reading would act', async () => {
    loadFixture('B-thread-streaming.html');
    const fake = wireChip('model-council', { standard: 'Recherche', 'deep-research': 'Recherche approfondie', 'model-council': 'Conseil', create: 'Créer', learn: 'Apprendre', review: 'Réviser' });
    expect(await modeControl(createPageDriver(window)).getMode(true)).toMatchObject({ mode: null, source: 'unavailable', acts: true });
    expect(fake.chipEvents).toHaveLength(0);
    expect(await modeControl(createPageDriver(window)).getMode(true)).toMatchObject({ acts: true });
  });

  it('all seven modes can be set and read back', async () => {
    loadFixture('B-thread-streaming.html');
    wireChip('standard');
    const driver = modeControl(createPageDriver(window));
    for (const mode of ['deep-research', 'model-council', 'create', 'learn', 'review', 'computer', 'standard'] as const) {
      expect(await driver.setMode(mode), mode).toMatchObject({ mode, verified: true });
    }
  });
});

describe('mode on generation A (slash typeahead)', () => {
  /** The removable pill generation A shows next to the composer while a mode is chosen. */
  const pill = (label: string, icon: string) =>
    `<button type="button" class="mode-pill" aria-label="Remove mode: ${label}"><svg><use href="${icon}"></use></svg><span>${label}</span></button>`;

  it('reads the mode from the pill without typing anything, whatever the composer holds', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    document.querySelector('.toolbar')?.insertAdjacentHTML('afterbegin', pill('Learn step by step', '#pplx-icon-book'));
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'what the person is typi';
    const edits: string[] = [];
    composer.addEventListener('input', () => edits.push(composer.textContent ?? ''));
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'learn', source: 'pill' });
    expect(edits).toEqual([]);
    expect(exec.calls).toEqual([]);
    expect(composer.textContent).toBe('what the person is typi');
  });

  it('no pill is not taken for plain search: the slash menu is asked, and the composer is left empty', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('standard');
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'standard', source: 'typeahead' });
    expect((document.getElementById('ask-input') as HTMLElement).textContent).toBe('');
    expect(document.querySelector('[aria-label="Typeahead menu"]')).toBeNull();
  });

  it('a look-only read never types "/": it says reading would act; a pill is still read', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('standard');
    const driver = modeControl(createPageDriver(window));
    expect(await driver.getMode(true)).toMatchObject({ mode: null, source: 'unavailable', acts: true });
    expect(exec.calls).toEqual([]);
    // Text in the composer (another session's prompt being typed, perhaps): still the turn's to read, not "could not see".
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'a prompt on its way';
    expect(await driver.getMode(true)).toMatchObject({ mode: null, acts: true });
    expect(composer.textContent).toBe('a prompt on its way');
    composer.textContent = '';
    document.querySelector('.toolbar')?.insertAdjacentHTML('afterbegin', pill('Learn step by step', '#pplx-icon-book'));
    expect(await driver.getMode(true)).toEqual({ mode: 'learn', source: 'pill' });
  });

  it('no pill and no slash menu: it says it could not see the mode, never "standard"', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toMatchObject({ mode: null, source: 'unavailable' });
    expect(r.detail).toMatch(/^typeahead: none of .* after typing "\/" three times/);
  });

  it('a pill it cannot name is read through the typeahead only in an empty composer, never over the person\'s text', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('review');
    // German: a language no built-in set has words for.
    document.querySelector('.toolbar')?.insertAdjacentHTML('afterbegin', pill('Dokumente prüfen', '#pplx-icon-unknown'));
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'brouillon';
    const refused = await modeControl(createPageDriver(window)).getMode();
    expect(refused).toMatchObject({ mode: null, source: 'unavailable' });
    expect(refused.detail).toMatch(/holds text/);
    expect(exec.calls).toEqual([]);
    expect(composer.textContent).toBe('brouillon');
    composer.textContent = '';
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'review', source: 'typeahead' });
    expect(composer.textContent).toBe('');
  });

  it('what the person types while the slash menu is awaited is theirs: nothing more is typed, and it is not erased (review #23)', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const composer = document.getElementById('ask-input') as HTMLElement;
    // No slash menu opens on this page; the person starts typing just after the "/" went in.
    const typing = () => {
      if ((composer.textContent ?? '') !== '/') return;
      composer.removeEventListener('input', typing);
      setTimeout(() => {
        composer.textContent = '/hello, what I was typing';
      }, 20);
    };
    composer.addEventListener('input', typing);
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toMatchObject({ mode: null, source: 'unavailable' });
    expect(r.detail).toMatch(/changed while its slash menu was being opened \(the person is typing\): nothing more was typed/);
    expect(composer.textContent).toBe('/hello, what I was typing');
  });

  it('reads the mode without navigating; create is create; the draft is untouched', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('create');
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'my draft';
    const before = location.href;
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toEqual({ mode: 'create', source: 'pill' });
    expect(location.href).toBe(before);
    expect(composer.textContent).toBe('my draft');
    expect(document.querySelector('[aria-label="Typeahead menu"]')).toBeNull();
  });

  it('no active row among the modes the slash menu lists is standard', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('standard');
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'standard', source: 'typeahead' });
  });

  it('on a chip set whose chip is not found, an unmarked slash menu is no sign of plain search (page review #4)', async () => {
    // The live page had a chip and a slash menu (Aug 2026); the chip renamed, reading falls back to the menu.
    const chipSet = new SelectorCatalog([{ ...generationA, modeUi: 'chip' }]);
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const fake = wireTypeahead('deep-research');
    // The site restyles the active row's mark (and its pill): nothing this version knows is marked.
    const restyle = () => {
      for (const el of Array.from(document.querySelectorAll('.mode-pill'))) el.remove();
      for (const el of Array.from(document.querySelectorAll('.bg-subtle'))) el.className = 'bg-subtle-active';
    };
    restyle();
    const restyling = new MutationObserver(restyle);
    restyling.observe(document.body, { childList: true, subtree: true });
    onTestFinished(() => restyling.disconnect());
    const driver = modeControl(createPageDriver(window, chipSet));
    const read = await driver.getMode();
    expect(read).toMatchObject({ mode: null, source: 'unavailable' });
    expect(read.detail).toMatch(/^modeChip: none of .* — nor a typeaheadActive row: no sign of plain search$/);
    // Never a "verified" no-op that leaves the page in Deep research.
    await expect(driver.setMode('standard')).rejects.toThrow(/typeaheadItem/);
    expect(fake.mode()).toBe('deep-research');
    expect((document.getElementById('ask-input') as HTMLElement).textContent).toBe('');
  });

  it('on a chip set, a marked row of the slash menu is still read', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('learn');
    document.querySelector('.mode-pill')?.remove();
    const driver = modeControl(createPageDriver(window, new SelectorCatalog([{ ...generationA, modeUi: 'chip' }])));
    expect(await driver.getMode()).toEqual({ mode: 'learn', source: 'typeahead' });
  });

  it('sets every mode through the typeahead, icons matched exactly', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const fake = wireTypeahead('standard');
    const driver = modeControl(createPageDriver(window));
    for (const mode of ['deep-research', 'model-council', 'create', 'learn', 'review', 'computer', 'standard'] as const) {
      expect(await driver.setMode(mode), mode).toMatchObject({ mode, verified: true });
      expect(fake.mode()).toBe(mode);
    }
    expect((document.getElementById('ask-input') as HTMLElement).textContent).toBe('');
  });

  it('on a page without a composer it says it cannot read the mode, instead of navigating', async () => {
    loadFixture('library.html', 'https://www.perplexity.ai/library');
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r.mode).toBeNull();
    expect(r.source).toBe('unavailable');
    expect(r.detail).toMatch(/open the Perplexity home page/);
    expect(location.href).toBe('https://www.perplexity.ai/library');
  });

  it('a computer task URL means computer, on either generation', async () => {
    loadFixture('A-thread.html', 'https://www.perplexity.ai/computer/tasks/abc');
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'computer', source: 'url' });
    loadFixture('A-thread.html', 'https://www.perplexity.ai/copilot/abc');
    expect(await modeControl(createPageDriver(window)).getMode()).toEqual({ mode: 'computer', source: 'url' });
  });
});

describe('no conclusion from absence', () => {
  /** A generation-A page whose mode pill is markup this version does not know (it is there, unseen). */
  function unknownPills(): void {
    const swap = () => {
      for (const pill of Array.from(document.querySelectorAll('.mode-pill'))) {
        pill.outerHTML = `<span class="chosen-mode">${pill.textContent}</span>`;
      }
    };
    swap();
    new MutationObserver(swap).observe(document.body, { childList: true, subtree: true });
  }

  it('a pill our set does not find: the mode is read from the slash menu, and every switch is seen to take', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    const fake = wireTypeahead('standard');
    unknownPills();
    const driver = modeControl(createPageDriver(window));
    expect(await driver.getMode()).toEqual({ mode: 'standard', source: 'typeahead' });
    // Before: "standard" from the missing pill, then "already deep-research (the page did not confirm it)".
    expect(await driver.setMode('deep-research')).toEqual({ mode: 'deep-research', source: 'switched', previous: 'standard', changed: true, verified: true });
    expect(fake.mode()).toBe('deep-research');
    expect(document.querySelector('.chosen-mode')?.textContent).toBe('Deep research');
    expect(await driver.getMode()).toEqual({ mode: 'deep-research', source: 'typeahead' });
    expect(await driver.setMode('learn')).toMatchObject({ mode: 'learn', previous: 'deep-research', changed: true, verified: true });
    expect(await driver.setMode('learn')).toMatchObject({ mode: 'learn', changed: false, verified: true });
    expect((document.getElementById('ask-input') as HTMLElement).textContent).toBe('');
  });

  it('the same page with a draft in the composer: "could not see", not "standard", and the draft is untouched', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    exec = installExecCommand();
    wireTypeahead('review');
    unknownPills();
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.textContent = 'a draft';
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toMatchObject({ mode: null, source: 'unavailable' });
    expect(r.detail).toMatch(/no mode pill this version knows .* holds text/);
    expect(exec.calls).toEqual([]);
    expect(composer.textContent).toBe('a draft');
  });

  it('a mode chip that is not pressed beside a Computer toggle our set does not find: not the chip\'s mode', async () => {
    loadHtml(
      '<div data-ask-input-container="true"><div id="ask-input" contenteditable="true" role="textbox"></div>' +
        '<span data-testid="ask-input-mode-toggle-width-wrapper"><button aria-pressed="false" aria-haspopup="menu" data-state="closed"><svg><use xlink:href="#pplx-icon-search"></use></svg>Search</button></span>' +
        '<div class="some-new-toggle"><button role="switch" aria-checked="true">Computer</button></div></div>',
      'https://www.perplexity.ai/',
    );
    const r = await modeControl(createPageDriver(window)).getMode();
    expect(r).toMatchObject({ mode: null, source: 'unavailable' });
    expect(r.detail).toMatch(/^the mode trigger on \S+ names standard but is not pressed \(another mode is on\), and the Computer toggle is not seen \(computerToggle: none of /);
  });
});
