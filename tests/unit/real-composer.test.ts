// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composerOf, submitButton } from '../../lib/page/composer/composer';
import { first, iconsIn } from '../../lib/page/dom/dom';
import { PageWatcher } from '../../lib/page/answer/observer';
import { getMode } from '../../lib/page/composer/mode';
import { visibleMode } from '../../lib/page/kits/watch';
import { chooseSelectorSet } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';

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
  const { set, probe } = chooseSelectorSet(document);
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

    it('a Computer toggle this version cannot find is "could not see", never the chip\'s mode', async () => {
      const { ctx } = load(file);
      const toggle = first(document, ctx.set.computerToggle) as HTMLElement;
      toggle.setAttribute('aria-haspopup', 'dialog'); // markup a later build might serve
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
});
