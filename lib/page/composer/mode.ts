import { RelayError } from '../../protocol/error/relay-error';
import { isComputerPath } from '../../protocol/urls';
import type { Mode, SelectorSet } from '../../selectors';
import { modeWords } from '../../selectors/labels';
import { wordsFor } from '../../selectors/language/placeholders';
import { composerOf, composerText, typeInto } from './composer';
import type { PageContext } from '../dom/context';
import { all, cleanText, first, iconsIn, isHidden, matches, pointerClick, probeMiss, pressKey } from '../dom/dom';

/**
 * Reading and switching the mode without ever navigating away, through whichever mode
 * control the page shows, probed in turn: the Computer toggle and the mode chip (Aug–Oct 2026), the
 * radiogroup of modes (Feb 2026), the pill and slash menu (spring 2026). Modes are recognised by
 * icon first (locale-independent, exact match so that a menu row's `#pplx-icon-custom-computer` is
 * `create`, not `computer`), then by the mode names of the set's labels, in any of its languages.
 * The Computer toggle is recognised by where it sits, never by its icon (that icon means Computer
 * there). A control that is not seen is never taken for a value: the reader asks the page another
 * way, or says what it could not see.
 */

export type ModeSource = 'url' | 'toggle' | 'chip' | 'menu' | 'radio' | 'pill' | 'typeahead' | 'unavailable';

export interface ModeRead {
  mode: Mode | null;
  source: ModeSource;
  /** Why the mode could not be read, when mode is null. */
  detail?: string;
  /** A look-only read (`passive`) that would have to open the mode menu or type "/" to read it. */
  acts?: true;
}

export interface ModeSwitch {
  mode: Mode;
  source: 'switched';
  previous: Mode | null;
  changed: boolean;
  /** The page was re-read after switching and shows the requested mode. */
  verified: boolean;
}

const OPEN_MS = 1500;

export function modeOf(el: Element, set: SelectorSet): Mode | null {
  for (const icon of iconsIn(el, set)) {
    const m = set.modeIcons[icon];
    if (m) return m;
  }
  // An icon-only control (the Feb 2026 radios) names its mode in its label.
  const label = cleanText(el) || (el.getAttribute('aria-label') ?? '').trim();
  const words = modeWords(set);
  const exact = words.get(label);
  if (exact) return exact;
  // Labels may carry a description line: match the longest known label the text starts with.
  const known = [...words.keys()].sort((a, b) => b.length - a.length);
  const hit = known.find((k) => label.startsWith(k));
  return hit ? (words.get(hit) ?? null) : null;
}

function urlMode(ctx: PageContext): Mode | null {
  return isComputerPath(ctx.doc.location.pathname) ? 'computer' : null;
}

export function isOn(el: Element): boolean {
  return (
    el.getAttribute('aria-pressed') === 'true' ||
    el.getAttribute('aria-checked') === 'true' ||
    ['on', 'checked', 'active'].includes(el.getAttribute('data-state') ?? '')
  );
}

// ---------------------------------------------------------------- generation B: chip + menu

