import { RelayError } from '../protocol/errors';
import { isComputerPath } from '../protocol/urls';
import type { Mode, SelectorSet } from '../selectors';
import { modeWords } from '../selectors/labels';
import { composerOf, composerText, typeInto } from './composer';
import type { PageContext } from './context';
import { all, cleanText, first, iconsIn, isHidden, matches, pointerClick, probeMiss, pressKey } from './dom';

/**
 * Reading and switching the mode on both generations without ever navigating away.
 * Modes are recognised by icon first (locale-independent, exact match so that
 * `#pplx-icon-custom-computer` is `create`, not `computer`), then by the mode names of the set's
 * labels, in any of its languages.
 */

export type ModeSource = 'url' | 'toggle' | 'chip' | 'menu' | 'pill' | 'typeahead' | 'unavailable';

export interface ModeRead {
  mode: Mode | null;
  source: ModeSource;
  /** Why the mode could not be read, when mode is null. */
  detail?: string;
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
  const label = cleanText(el);
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

function isOn(el: Element): boolean {
  return (
    el.getAttribute('aria-pressed') === 'true' ||
    el.getAttribute('aria-checked') === 'true' ||
    ['on', 'checked', 'active'].includes(el.getAttribute('data-state') ?? '')
  );
}

// ---------------------------------------------------------------- generation B: chip + menu

function chipOf(ctx: PageContext): HTMLElement {
  const chip = first(ctx.doc, ctx.set.modeChip);
  if (!chip) throw probeMiss(ctx.set, 'modeChip', ctx.doc.location.href);
  return chip as HTMLElement;
}

function openMenuOf(ctx: PageContext, chip: Element): Element | null {
  const id = chip.getAttribute('aria-controls');
  const byId = id ? ctx.doc.getElementById(id) : null;
  if (byId && !isHidden(byId) && all(byId, ctx.set.modeMenuItem).length > 0) return byId;
  return all(ctx.doc, ctx.set.modeMenu).find((m) => !isHidden(m) && all(m, ctx.set.modeMenuItem).length > 0) ?? null;
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

async function readModeB(ctx: PageContext): Promise<ModeRead> {
  const toggle = first(ctx.doc, ctx.set.computerToggle);
  if (toggle && isOn(toggle)) return { mode: 'computer', source: 'toggle' };
  const chip = first(ctx.doc, ctx.set.modeChip) as HTMLElement | null;
  if (!chip) return unavailable(ctx);
  const open = openMenuOf(ctx, chip);
  const item = open ? checkedItem(ctx, open) : null;
  if (item) return { mode: modeOf(item, ctx.set), source: 'menu' };
  const fromChip = modeOf(chip, ctx.set);
  if (fromChip) return { mode: fromChip, source: 'chip' };
  // An unknown label (another locale): the menu's checked item carries the icon.
  const menu = await openChipMenu(ctx, chip);
  const checked = checkedItem(ctx, menu);
  await closeChipMenu(ctx, chip);
  return checked
    ? { mode: modeOf(checked, ctx.set), source: 'menu' }
    : { mode: null, source: 'unavailable', detail: 'the mode menu has no checked item' };
}

async function setModeB(ctx: PageContext, mode: Mode): Promise<void> {
  const toggle = first(ctx.doc, ctx.set.computerToggle) as HTMLElement | null;
  if (mode === 'computer') {
    if (!toggle) throw probeMiss(ctx.set, 'computerToggle', ctx.doc.location.href);
    if (!isOn(toggle)) {
      pointerClick(toggle);
      await ctx.waitFor(() => isOn(toggle), OPEN_MS);
    }
    return;
  }
  if (toggle && isOn(toggle)) {
    pointerClick(toggle);
    await ctx.waitFor(() => !isOn(toggle), OPEN_MS);
  }
  const chip = chipOf(ctx);
  if (modeOf(chip, ctx.set) === mode) return;
  const menu = await openChipMenu(ctx, chip);
  const item = all(menu, ctx.set.modeMenuItem).find((i) => modeOf(i, ctx.set) === mode);
  if (!item) {
    await closeChipMenu(ctx, chip);
    throw probeMiss(ctx.set, 'modeMenuItem', ctx.doc.location.href, {
      within: ` for the mode "${mode}" (by icon in modeIcons or by word in labels) inside the open mode menu`,
      hint: 'the menu changed: `comet-relay doctor --page` shows what the page has',
    });
  }
  pointerClick(item);
  await ctx.waitFor(() => !openMenuOf(ctx, chip) || modeOf(chipOf(ctx), ctx.set) === mode, OPEN_MS);
  await closeChipMenu(ctx, chip);
}

// ---------------------------------------------------------------- generation A: slash typeahead

function typeaheadOpen(ctx: PageContext): Element | null {
  return all(ctx.doc, ctx.set.typeahead).find((t) => !isHidden(t)) ?? null;
}

function modeRows(ctx: PageContext, menu: Element): Element[] {
  return all(menu, ctx.set.typeaheadItem).filter((row) => !matches(row, ctx.set.typeaheadShortcut));
}

function activeMode(ctx: PageContext, menu: Element): Mode {
  const active = modeRows(ctx, menu).find((row) => first(row, ctx.set.typeaheadActive));
  // No active row = no mode chosen = plain search.
  return active ? (modeOf(active, ctx.set) ?? 'standard') : 'standard';
}

/**
 * Opens the typeahead by typing "/" in the composer, runs `use`, then closes it and puts back
 * whatever the composer held before (a user's draft survives).
 */
async function withTypeahead<T>(ctx: PageContext, use: (menu: Element) => Promise<T> | T): Promise<T> {
  const composer = composerOf(ctx);
  // Compared trimmed: an empty Lexical editor reads as "\n", and typing that back adds paragraphs.
  const draft = composerText(composer).trim();
  const restore = async () => {
    if (typeaheadOpen(ctx)) {
      pressKey(composer, 'Escape');
      await ctx.waitFor(() => !typeaheadOpen(ctx), 500);
    }
    if (composer.isConnected && composerText(composer).trim() !== draft) typeInto(ctx, composer, draft);
  };
  try {
    let menu = typeaheadOpen(ctx);
    for (let attempt = 0; !menu && attempt < 3; attempt++) {
      typeInto(ctx, composer, '');
      typeInto(ctx, composer, '/');
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
  return {
    mode: null,
    source: 'unavailable',
    detail: `this page (${ctx.doc.location.href}) has no composer, and reading the mode here would mean navigating away; open the Perplexity home page to read it`,
  };
}

/** Generation A names the chosen mode in a pill beside the composer; no pill is plain search. */
export function pillMode(doc: Document, set: SelectorSet): Mode | null {
  const pill = first(doc, set.modePill);
  return pill ? modeOf(pill, set) : 'standard';
}

/**
 * Reading is not acting: the mode comes from what the page shows (the open typeahead, the pill).
 * Only a pill it cannot name sends it to the typeahead, which means typing "/": then only into an
 * empty composer, which is emptied again afterwards: a draft is never touched.
 */
async function readModeA(ctx: PageContext): Promise<ModeRead> {
  const open = typeaheadOpen(ctx);
  if (open) return { mode: activeMode(ctx, open), source: 'typeahead' };
  const composer = first(ctx.doc, ctx.set.composer);
  if (!composer) return unavailable(ctx);
  const shown = pillMode(ctx.doc, ctx.set);
  if (shown) return { mode: shown, source: 'pill' };
  if (composerText(composer).trim() !== '') {
    return {
      mode: null,
      source: 'unavailable',
      detail: `the mode pill on ${ctx.doc.location.href} is not one this version knows, and the composer holds text; reading the mode from the slash menu would mean typing into it, so it was not read`,
    };
  }
  try {
    return { mode: await withTypeahead(ctx, (menu) => activeMode(ctx, menu)), source: 'typeahead' };
  } catch (e) {
    if (e instanceof RelayError && e.code === 'SELECTOR_MISS') {
      return { mode: null, source: 'unavailable', detail: `${e.message}; the mode typeahead opens on the home page or a new thread` };
    }
    throw e;
  }
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

export async function getMode(ctx: PageContext): Promise<ModeRead> {
  const fromUrl = urlMode(ctx);
  if (fromUrl) return { mode: fromUrl, source: 'url' };
  return ctx.set.modeUi === 'chip' ? readModeB(ctx) : readModeA(ctx);
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
  if (ctx.set.modeUi === 'chip') await setModeB(ctx, mode);
  else await setModeA(ctx, mode);
  const after = await getMode(ctx);
  return {
    mode: after.mode ?? mode,
    source: 'switched',
    previous: before.mode,
    changed: after.mode !== before.mode,
    verified: after.mode === mode,
  };
}
