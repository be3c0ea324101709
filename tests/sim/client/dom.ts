/** Small DOM helpers and the page-wide state of the simulated site's page script. */
import { iconHtml } from '../answer';
import { SIM_HOOKS } from '../hooks';
import { SIM_LANGUAGES, type SimLabels } from '../locales';
import { LAYOUT_LABELS, type LayoutLabels } from '../locales/layout';
import type { BootData, Generation, ModeId, SimEvent, SimHook, ThreadLayout } from '../types';

type Attr = string | number | boolean | null | undefined;
type Child = Node | string | null | undefined | false;

/** `h('div', { class: 'x', 'aria-label': 'y' }, child…)`; `false`/`null` attributes are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function fromHtml(html: string): Element {
  const t = document.createElement('template');
  t.innerHTML = html.trim();
  const el = t.content.firstElementChild;
  if (!el) throw new Error(`no element in ${html.slice(0, 60)}`);
  return el;
}

export function icon(name: string, cls?: string): Element {
  return fromHtml(iconHtml(name, cls));
}

// ---------------------------------------------------------------------------------------------------
// Page-wide state

export const app = {
  boot: JSON.parse(document.getElementById('__SIM_BOOT__')?.textContent ?? '{}') as BootData,
  get generation(): Generation {
    return this.boot.generation;
  },
  /** The layout of the page on screen now (a thread's own, once one is shown; main.ts sets it). */
  layout: 'turn-2026-04' as ThreadLayout,
};
app.layout = app.boot.layout ?? app.layout;

/** Whether the page lays turns out as flat sibling blocks or February's markdown-content panels (not the sim's old turn). */
export function capturedLayout(): boolean {
  return app.layout !== 'turn-2026-04';
}

/** The words of the captured layouts, in the page's language. */
export const lt: LayoutLabels = LAYOUT_LABELS[app.boot.language] ?? LAYOUT_LABELS.en;

/** The page's words, in the language it was served in. */
export const tr: SimLabels = SIM_LANGUAGES[app.boot.language] ?? SIM_LANGUAGES.en;

/** The names of the page's main hooks (standard, or renamed as by a redesign). */
export const hooks = SIM_HOOKS[app.boot.hooks] ?? SIM_HOOKS.standard;

declare global {
  interface Window {
    __sim: SimHook;
  }
}

export function initHook(): void {
  window.__sim = { generation: app.boot.generation, scenario: app.boot.scenario, events: [] };
}

/** Records a test/benchmark event (the extension never reads this; it reads the DOM). */
export function emit(type: SimEvent['type'], turn: number): void {
  // The wall clock with its fraction (Date.now() drops it): the bench compares it with moments of other processes.
  window.__sim.events.push({ type, turn, at: performance.timeOrigin + performance.now() });
}

// ---------------------------------------------------------------------------------------------------
// Mode state: per tab session (sessionStorage), so it survives home → thread navigation and reloads.

const KEY_MODE = 'pplx-sim:mode';
const KEY_COMPUTER = 'pplx-sim:computer';
const KEY_MODEL = 'pplx-sim:model';

function ssGet(k: string): string | null {
  try {
    return sessionStorage.getItem(k);
  } catch {
    return null;
  }
}
function ssSet(k: string, v: string): void {
  try {
    sessionStorage.setItem(k, v);
  } catch {
    /* storage may be unavailable */
  }
}

/**
 * The composer's dictation: on from the page load's switch (BootData.dictation), toggled by the
 * microphone button as a person does. Kept for the page's life: every composer the page mounts
 * (a thread's, after an SPA navigation) shows it.
 */
export const dictation = { on: app.boot.dictation === true };

export const modeState = {
  /** Generation A: the typeahead mode (computer included). Generation B: the chip's mode. */
  get mode(): ModeId {
    return (ssGet(KEY_MODE) as ModeId | null) ?? 'standard';
  },
  set mode(m: ModeId) {
    ssSet(KEY_MODE, m);
  },
  /** Generation B's separate Computer toggle. */
  get computer(): boolean {
    return ssGet(KEY_COMPUTER) === '1';
  },
  set computer(on: boolean) {
    ssSet(KEY_COMPUTER, on ? '1' : '0');
  },
  get model(): string {
    return ssGet(KEY_MODEL) ?? 'Best';
  },
  set model(m: string) {
    ssSet(KEY_MODEL, m);
  },
  /** The mode an ask is made in. */
  effective(gen: Generation): ModeId {
    if (gen === 'B') return this.computer ? 'computer' : this.mode === 'computer' ? 'standard' : this.mode;
    return this.mode;
  },
};

export interface ModeInfo {
  id: ModeId;
  icon: string;
  label: string;
  desc: string;
}

/** Generation A typeahead rows (icons as lib/selectors/README.md records them). */
const mode = (id: ModeId, icon: string): ModeInfo => ({ id, icon, ...tr.modes[id] });

export const A_MODES: ModeInfo[] = [
  mode('deep-research', 'pplx-icon-telescope'),
  mode('model-council', 'pplx-icon-gavel'),
  mode('create', 'pplx-icon-custom-computer'),
  mode('learn', 'pplx-icon-book'),
  mode('review', 'pplx-icon-file-check'),
  mode('computer', 'pplx-icon-click'),
];

/** Generation B chip menu (Computer is a separate toggle there). */
export const B_MODES: ModeInfo[] = [mode('standard', 'pplx-icon-search'), ...A_MODES.filter((m) => m.id !== 'computer')];

export const MODELS = ['Best', 'Sonar', 'Claude Sonnet 4.5', 'Claude Opus 4.1 Thinking', 'GPT-5', 'Gemini 2.5 Pro', 'Grok 4'];

let idCounter = 0;
/** Radix-style ids: `radix-:r1:`. */
export function radixId(): string {
  idCounter += 1;
  return `radix-:r${idCounter.toString(36)}:`;
}

export async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/_sim/api/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw Object.assign(new Error(`${path}: HTTP ${res.status}`), { status: res.status, body: await res.json().catch(() => null) });
  return (await res.json()) as T;
}
