/**
 * What the composer offers for computer tasks (guesses, see README.md "Computer tasks"):
 * - files: the paperclip opens a hidden `input[type=file]`; each file read is uploaded at once and
 *   shown as a chip (`[data-testid="attachment-chip"]`); the ask carries the uploads' ids;
 * - Computer settings (shown while computer mode is on): a menu with the Computer modes, the
 *   models, and the chosen model's efforts, as `[role="menuitemradio"]` items carrying
 *   `data-computer-mode` / `data-model-id` / `data-effort`.
 * State is kept per tab in sessionStorage, like the mode.
 */
import { SIM_MODELS, SIM_MODES } from '../json/account';
import type { TurnSettings } from '../types';
import { h, icon } from './dom';
import { radixDropdown } from './menus';

interface Chip {
  file: File;
  id?: string;
  state: 'uploading' | 'ready' | 'failed';
}

function base64(buf: ArrayBuffer): string {
  const bytes = new Uint8Array(buf);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function size(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export class Attachments {
  readonly button: HTMLElement;
  readonly input: HTMLInputElement;
  readonly chips: HTMLElement;
  private list: Chip[] = [];

  constructor(private readonly onChange: () => void) {
    this.input = h('input', { type: 'file', multiple: true, class: 'hidden', 'aria-label': 'Attach files', 'data-testid': 'file-input' }) as HTMLInputElement;
    this.button = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Attach files' }, icon('pplx-icon-paperclip'));
    this.button.addEventListener('click', () => this.input.click());
    this.input.addEventListener('change', () => {
      for (const file of Array.from(this.input.files ?? [])) void this.upload(file);
      this.input.value = '';
    });
    this.chips = h('div', { class: 'attachment-chips' });
  }

  get uploading(): boolean {
    return this.list.some((c) => c.state === 'uploading');
  }

  /** Ids of the uploaded files, for the ask. */
  ids(): string[] {
    return this.list.filter((c) => c.state === 'ready' && c.id).map((c) => c.id as string);
  }

  clear(): void {
    this.list = [];
    this.render();
  }

  private async upload(file: File): Promise<void> {
    const chip: Chip = { file, state: 'uploading' };
    this.list.push(chip);
    this.render();
    try {
      const res = await fetch('/_sim/api/upload', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ filename: file.name, mimeType: file.type, data: base64(await file.arrayBuffer()) }),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      chip.id = ((await res.json()) as { file: { id: string } }).file.id;
      chip.state = 'ready';
    } catch {
      chip.state = 'failed';
    }
    this.render();
  }

  private render(): void {
    this.chips.replaceChildren(
      ...this.list.map((c) => {
        const remove = h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Remove ${c.file.name}` }, icon('pplx-icon-x', 'icon icon-sm'));
        remove.addEventListener('click', () => {
          this.list = this.list.filter((x) => x !== c);
          this.render();
        });
        return h(
          'div',
          { class: 'attachment-chip', 'data-testid': 'attachment-chip', 'data-state': c.state, 'data-filename': c.file.name },
          icon('pplx-icon-file-text', 'icon icon-sm'),
          h('span', {}, c.file.name),
          h('span', { class: 'text-xs text-quiet' }, c.state === 'ready' ? size(c.file.size) : c.state === 'failed' ? 'upload failed' : 'uploading…'),
          remove,
        );
      }),
    );
    this.onChange();
  }
}

const KEY = 'pplx-sim:computer-settings';

export function computerSettings(): TurnSettings {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as TurnSettings;
  } catch {
    return {};
  }
}

function saveSettings(s: TurnSettings): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    /* storage may be unavailable */
  }
}

function settingsLabel(s: TurnSettings): string {
  if (s.model) return `${SIM_MODELS.find((m) => m.id === s.model)?.label ?? s.model}${s.effort ? ` · ${s.effort}` : ''}`;
  return SIM_MODES.find((m) => m.mode === s.mode)?.label ?? 'Default';
}

/** The Computer settings button and its menu. */
export function computerSettingsButton(onChange: () => void): HTMLElement {
  const current = computerSettings();
  const trigger = h(
    'button',
    { type: 'button', class: 'pill-btn', 'data-testid': 'computer-settings', 'aria-label': `Computer settings: ${settingsLabel(current)}` },
    icon('pplx-icon-adjustments', 'icon icon-sm'),
    h('span', {}, settingsLabel(current)),
  );
  radixDropdown(trigger, (menu, close) => {
    const s = computerSettings();
    const item = (attrs: Record<string, string>, label: string, checked: boolean, pick: () => TurnSettings) => {
      const el = h('div', { role: 'menuitemradio', 'aria-checked': String(checked), 'data-state': checked ? 'checked' : 'unchecked', tabindex: '-1', ...attrs }, label);
      el.addEventListener('click', () => {
        saveSettings(pick());
        close();
        onChange();
      });
      return el;
    };
    menu.append(h('div', { class: 'group-label' }, 'Mode'));
    for (const m of SIM_MODES) menu.append(item({ 'data-computer-mode': m.mode }, m.label, !s.model && s.mode === m.mode, () => ({ mode: m.mode })));
    menu.append(h('div', { class: 'group-label' }, 'Model'));
    for (const m of SIM_MODELS) menu.append(item({ 'data-model-id': m.id }, m.label, s.model === m.id, () => ({ model: m.id, effort: m.defaultEffort })));
    const model = SIM_MODELS.find((m) => m.id === s.model);
    if (model) {
      menu.append(h('div', { class: 'group-label' }, 'Effort'));
      for (const e of model.efforts) menu.append(item({ 'data-effort': e }, e, s.effort === e, () => ({ model: model.id, effort: e })));
    }
  });
  return trigger;
}