/** On, off, or not shown (neither `aria-pressed`/`aria-checked` nor an on/off `data-state`). */
export function pressedState(el: Element): boolean | null {
  for (const attr of ['aria-pressed', 'aria-checked']) {
    const v = el.getAttribute(attr);
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  const state = el.getAttribute('data-state') ?? '';
  if (['on', 'checked', 'active'].includes(state)) return true;
  if (['off', 'unchecked', 'inactive'].includes(state)) return false;
  return null; // a menu trigger's data-state (open/closed) says nothing about its mode
}

/** A button's visible name: its text, else its aria-label. */
function nameOf(el: Element): string {
  return cleanText(el) || (el.getAttribute('aria-label') ?? '').trim();
}

/**
 * The Computer toggle, confirmed: its name is the word `{computer}` (any language) or it shows one of
 * `computerToggleIcons`. The captures name it "Computer" even on a French page (2026-09-27).
 */
function isComputerToggle(el: Element, set: SelectorSet): boolean {
  const name = nameOf(el);
  if (wordsFor(set, 'computer').includes(name)) return true;
  const icons = set.computerToggleIcons ?? [];
  return iconsIn(el, set).some((i) => icons.includes(i));
}

/**
 * The Aug–Oct 2026 mode controls as the page shows them, read without touching anything: the mode
 * menu trigger (first) and the Computer toggle (after it), told apart by order and by the toggle's
 * name or icon, never by which one is pressed (both carry `aria-pressed` since Sep 2026).
 */
export interface ModeControls {
  trigger: HTMLElement | null;
  /** The mode the trigger names (icon, else its name in any language of the set), or null. */
  triggerMode: Mode | null;
  /** Whether the trigger says its mode is the one on (`aria-pressed`), or null where it does not say. */
  triggerPressed: boolean | null;
  toggle: HTMLElement | null;
  /** Computer on or off as the toggle itself shows it; null when there is no toggle or it shows neither. */
  computer: boolean | null;
  /** Why a button found where a control sits was not taken for it. */
  problem?: string;
}

export function modeControls(doc: Document, set: SelectorSet): ModeControls {
  const url = doc.location?.href ?? '';
  const trigger = (first(doc, set.modeChip) as HTMLElement | null) ?? null;
  let toggle = (first(doc, set.computerToggle) as HTMLElement | null) ?? null;
  let problem: string | undefined;
  const pos = trigger && toggle ? trigger.compareDocumentPosition(toggle) : Node.DOCUMENT_POSITION_FOLLOWING;
  if (!(pos & Node.DOCUMENT_POSITION_FOLLOWING) || pos & Node.DOCUMENT_POSITION_CONTAINED_BY) {
    problem = `the button taken for the Computer toggle is not after the mode trigger on ${url}`;
    toggle = null;
  } else if (toggle && !isComputerToggle(toggle, set)) {
    problem = `the button where the Computer toggle sits is named "${nameOf(toggle)}" and shows no Computer icon, on ${url}`;
    toggle = null;
  }
  let triggerMode = trigger ? modeOf(trigger, set) : null;
  // By name only: in a mode menu `#pplx-icon-custom-computer` is "create" (modeIcons), not the toggle.
  if (trigger && (triggerMode === 'computer' || wordsFor(set, 'computer').includes(nameOf(trigger)))) {
    problem = `the mode trigger on ${url} is named "${nameOf(trigger)}", the Computer toggle's name`;
    triggerMode = null;
  }
  return {
    trigger,
    triggerMode,
    triggerPressed: trigger ? pressedState(trigger) : null,
    toggle,
    computer: toggle ? pressedState(toggle) : null,
    ...(problem ? { problem } : {}),
  };
}

/**
 * The mode the controls show: Computer only when the toggle itself is pressed; the trigger's mode
 * when the trigger says it is the one on, or the toggle says Computer is off. Anything else is not
 * a mode: `detail` says what was seen.
 */
export function controlsMode(c: ModeControls, set: SelectorSet, url: string): ModeRead {
  if (c.computer === true) return { mode: 'computer', source: 'toggle' };
  const missing = (key: 'modeChip' | 'computerToggle') => c.problem ?? `${key}: none of \`${set[key].join('`, `')}\` matched on ${url}`;
  if (!c.trigger) return unseen(missing('modeChip'));
  if (!c.triggerMode) return unseen(c.problem ?? `the mode trigger on ${url} is named "${nameOf(c.trigger)}", no mode this version knows`);
  if (c.triggerPressed === true || (c.triggerPressed === null && c.computer === false)) return { mode: c.triggerMode, source: 'chip' };
  const toggle = c.toggle ? (c.computer === false ? 'says Computer is off' : 'shows no pressed state') : `is not seen (${missing('computerToggle')})`;
  const trigger = c.triggerPressed === false ? 'is not pressed (another mode is on)' : 'shows no pressed state';
  return unseen(`the mode trigger on ${url} names ${c.triggerMode} but ${trigger}, and the Computer toggle ${toggle}: the page does not show which mode is on`);
}

function chipOf(ctx: PageContext): HTMLElement {
  const chip = modeControls(ctx.doc, ctx.set).trigger;
  if (!chip) throw probeMiss(ctx.set, 'modeChip', ctx.doc.location.href);
  return chip;
}

function openMenuOf(ctx: PageContext, chip: Element): Element | null {
  // A menu that is shut stays in the DOM (data-state="closed"): only one modeMenu matches is open.
  const isOpenMenu = (m: Element) => matches(m, ctx.set.modeMenu) && !isHidden(m) && all(m, ctx.set.modeMenuItem).length > 0;
  const id = chip.getAttribute('aria-controls');
  const byId = id ? ctx.doc.getElementById(id) : null;
  if (byId && isOpenMenu(byId)) return byId;
  return all(ctx.doc, ctx.set.modeMenu).find(isOpenMenu) ?? null;
}

async function openChipMenu(ctx: PageContext, chip: HTMLElement): Promise<Element> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const open = openMenuOf(ctx, chip);
    if (open) return open;
    pointerClick(chip); // a bare .click() does not open a Radix trigger
    const menu = await ctx.waitFor(() => openMenuOf(ctx, chip), OPEN_MS);
    if (menu) return menu;
  }
  throw probeMiss(ctx.set, 'modeMenu', ctx.doc.location.href, { after: ' after clicking the mode chip twice' });
}

