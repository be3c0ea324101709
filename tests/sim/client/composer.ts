/**
 * The composer: `#ask-input`, the real Lexical editor (client/editor.ts), its toolbar, Submit / Stop,
 * Dictation, and the mode UI of each generation (A: slash typeahead + removable mode pill; B: Radix mode
 * chip, Computer toggle and model picker).
 *
 * The text is Lexical's: what Submit and Enter send is its model's text, whatever the DOM showed. How a
 * script gets text into it (which synthetic events it takes, when it takes a selection) is the library's
 * behaviour, not ours.
 *
 * The toolbar follows the captures of Feb, Aug and Sep 2026 (all taken idle): the mode menu trigger and
 * the Computer toggle in two mode-toggle wrappers (the toggle without aria-label, icon
 * `#pplx-icon-custom-computer`), then on the right the model button labelled "Model", the Dictation
 * button in a wrapper of its own (icon `#pplx-icon-microphone`) and last Submit (`#pplx-icon-arrow-up`);
 * no Submit on the home composer until there is text (a thread's composer shows it disabled).
 *
 * While an answer is written, the stop control takes Submit's place in the captured layouts
 * (`blocks-2026-08`, `sessions-2026-09`, and `markdown-2026-02`, which the site served beside them):
 * reports of 2026-09-18 ("the control Perplexity swaps in for the send button") and of Sep 2026 (the
 * Sep 2026 captures' reporter: "Stop response (Esc)" takes Submit's place). No capture shows a page
 * while it answers. `turn-2026-04` (no capture) keeps Submit beside Stop, disabled.
 *
 * Dictation on (BootData.dictation, or a click) turns the microphone button into "Stop dictation"
 * carrying the very icon of the stop control, `#pplx-icon-player-stop-filled` (NOTES of the Sep 2026
 * captures): a reader that takes any stop icon in the composer's box for the stop control clicks it.
 *
 * The swap was once left out (2026-12-01) because comet_wait on generation B then missed the last step
 * of a turn nobody waited for (tests/e2e/ask-and-wait.spec.ts). The swap was not the cause: under CPU
 * load the sim's player, its timer late, played every overdue event of the script in one task, so the
 * last steps were drawn and folded away before any reader could see them (found 2026-12-02 on the Sep
 * 2026 layout, where the fold removes the rows). It now plays one moment per task (client/thread.ts,
 * tick), as the live page takes each streamed message in a task of its own.
 */
import type { ModeId } from '../types';
import { A_MODES, B_MODES, MODELS, type ModeInfo, app, capturedLayout, dictation, h, hooks, icon, lt, modeState, tr } from './dom';
import { radixDropdown } from './menus';
import { variant } from './variants';
import { Attachments, computerSettingsButton } from './task-composer';
import { type MountedEditor, mountEditor } from './editor';

export interface ComposerOptions {
  placeholder: string;
  /** Home page composer: menus open below it (on thread pages the composer is at the bottom: above). */
  menusBelow?: boolean;
  onSubmit(text: string): void;
  onStop(): void;
}

/** The model button's label by page language (the live site translates its labels). */
const MODEL_LABEL: Record<string, string> = { en: 'Model', fr: 'Modèle', ar: 'النموذج' };

/** Generation A slash-command rows that are not modes. */
const SHORTCUTS = [
  { cmd: '/summarize', desc: 'Summarize the current page', insert: 'Summarize this page: ' },
  { cmd: '/translate', desc: 'Translate text into another language', insert: 'Translate to English: ' },
  { cmd: '/explain', desc: 'Explain like I am five', insert: 'Explain simply: ' },
];

export class Composer {
  readonly el: HTMLElement;
  readonly editor: HTMLDivElement;
  private text = '';
  private readonly lexical: MountedEditor;
  private working = false;
  private busy = false;
  private placeholderEl: HTMLElement;
  private submitSlot: HTMLElement;
  private left: HTMLElement;
  private typeahead: HTMLElement | null = null;
  private highlighted = 0;
  /** Files attached through the paperclip (client/task-composer.ts). */
  readonly files: Attachments;

