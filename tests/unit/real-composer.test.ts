// @vitest-environment happy-dom
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composerOf, submitButton } from '../../lib/page/composer/composer';
import { first, iconsIn } from '../../lib/page/dom/dom';
import { PageWatcher } from '../../lib/page/answer/observer';
import { getMode, modeControls } from '../../lib/page/composer/mode';
import { visibleMode } from '../../lib/page/kits/watch';
import { chooseSelectorSet, SELECTOR_SETS } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';
import { CAPTURE_MODES } from '../support/real-capture-modes';

/**
 * The composer of pages captured from the live perplexity.ai by people outside this project, read
 * by our own code: the mode, the Computer toggle and the model button. The captures are third-party
 * data, never copied here: they are read from the folder COMET_REAL_PERPLEXITY names (`.ci/run`
 * sets it when the folder exists).
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const missing = !folder || !existsSync(join(folder, 'composer-zero-state-WebMCP-2026-08.html'));
if (missing) {
  console.warn(
    `real-composer: skipped, COMET_REAL_PERPLEXITY ${folder ? `(${folder}) holds no composer-zero-state-WebMCP-2026-08.html` : 'is not set'}; point it at the folder of real perplexity.ai captures to run these tests`,
  );
}

function load(file: string, url = 'https://www.perplexity.ai/') {
  loadHtml(readFileSync(join(folder, file), 'utf8'), url);
  // Every language, as a page has them once the worker handed it the data packs (words.ts).
  const { set, probe } = chooseSelectorSet(document, null, SELECTOR_SETS);
  const watcher = new PageWatcher(window, () => set);
  return { ctx: { win: window, doc: document, set, waitFor: watcher.waitFor }, probe };
}

describe.skipIf(missing)('the composer on real captures (COMET_REAL_PERPLEXITY)', () => {
  describe('home composer, Aug 2026 (composer-zero-state-WebMCP-2026-08.html)', () => {
    const file = 'composer-zero-state-WebMCP-2026-08.html';

    it('finds the Lexical editor, and no Submit while it is empty', () => {
      const { ctx } = load(file);
      const composer = composerOf(ctx);
      expect(composer.id).toBe('ask-input');
      expect(composer.getAttribute('data-lexical-editor')).toBe('true');
      expect(submitButton(ctx, composer)).toBeNull();
    });

    it('reads the mode as standard from the mode chip, without opening anything', async () => {
      const { ctx } = load(file);
      expect(visibleMode(document, ctx.set)).toBe('standard');
      expect(await getMode(ctx)).toEqual({ mode: 'standard', source: 'chip' });
      expect(document.querySelector('[role="menu"]')).toBeNull();
    });

    it('finds the Computer toggle by where it sits (no label, no test id), off; its icon is not read as "create"', async () => {
      const { ctx } = load(file);
      const toggle = first(document, ctx.set.computerToggle) as HTMLElement;
      expect(toggle?.textContent?.trim()).toBe('Computer');
      expect(toggle.getAttribute('aria-pressed')).toBe('false');
      expect(iconsIn(toggle, ctx.set)).toEqual(['#pplx-icon-custom-computer']);
      // What the page shows once Computer is on: the toggle pressed, the mode chip not.
      toggle.setAttribute('aria-pressed', 'true');
      first(document, ctx.set.modeChip)?.setAttribute('aria-pressed', 'false');
      expect(visibleMode(document, ctx.set)).toBe('computer');
      expect(await getMode(ctx)).toEqual({ mode: 'computer', source: 'toggle' });
    });

    it('a button where the toggle sits that is neither named Computer nor shows its icon is not taken for it: "could not see", never the chip\'s mode', async () => {
      const { ctx } = load(file);
      const toggle = first(document, ctx.set.computerToggle) as HTMLElement;
      // Markup a later build might serve: another control in the toggle's place.
      for (const use of toggle.querySelectorAll('use')) use.setAttribute('xlink:href', '#pplx-icon-sparkles');
      (toggle.querySelector('span.whitespace-nowrap') as HTMLElement).textContent = 'Agent';
      toggle.setAttribute('aria-pressed', 'true');
      first(document, ctx.set.modeChip)?.setAttribute('aria-pressed', 'false');
      expect(visibleMode(document, ctx.set)).toBeNull();
      expect(await getMode(ctx)).toMatchObject({ mode: null, source: 'unavailable' });
    });

    it('finds the model button ("Model"), not "Add files or tools"', () => {
      const { ctx } = load(file);
      const model = first(document, ctx.set.modelPicker);
      expect(model?.getAttribute('aria-label')).toBe('Model');
      expect(model?.textContent?.trim()).toBe('Model');
    });
  });

  describe('thread composer, Aug 2026 (search-thread-page-WebMCP-2026-08.html)', () => {
    it('mode chip Search, Computer toggle off, model button "Model"', async () => {
      const { ctx } = load('search-thread-page-WebMCP-2026-08.html', 'https://www.perplexity.ai/search/x');
      const composer = composerOf(ctx);
      expect(composer.id).toBe('ask-input');
      // A thread's composer shows Submit while empty, disabled (the home composer shows none).
      expect(submitButton(ctx, composer)?.hasAttribute('disabled')).toBe(true);
      expect(await getMode(ctx)).toEqual({ mode: 'standard', source: 'chip' });
      const toggle = first(document, ctx.set.computerToggle);
      expect([toggle?.textContent?.trim(), toggle?.getAttribute('aria-pressed')]).toEqual(['Computer', 'false']);
      expect(first(document, ctx.set.modelPicker)?.getAttribute('aria-label')).toBe('Model');
    });
  });

  describe('home-style composer, Feb 2026 (search-thread-page-obsidian-AI-exporter-2026-02-02.html)', () => {
    it('reads the mode from the radiogroup of modes (Search checked), and finds "Choose a model"', async () => {
      const { ctx } = load('search-thread-page-obsidian-AI-exporter-2026-02-02.html', 'https://www.perplexity.ai/search/x');
      expect(composerOf(ctx).id).toBe('ask-input');
      expect(await getMode(ctx)).toEqual({ mode: 'standard', source: 'radio' });
      expect(visibleMode(document, ctx.set)).toBe('standard');
      expect(first(document, ctx.set.computerToggle)).toBeNull();
      const model = first(document, ctx.set.modelPicker);
      expect(model?.getAttribute('aria-label')).toBe('Choose a model');
      expect(model?.hasAttribute('aria-haspopup')).toBe(false);
    });

    it('a checked "Create files and apps" radio reads create (its icon #pplx-icon-table-plus)', async () => {
      const { ctx } = load('search-thread-page-obsidian-AI-exporter-2026-02-02.html', 'https://www.perplexity.ai/search/x');
      const radios = Array.from(document.querySelectorAll('[role="radiogroup"] button[role="radio"]'));
      for (const radio of radios) {
        const on = radio.getAttribute('value') === 'studio';
        radio.setAttribute('aria-checked', String(on));
        radio.setAttribute('data-state', on ? 'checked' : 'unchecked');
      }
      expect(await getMode(ctx)).toEqual({ mode: 'create', source: 'radio' });
    });
  });

  describe('follow-up composers, Feb 2026, which show no mode control', () => {
    const pages = [
      ['search-thread-page-obsidian-AI-exporter-2026-02-27.html', 'Choose a model'],
      ['deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html', undefined],
    ] as const;
    for (const [file, model] of pages) {
      it(`${file}: no mode is read where none is shown; Submit is there, disabled; model button ${model ?? 'absent, and not taken for another button'}`, () => {
        const { ctx } = load(file, 'https://www.perplexity.ai/search/x');
        const composer = composerOf(ctx);
        expect(composer.id).toBe('ask-input');
        expect(visibleMode(document, ctx.set)).toBeNull();
        expect(submitButton(ctx, composer)?.hasAttribute('disabled')).toBe(true);
        expect(first(document, ctx.set.modelPicker)?.getAttribute('aria-label')).toBe(model);
      });
    }
  });

  /**
   * Every HTML capture in the folder: the mode and the Computer toggle as the capture shows them, each
   * read by hand from the file (the reason says what was read). `computer` is the toggle's own state:
   * true/false from its `aria-pressed`, null where no toggle is shown or it shows no state. Before
   * 2026-12-02 the reader took the first pressed wrapper button for the toggle and said "computer" on
   * the four Sep 2026 pages whose trigger is pressed.
   */
  describe('every capture: the mode and the Computer toggle as shown', () => {

    it('names every HTML capture of the folder (a new capture gets its row here)', () => {
      const files = readdirSync(folder).filter((f) => f.endsWith('.html')).sort();
      expect(CAPTURE_MODES.map((e) => e.file).sort()).toEqual(files);
    });

    for (const { file, mode, trigger, computer, why } of CAPTURE_MODES) {
      it(`${file}: mode ${mode ?? 'not shown'}, Computer toggle ${computer === null ? 'state not shown' : computer ? 'on' : 'off'} (${why})`, async () => {
        const { ctx } = load(file, 'https://www.perplexity.ai/search/a-captured-thread');
        const controls = modeControls(document, ctx.set);
        expect(controls.problem).toBeUndefined();
        expect(controls.triggerMode).toBe(trigger);
        expect(controls.computer).toBe(computer);
        if (controls.toggle) expect(controls.toggle.textContent?.trim()).toBe('Computer');
        if (controls.trigger) expect(controls.trigger).not.toBe(controls.toggle);
        expect(visibleMode(document, ctx.set)).toBe(mode);
        // comet_mode's page side, where the page shows a mode control (elsewhere it would ask the slash menu).
        if (controls.trigger || first(document, ctx.set.modeRadio)) {
          const read = await getMode(ctx);
          expect(read.mode).toBe(mode);
          if (mode === null) expect(read.detail).toMatch(/names standard but shows no pressed state, and the Computer toggle shows no pressed state/);
        }
      });
    }

    it('the French page: with its icon gone, the trigger is read by its French name "Recherche"', async () => {
      const { ctx } = load('thread-page-main-excerpt-AI-conversations-in-json-2026-09-27.html', 'https://www.perplexity.ai/search/x');
      const controls = modeControls(document, ctx.set);
      for (const use of controls.trigger?.querySelectorAll('use') ?? []) use.remove();
      expect(controls.trigger?.textContent?.trim()).toBe('Recherche');
      expect(await getMode(ctx)).toEqual({ mode: 'standard', source: 'chip' });
    });

    it('the mode menu is read only while open: a shut one left in the DOM (data-state="closed") is not read', async () => {
      const { ctx } = load('mode-menu-open-Perplexity-Comet-MCP-jcalderonzumba-2026-09-24.html');
      const trigger = modeControls(document, ctx.set).trigger as HTMLElement;
      // A trigger name this version does not know: the mode comes from the open menu's checked row.
      (trigger.querySelector('span:not([aria-hidden]) ') as HTMLElement).firstChild?.replaceWith('Zoeken');
      expect(await getMode(ctx)).toEqual({ mode: 'standard', source: 'menu' });
      // Shut as the live page leaves it: the menu stays, closed; the trigger loses aria-controls.
      document.querySelector('[role="menu"]')?.setAttribute('data-state', 'closed');
      trigger.setAttribute('data-state', 'closed');
      trigger.removeAttribute('aria-controls');
      await expect(getMode(ctx)).rejects.toMatchObject({ code: 'SELECTOR_MISS', message: expect.stringMatching(/^modeMenu: .* after clicking the mode chip twice/) });
    });
  });
});