async function closeChipMenu(ctx: PageContext, chip: HTMLElement): Promise<void> {
  if (!openMenuOf(ctx, chip)) return;
  pressKey(openMenuOf(ctx, chip) ?? ctx.doc, 'Escape');
  if (await ctx.waitFor(() => !openMenuOf(ctx, chip), 500)) return;
  pointerClick(chip);
  await ctx.waitFor(() => !openMenuOf(ctx, chip), 500);
}

function checkedItem(ctx: PageContext, menu: Element): Element | null {
  return all(menu, ctx.set.modeMenuItem).find((i) => i.getAttribute('aria-checked') === 'true') ?? null;
}

function unseen(detail: string): ModeRead {
  return { mode: null, source: 'unavailable', detail };
}

/** What a look-only read says where reading would act on the page (the worker then reads it in the mode's turn). */
const ACTS: ModeRead = { mode: null, source: 'unavailable', acts: true };

async function readModeB(ctx: PageContext, passive?: boolean): Promise<ModeRead> {
  const controls = modeControls(ctx.doc, ctx.set);
  const shown = controlsMode(controls, ctx.set, ctx.doc.location.href);
  const chip = controls.trigger;
  if (!chip || shown.mode || controls.triggerMode || controls.problem) return shown;
  // The trigger's name is one this version does not know (another language): the open menu's
  // checked item carries the icon. Its mode counts only where the controls say the trigger's mode is on.
  if (controls.triggerPressed !== true && controls.computer !== false) return shown;
  const open = openMenuOf(ctx, chip);
  let item = open ? checkedItem(ctx, open) : null;
  if (!open) {
    if (passive) return ACTS;
    const menu = await openChipMenu(ctx, chip);
    item = checkedItem(ctx, menu);
    await closeChipMenu(ctx, chip);
  }
  const mode = item ? modeOf(item, ctx.set) : null;
  return mode ? { mode, source: 'menu' } : unseen(item ? 'the mode menu\'s checked item names no mode this version knows' : 'the mode menu has no checked item');
}