  constructor(private readonly opts: ComposerOptions) {
    this.editor = h('div', {
      id: hooks.composerId,
      contenteditable: 'true',
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-placeholder': opts.placeholder,
      'aria-label': opts.placeholder,
      spellcheck: 'true',
      'data-lexical-editor': 'true',
      translate: 'no',
      class: 'min-w-0 outline-none',
    });
    this.placeholderEl = h('div', { class: 'placeholder', 'aria-hidden': 'true' }, opts.placeholder);
    this.left = h('div', { class: 'left' });
    this.submitSlot = h('div', { class: 'flex items-center gap-2' });
    this.files = new Attachments(() => this.renderButtons());
    const right = h(
      'div',
      { class: 'right' },
      ...(app.generation === 'B' ? [this.modelPicker()] : []),
      this.files.button,
      this.files.input,
      h('div', {}, this.dictationButton()),
      this.submitSlot,
    );
    // Submit sits a few levels above the editor: composer > toolbar > right > slot > button.
    this.el = h(
      'div',
      // A redesign (the renamed hooks) renames the container's attribute too.
      { class: opts.menusBelow ? 'composer menus-below' : 'composer', [hooks.composerBoxAttr]: 'true' },
      h('div', { class: 'relative' }, this.editor, this.placeholderEl),
      this.files.chips,
      h('div', { class: 'toolbar' }, this.left, right),
    );
    this.renderLeft();
    this.renderButtons();
    this.lexical = mountEditor(
      this.editor,
      (text) => this.changed(text),
      (e) => this.keyDown(e),
    );
  }

  /** Unmounts the editor (the page is leaving this composer). */
  dispose(): void {
    this.lexical.dispose();
  }

  /** The text the editor's model holds (what Submit sends). */
  get value(): string {
    return this.text;
  }

  setWorking(working: boolean): void {
    if (this.working === working) return;
    this.working = working;
    this.renderButtons();
  }

  /** While the ask round trip is in flight: no second submit. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.renderButtons();
  }

  focus(): void {
    this.editor.focus();
  }

  // -------------------------------------------------------------------------------------------------
  // Editor

  private setText(text: string): void {
    this.lexical.setText(text);
  }

  /** Lexical told us its text changed. */
  private changed(text: string): void {
    this.text = text;
    this.placeholderEl.classList.toggle('hidden', this.text !== '');
    this.renderButtons();
    if (app.generation === 'A') this.updateTypeahead();
  }