async function setModeB(ctx: PageContext, mode: Mode): Promise<void> {
  const url = ctx.doc.location.href;
  const controls = () => modeControls(ctx.doc, ctx.set);
  const start = controls();
  const toggle = start.toggle;
  if (mode === 'computer') {
    if (!toggle) throw start.problem ? new RelayError('SELECTOR_MISS', `computerToggle: ${start.problem}`) : probeMiss(ctx.set, 'computerToggle', url);
    if (start.computer !== true) {
      pointerClick(toggle);
      await ctx.waitFor(() => controls().computer === true, OPEN_MS);
    }
    return;
  }
  if (toggle && start.computer === true) {
    pointerClick(toggle);
    await ctx.waitFor(() => controls().computer === false, OPEN_MS);
  }
  const chip = chipOf(ctx);
  const now = controlsMode(controls(), ctx.set, url);
  if (now.mode === mode) return;
  const menu = await openChipMenu(ctx, chip);
  const item = all(menu, ctx.set.modeMenuItem).find((i) => modeOf(i, ctx.set) === mode);
  if (!item) {
    await closeChipMenu(ctx, chip);
    throw probeMiss(ctx.set, 'modeMenuItem', url, {
      within: ` for the mode "${mode}" (by icon in modeIcons or by word in labels) inside the open mode menu`,
      hint: 'the menu changed, or this account is not offered that mode: `comet-relay doctor --page` shows what the page has',
    });
  }
  pointerClick(item);
  await ctx.waitFor(() => !openMenuOf(ctx, chip) || modeOf(chipOf(ctx), ctx.set) === mode, OPEN_MS);
  await closeChipMenu(ctx, chip);
}

// ---------------------------------------------------------------- Feb 2026: a radiogroup of modes

function radiosOf(ctx: PageContext): Element[] {
  return all(ctx.doc, ctx.set.modeRadio).filter((r) => !isHidden(r));
}

function readModeRadio(ctx: PageContext, radios: Element[]): ModeRead {
  const on = radios.find(isOn);
  const mode = on && modeOf(on, ctx.set);
  return mode ? { mode, source: 'radio' } : unseen(`the radiogroup of modes on ${ctx.doc.location.href} has no checked mode this version knows`);
}

async function setModeRadio(ctx: PageContext, radios: Element[], mode: Mode): Promise<void> {
  const radio = radios.find((r) => modeOf(r, ctx.set) === mode) as HTMLElement | undefined;
  if (!radio) throw probeMiss(ctx.set, 'modeRadio', ctx.doc.location.href, { within: ` for the mode "${mode}"`, hint: 'start a thread on the Perplexity home page' });
  pointerClick(radio);
  await ctx.waitFor(() => isOn(radio), OPEN_MS);
}

// ---------------------------------------------------------------- generation A: slash typeahead

function typeaheadOpen(ctx: PageContext): Element | null {
  return all(ctx.doc, ctx.set.typeahead).find((t) => !isHidden(t)) ?? null;
}

function modeRows(ctx: PageContext, menu: Element): Element[] {
  return all(menu, ctx.set.typeaheadItem).filter((row) => !matches(row, ctx.set.typeaheadShortcut));
}

/**
 * The menu's marked row. No marked row among rows it recognises is plain search (the menu has no row
 * for it) only where the set says the slash menu is the page's mode control (generation A, spring 2026: its rows name
 * every mode but plain search, the chosen one marked with `typeaheadActive`). A chip set comes here only when its chip was not found, and
 * there an unmarked menu may be a mark this version does not know: that says nothing (page review
 * 2026-12-05, #4). A menu whose rows it cannot name says nothing either.
 */
function activeMode(ctx: PageContext, menu: Element): Mode | null {
  const rows = modeRows(ctx, menu);
  const active = rows.find((row) => first(row, ctx.set.typeaheadActive));
  if (active) return modeOf(active, ctx.set);
  return ctx.set.modeUi === 'typeahead' && rows.some((row) => modeOf(row, ctx.set) !== null) ? 'standard' : null;
}

/**
 * Opens the typeahead by typing "/" in the composer, runs `use`, then closes it and puts back
 * whatever the composer held before (a user's draft survives). What the person types meanwhile is
 * theirs: the composer is typed into (a retry, the draft put back) only while it holds nothing but
 * the draft or the "/" typed here (review 2026-12-02, #23).
 */
async function withTypeahead<T>(ctx: PageContext, use: (menu: Element) => Promise<T> | T): Promise<T> {
  const composer = composerOf(ctx);
  // Compared trimmed: an empty Lexical editor reads as "\n", and typing that back adds paragraphs.
  const draft = composerText(composer).trim();
  const ours = () => ['', '/', draft].includes(composerText(composer).trim());
  const restore = async () => {
    if (typeaheadOpen(ctx)) {
      pressKey(composer, 'Escape');
      await ctx.waitFor(() => !typeaheadOpen(ctx), 500);
    }
    if (composer.isConnected && ours() && composerText(composer).trim() !== draft) await typeInto(ctx, composer, draft);
  };
  try {
    let menu = typeaheadOpen(ctx);
    const personTyping = () =>
      new RelayError('AGENT_ERROR', `the composer on ${ctx.doc.location.href} changed while its slash menu was being opened (the person is typing): nothing more was typed; try again once it is idle`);
    for (let attempt = 0; !menu && attempt < 3; attempt++) {
      if (!ours()) throw personTyping();
      try {
        await typeInto(ctx, composer, '');
        await typeInto(ctx, composer, '/');
      } catch (error) {
        // The typing checks that the editor holds what was typed: text of the person's in it is theirs, not a fault.
        if (!ours()) throw personTyping();
        throw error;
      }
      menu = await ctx.waitFor(() => typeaheadOpen(ctx), OPEN_MS);
    }
    if (!menu) throw probeMiss(ctx.set, 'typeahead', ctx.doc.location.href, { after: ' after typing "/" three times' });
    return await use(menu);
  } finally {
    await restore();
  }
}

/** Said instead of navigating away from the user's page (what the CDP server did). */
function unavailable(ctx: PageContext): ModeRead {
  return unseen(`this page (${ctx.doc.location.href}) has no composer, and reading the mode here would mean navigating away; open the Perplexity home page to read it`);
}

/**
 * Generation A names the chosen mode in a pill beside the composer (simulated site, 2026-12). No
 * pill found says nothing: the pill may be one this version does not know.
 */
export function pillMode(doc: Document, set: SelectorSet): Mode | null {
  const pill = first(doc, set.modePill);
  return pill ? modeOf(pill, set) : null;
}

/**
 * Reading is not acting: the mode comes from what the page shows (the open typeahead, the pill).
 * Only when no pill names it does it ask the slash menu, which means typing "/": then only into an
 * empty composer, which is emptied again afterwards: a draft is never touched.
 */
async function readModeA(ctx: PageContext, passive?: boolean): Promise<ModeRead> {
  const open = typeaheadOpen(ctx);
  if (open) return fromMenu(ctx, activeMode(ctx, open));
  const composer = first(ctx.doc, ctx.set.composer);
  if (!composer) return unavailable(ctx);
  const shown = pillMode(ctx.doc, ctx.set);
  if (shown) return { mode: shown, source: 'pill' };
  // Only looking, the rest is the mode turn's: text in the composer now may be another session's prompt being typed,
  // gone by the time the turn is had (day-2 review L4).
  if (passive) return ACTS;
  if (composerText(composer).trim() !== '') {
    return unseen(`no mode pill this version knows is on ${ctx.doc.location.href}, and the composer holds text: the slash menu would mean typing into it`);
  }
  try {
    return fromMenu(ctx, await withTypeahead(ctx, (menu) => activeMode(ctx, menu)));
  } catch (e) {
    if (e instanceof RelayError && e.code === 'SELECTOR_MISS') {
      return unseen(`${e.message}; the mode typeahead opens on the home page or a new thread`);
    }
    if (e instanceof RelayError && e.code === 'AGENT_ERROR') return unseen(e.message);
    throw e;
  }
}