  /** Keys before Lexical sees them: true when handled here (Lexical then leaves the key alone). */
  private keyDown(e: KeyboardEvent): boolean {
    if (this.typeahead) {
      const rows = this.typeaheadRows();
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = rows.length;
        this.highlighted = (this.highlighted + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
        this.paintHighlight();
        return true;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        rows[this.highlighted]?.click();
        return true;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        this.closeTypeahead();
        return true;
      }
    }
    // Enter sends; Shift+Enter is Lexical's line break.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
      return true;
    }
    return false;
  }

  submit(): void {
    const q = this.text.trim();
    if (!q || this.working || this.busy || this.files.uploading) return;
    this.closeTypeahead();
    this.setText('');
    this.opts.onSubmit(q);
  }

  // -------------------------------------------------------------------------------------------------
  // Dictation

  /**
   * The microphone: "Dictation" while off; on, "Stop dictation" with the stop control's own icon. A
   * click turns it on or off (no speech is heard: the text stays what the editor holds).
   */
  private dictationButton(): HTMLElement {
    const btn = h('button', { type: 'button', class: 'icon-btn dictation', 'data-state': 'closed' });
    const paint = () => {
      btn.setAttribute('aria-label', dictation.on ? lt.stopDictation : tr.dictation);
      btn.classList.toggle('listening', dictation.on);
      btn.replaceChildren(h('div', {}, icon(dictation.on ? 'pplx-icon-player-stop-filled' : 'pplx-icon-microphone')));
    };
    btn.addEventListener('click', () => {
      dictation.on = !dictation.on;
      paint();
    });
    paint();
    return btn;
  }

  // -------------------------------------------------------------------------------------------------
  // Submit / Stop

  private renderButtons(): void {
    const hasText = this.text.trim() !== '';
    const slot = this.submitSlot;
    slot.replaceChildren();
    if (this.working) {
      const stop = h('button', { type: 'button', class: 'stop-btn', 'aria-label': capturedLayout() ? lt.stopResponse : tr.stop }, icon('pplx-icon-player-stop-filled'));
      stop.addEventListener('click', () => this.opts.onStop());
      slot.append(stop);
    }
    // The home composer shows no Submit until there is text (Aug 2026); a thread's composer shows it
    // disabled while empty (Feb, Aug and Sep 2026).
    if (this.opts.menusBelow && !hasText) return;
    // The captured layouts (reports of Sep 2026): the stop control takes Submit's place while an answer
    // streams. turn-2026-04 keeps Submit beside it, disabled.
    if (this.working && capturedLayout()) return;
    const btn = h(
      'button',
      {
        type: 'button',
        class: 'submit-btn',
        'aria-label': tr.submit,
        disabled: !hasText || this.working || this.busy || this.files.uploading,
      },
      icon('pplx-icon-arrow-up'),
    );
    btn.addEventListener('click', () => this.submit());
    slot.append(btn);
  }

  // -------------------------------------------------------------------------------------------------
  // Generation A: slash typeahead, mode pill

  private renderLeft(): void {
    this.left.replaceChildren();
    if (app.generation === 'A') {
      const mode = A_MODES.find((m) => m.id === modeState.mode);
      if (mode && variant('unknownModePill')) {
        this.left.append(h('span', { class: 'chosen-mode text-xs' }, h('span', {}, mode.label)));
      } else if (mode) {
        // The way back to standard (besides clicking the active typeahead row again): remove the pill.
        const pill = h(
          'button',
          { type: 'button', class: 'mode-pill', 'aria-label': tr.removeMode(mode.label) },
          icon(mode.icon, 'icon icon-sm'),
          h('span', {}, mode.label),
          icon('pplx-icon-x', 'icon icon-sm'),
        );
        pill.addEventListener('click', () => this.setModeA('standard'));
        this.left.append(pill);
        if (mode.id === 'computer') this.left.append(computerSettingsButton(() => this.renderLeft()));
      } else {
        this.left.append(h('span', { class: 'text-xs text-quiet' }, tr.slashHint));
      }
    } else {
      // One segmented control: two wrappers, the mode menu trigger and the Computer toggle. The Aug and Sep 2026
      // captures (`composer-zero-state-WebMCP-2026-08.html`, `composer-home-typed-…-2026-09-26.html`) put an
      // "Add files or tools" menu button before it and an aria-hidden indicator with a test id of its own inside it:
      // decoys for a reader looking for the mode menu.
      const wrap = (...inner: Element[]) => h('span', { 'data-testid': hooks.modeChipTestId, class: 'inline-flex' }, h('span', { class: 'inline-flex w-max' }, ...inner));
      const live = app.layout === 'blocks-2026-08' || app.layout === 'sessions-2026-09';
      this.left.append(
        ...(live ? [this.addFilesOrTools()] : []),
        h(
          'div',
          { class: 'mode-toggles relative flex items-center rounded-full' },
          ...(live ? [h('div', { 'aria-hidden': 'true', 'data-testid': 'ask-input-mode-toggle-indicator', class: 'toggle-indicator' })] : []),
          wrap(this.modeChip()),
          wrap(h('span', { class: 'inline-flex', 'data-state': 'closed' }, this.computerToggle())),
        ),
      );
      if (modeState.computer) this.left.append(computerSettingsButton(() => this.renderLeft()));
    }
  }

  private setModeA(id: ModeId): void {
    modeState.mode = id;
    this.renderLeft();
  }

  private typeaheadRows(): HTMLElement[] {
    return this.typeahead ? [...this.typeahead.querySelectorAll<HTMLElement>('[role="menuitem"]')] : [];
  }

  private paintHighlight(): void {
    this.typeaheadRows().forEach((r, i) => {
      if (i === this.highlighted) r.setAttribute('data-highlighted', '');
      else r.removeAttribute('data-highlighted');
    });
  }

  private updateTypeahead(): void {
    const t = this.text;
    if (!/^\/\S*$/.test(t)) {
      this.closeTypeahead();
      return;
    }
    const filter = t.slice(1).toLowerCase();
    const modes = A_MODES.filter((m) => m.label.toLowerCase().includes(filter) || m.id.includes(filter));
    const shortcuts = SHORTCUTS.filter((s) => s.cmd.includes(filter));
    if (!modes.length && !shortcuts.length) {
      this.closeTypeahead();
      return;
    }
    const list = h('div', { role: 'listbox', 'aria-label': tr.typeaheadMenu, class: 'typeahead', id: 'typeahead-menu' });
    list.addEventListener('mousedown', (e) => e.preventDefault()); // keep focus in the editor
    if (modes.length) list.append(h('div', { class: 'group-label' }, tr.modesGroup));
    for (const m of modes) list.append(this.modeRow(m));
    if (shortcuts.length) list.append(h('div', { class: 'group-label' }, tr.shortcutsGroup));
    for (const s of shortcuts) {
      const row = h(
        'div',
        { role: 'menuitem', tabindex: '-1', class: 'group/item shortcut-typeahead-option' },
        icon('pplx-icon-slash'),
        h('div', { class: 'flex-1' }, h('div', { class: 'font-medium' }, s.cmd), h('div', { class: 'row-desc' }, s.desc)),
      );
      row.addEventListener('click', () => {
        this.closeTypeahead();
        this.editor.focus();
        this.setText(s.insert);
      });
      list.append(row);
    }
    if (this.typeahead) this.typeahead.replaceWith(list);
    else this.el.append(list);
    this.typeahead = list;
    this.highlighted = Math.min(this.highlighted, this.typeaheadRows().length - 1);
    this.paintHighlight();
  }

  private modeRow(m: ModeInfo): HTMLElement {
    const active = modeState.mode === m.id;
    const row = h(
      'div',
      { role: 'menuitem', tabindex: '-1', class: 'group/item', 'aria-label': m.label },
      icon(m.icon),
      h('div', { class: 'flex-1' }, h('div', { class: 'font-medium' }, m.label), h('div', { class: 'row-desc' }, m.desc)),
      active ? h('div', { class: 'active-mark bg-subtle' }, icon('pplx-icon-check', 'icon icon-sm')) : null,
    );
    row.addEventListener('click', () => {
      // Clicking the active row again turns the mode off (back to standard).
      this.setModeA(active ? 'standard' : m.id);
      this.closeTypeahead();
      this.setText('');
      this.editor.focus();
    });
    return row;
  }

  private closeTypeahead(): void {
    this.typeahead?.remove();
    this.typeahead = null;
    this.highlighted = 0;
  }

  // -------------------------------------------------------------------------------------------------
  // Generation B: mode chip, Computer toggle, model picker

  private modeChip(): HTMLElement {
    const current = B_MODES.find((m) => m.id === modeState.mode) ?? (B_MODES[0] as ModeInfo);
    // Pressed while its mode is the one on, that is while Computer is off.
    const trigger = h(
      'button',
      { class: 'mode-chip', type: 'button', 'aria-pressed': modeState.computer ? 'false' : 'true' },
      icon(current.icon, 'icon icon-sm'),
      h('span', {}, current.label),
    );
    radixDropdown(trigger, (menu, close) => {
      for (const m of B_MODES) {
        const checked = m.id === current.id;
        // Sep 2026: Model council is a plain menu item with a plan badge beside the radio rows (the mode menu capture of
        // 2026-09-24; review 10, sim F3); the Aug layout keeps it a radio row, as the sim drew it before.
        const plain = m.id === 'model-council' && app.layout === 'sessions-2026-09';
        const item = h(
          'div',
          plain
            ? { role: 'menuitem', tabindex: '-1', class: 'group/item' }
            : {
                role: 'menuitemradio',
                'aria-checked': checked ? 'true' : 'false',
                'data-state': checked ? 'checked' : 'unchecked',
                tabindex: '-1',
                class: 'group/item',
              },
          icon(m.icon),
          h('div', { class: 'flex-1' }, h('div', { class: 'font-medium' }, m.label), h('div', { class: 'item-desc' }, m.desc)),
          ...(plain ? [h('span', { class: 'plan-badge' }, 'Max')] : []),
        );
        item.addEventListener('click', () => {
          modeState.mode = m.id;
          close();
          this.renderLeft();
        });
        menu.append(item);
      }
    });
    // The Sep 2026 captures' trigger has no aria-haspopup (the Aug 2026 ones had it, `composer-zero-state-WebMCP-2026-08.html`):
    // both wrapper buttons carry aria-pressed and a name, and only order, name and icon tell them apart.
    if (app.layout !== 'blocks-2026-08') trigger.removeAttribute('aria-haspopup');
    return trigger;
  }

  /** The captured layouts' "+" button: a menu whose one item picks files (the paperclip beside Model does the same). */
  private addFilesOrTools(): HTMLElement {
    const trigger = h('button', { type: 'button', class: 'icon-btn', 'aria-label': lt.addFilesOrTools }, icon('pplx-icon-custom-plus-large')) as HTMLButtonElement;
    radixDropdown(trigger, (menu, close) => {
      const item = h('div', { role: 'menuitem', tabindex: '-1' }, icon('pplx-icon-paperclip'), h('span', {}, lt.uploadFiles));
      item.addEventListener('click', () => {
        close();
        this.files.input.click();
      });
      menu.append(item);
    });
    return trigger;
  }

  /** No aria-label, no test id: a plain pressed/unpressed button whose icon is the custom computer. */
  private computerToggle(): HTMLElement {
    const btn = h(
      'button',
      { type: 'button', class: 'computer-toggle', 'aria-pressed': modeState.computer ? 'true' : 'false' },
      icon('pplx-icon-custom-computer', 'icon icon-sm'),
      h('span', {}, tr.computer),
    );
    btn.addEventListener('click', () => {
      modeState.computer = !modeState.computer;
      this.renderLeft();
    });
    return btn;
  }

  /** Labelled "Model" (in the page's language), its text the chosen model, a chevron. */
  private modelPicker(): HTMLElement {
    const name = h('span', { class: 'pr-1' }, modeState.model);
    const trigger = h('button', { class: 'model-btn', type: 'button', 'aria-label': MODEL_LABEL[tr.lang] ?? 'Model' }, name, icon('pplx-icon-chevron-down', 'icon icon-sm'));
    radixDropdown(
      trigger,
      (menu, close) => {
        for (const model of MODELS) {
          const checked = model === modeState.model;
          const item = h(
            'div',
            { role: 'menuitem', tabindex: '-1' },
            h('span', { class: 'flex-1' }, model),
            checked ? h('span', { class: 'check' }, icon('pplx-icon-check', 'icon icon-sm')) : null,
          );
          item.addEventListener('click', () => {
            modeState.model = model;
            name.textContent = model;
            close();
          });
          menu.append(item);
        }
      },
      'end',
    );
    return trigger;
  }
}