function fromMenu(ctx: PageContext, mode: Mode | null): ModeRead {
  if (mode) return { mode, source: 'typeahead' };
  const where = ctx.doc.location.href;
  // A chip set reads its slash menu only when its chip was not found: that is what to name.
  return unseen(
    ctx.set.modeUi === 'chip'
      ? probeMiss(ctx.set, 'modeChip', where, { hint: 'nor a typeaheadActive row: no sign of plain search' }).message
      : `the slash menu on ${where} shows no mode this version knows`,
  );
}

async function setModeA(ctx: PageContext, mode: Mode): Promise<void> {
  await withTypeahead(ctx, async (menu) => {
    const current = activeMode(ctx, menu);
    if (current === mode) return;
    const rows = modeRows(ctx, menu);
    // Plain search has no row: choosing the active mode's row again switches it off.
    const row =
      mode === 'standard'
        ? rows.find((r) => first(r, ctx.set.typeaheadActive))
        : rows.find((r) => modeOf(r, ctx.set) === mode);
    if (!row) {
      throw probeMiss(ctx.set, 'typeaheadItem', ctx.doc.location.href, {
        within: ` for the mode "${mode}" (by icon in modeIcons or by word in labels) inside the open typeahead`,
        hint: 'the menu changed: `comet-relay doctor --page` shows what the page has',
      });
    }
    pointerClick(row);
    await ctx.waitFor(() => !typeaheadOpen(ctx), OPEN_MS);
  });
}

// ---------------------------------------------------------------- public

/** The mode control the page shows, probed in turn (the Aug 2026 page has a chip and a slash menu). */
type Control = { kind: 'chip' } | { kind: 'radio'; radios: Element[] } | { kind: 'typeahead' };

function controlOf(ctx: PageContext): Control {
  // A Computer toggle without a trigger is still this control: never the slash menu's typing.
  if (first(ctx.doc, ctx.set.modeChip) || first(ctx.doc, ctx.set.computerToggle)) return { kind: 'chip' };
  const radios = radiosOf(ctx);
  if (radios.length > 0) return { kind: 'radio', radios };
  return { kind: 'typeahead' };
}

/** The page's mode; `passive` only looks, and says `acts` where reading would open the mode menu or type "/". */
export async function getMode(ctx: PageContext, passive?: boolean): Promise<ModeRead> {
  const fromUrl = urlMode(ctx);
  if (fromUrl) return { mode: fromUrl, source: 'url' };
  const control = controlOf(ctx);
  if (control.kind === 'chip') return readModeB(ctx, passive);
  if (control.kind === 'radio') return readModeRadio(ctx, control.radios);
  return readModeA(ctx, passive);
}

export async function setMode(ctx: PageContext, mode: Mode): Promise<ModeSwitch> {
  const before = await getMode(ctx);
  if (before.mode === mode) return { mode, source: 'switched', previous: mode, changed: false, verified: true };
  if (before.source === 'url') {
    throw new RelayError(
      'AGENT_ERROR',
      `this page (${ctx.doc.location.href}) is a computer task; start a new thread on the Perplexity home page to switch modes`,
    );
  }
  const control = controlOf(ctx);
  if (control.kind === 'chip') await setModeB(ctx, mode);
  else if (control.kind === 'radio') await setModeRadio(ctx, control.radios, mode);
  else await setModeA(ctx, mode);
  const after = await getMode(ctx);
  // The page was not in `mode` (or did not say), and a switch was made: whether it took is `verified`.
  return { mode: after.mode ?? mode, source: 'switched', previous: before.mode, changed: true, verified: after.mode === mode };
}
