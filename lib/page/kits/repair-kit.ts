import { isConversationPath, pageKindOf } from '../../protocol/urls';
import { SELECTOR_SET_KIND } from '../../protocol/ports';
import type { SelectorSet } from '../../selectors';
import { turnsOf } from '../dom/turns';
import type { PageDriver } from '../driver';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { deriveRepair, type Derived, type JsonTurn } from './repair-derive';

/**
 * The repair kit (lib/protocol/page/page-kits.ts; issue 24): loaded into a tab whose reader missed
 * on a conversation page. Asked without turns, it says whether the reader misses here and whether a
 * repair is due (one per page load and layout); asked with the thread JSON's finished turns, it
 * derives and verifies a set (repair-derive.ts) and puts it in use for reading that URL only.
 * Types and shapes mirror lib/protocol/page/page-repair.ts, which this bundle does not import (zod).
 */

export interface RepairInfo {
  name: string;
  origin: string;
  url: string;
  derivedAt: string;
  replaced: Record<string, string>;
  base: string;
  turns: number[];
  pack: { kind: string; comment: string; set: SelectorSet };
}

export interface RepairOutcome {
  status: 'miss' | 'fine' | 'tried' | 'repaired' | 'failed';
  url?: string;
  probe?: string;
  reason?: string;
  repair?: RepairInfo;
}

/** The one line every tool result read through a repair carries. */
export function repairNotice(info: Pick<RepairInfo, 'origin' | 'replaced'>): string {
  return `Read through a repair: selectors for ${Object.keys(info.replaced).join(', ')} ${info.origin}; the side panel can undo it or export it as a pack.`;
}

const NOTHING = ':not(*)';

/** How long a conversation page with no turn is given to draw one before the reader's miss counts. */
export const SETTLE_MS = 2000;

/**
 * The derived set as the reader uses it: every control a read might click (steps and question
 * toggles, grouped citations, popovers, the Sources tab) matches nothing, since nothing that clicks
 * may go by a derived selector. The exported pack keeps the base set's controls.
 */
export function readingOnly(set: SelectorSet): SelectorSet {
  return {
    ...set,
    stepsToggle: [NOTHING],
    queryExpand: [NOTHING],
    citationBadge: [NOTHING],
    citationPopover: [NOTHING],
    sourcesTab: [NOTHING],
    citationGroupPattern: '(?!)',
  };
}

/**
 * What tells one layout from another: the hooks the page uses (data attributes, and class tokens
 * that name a group). A page that loads its turns, or is redrawn another way, gets a new attempt;
 * the same page asked again does not.
 */
export function layoutKey(doc: Document): string {
  const hooks = new Set<string>();
  for (const el of Array.from(doc.body?.querySelectorAll('*') ?? [])) {
    for (const { name, value } of Array.from(el.attributes)) {
      if (name.startsWith('data-')) hooks.add(name);
      else if (name === 'class') for (const token of value.split(/\s+/)) if (token.includes('/')) hooks.add(token);
    }
  }
  return `${doc.location?.href ?? ''}\n${[...hooks].sort().join(' ')}`;
}

/** `YYYY-MM-DD` and the set's name: `gen-<generation>-<year>-<month>-derived`, as the set schema asks. */
function derivedName(base: SelectorSet, now: Date): string {
  const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  return `gen-${base.generation.toLowerCase()}-${month}-derived`;
}

/** The repair as the panel, `doctor --page` and the exported pack describe it. */
export function describeRepair(derived: Derived, base: SelectorSet, url: string, now: Date): RepairInfo {
  const date = now.toISOString().slice(0, 10);
  const origin = `derived on ${date} from ${url} against its thread JSON`;
  const replaced: Record<string, string> = { ...derived.replaced };
  if (derived.citationUrlAttr) replaced.citationUrlAttr = derived.citationUrlAttr;
  return {
    name: derived.set.name,
    origin,
    url,
    derivedAt: now.toISOString(),
    replaced,
    base: base.name,
    turns: derived.turns,
    // The pack is made to be shared: it says what kind of page it came from, never whose thread (#16).
    pack: { kind: SELECTOR_SET_KIND, comment: `derived on ${date} from ${pageKindOf(url)} against its thread JSON (base ${base.name}; replaced ${Object.keys(replaced).join(', ')})`, set: derived.set },
  };
}

/** The reader's miss on this page, if any: a conversation page on which it finds no turn. */
function missOf(driver: PageDriver, doc: Document): string | null {
  if (!isConversationPath(doc.location?.pathname ?? '')) return null;
  return turnsOf(doc, driver.readingContext().set).length === 0 ? 'turn' : null;
}

export function repairKit({ win, driver }: PageKitHost): KitHandlers {
  /** Attempts by page load (this kit lives as long as the document) and layout: their outcome. */
  const attempts = new Map<string, RepairOutcome>();
  let inUse: RepairInfo | null = null;
  const current = () => (inUse && driver().repairInUse() ? inUse : null);

  const repair = async (params: { turns?: JsonTurn[]; probe?: string }): Promise<RepairOutcome> => {
    const doc = win.document;
    const here = current();
    if (here) return { status: 'repaired', repair: here };
    if (!params.turns && missOf(driver(), doc)) {
      // A conversation page drawing its turns (just opened) is not a changed page: give it a moment to show one.
      await driver()
        .readingContext()
        .waitFor(() => !missOf(driver(), doc), SETTLE_MS);
    }
    const key = layoutKey(doc);
    const before = attempts.get(key);
    // `tried` names the probe the reader misses, and why the repair failed (with the probe that failed it).
    const tried = (probe: string, outcome: RepairOutcome): RepairOutcome => ({ status: 'tried', probe, reason: `${outcome.probe}: ${outcome.reason}` });
    if (!params.turns) {
      // A turn the wait above saw drawn is no miss, whatever the poll before it showed: nothing to repair.
      const probe = missOf(driver(), doc) ?? (params.probe === 'turn' ? null : params.probe) ?? null;
      if (!probe) return { status: 'fine' };
      if (before) return tried(probe, before);
      return { status: 'miss', probe };
    }
    if (before) return tried(params.probe ?? 'turn', before);
    const base = driver().context().set;
    const now = new Date();
    const url = doc.location?.href ?? '';
    const outcome = deriveRepair(doc, base, params.turns, derivedName(base, now));
    if (!outcome.ok) {
      const failed: RepairOutcome = { status: 'failed', probe: outcome.probe, reason: outcome.reason };
      attempts.set(key, failed);
      return failed;
    }
    const info = describeRepair(outcome.derived, base, url, now);
    attempts.set(key, { status: 'repaired', repair: info });
    inUse = info;
    driver().useRepair({ set: readingOnly(outcome.derived.set), url, notice: repairNotice(info) });
    return { status: 'repaired', repair: info };
  };

  return {
    'page.repair': async (params: { turns?: JsonTurn[]; probe?: string }) =>
      driver().run('repairing the reader', async () => ({ ...(await repair(params)), url: win.document.location?.href ?? '' })),
    'page.repairState': async () => ({ repair: current() }),
    'page.repairUndo': async () => {
      const undone = current() !== null;
      driver().useRepair(null);
      if (inUse) attempts.set(layoutKey(win.document), { status: 'failed', probe: 'turn', reason: `the repair ${inUse.origin} was undone in the side panel` });
      inUse = null;
      return { undone };
    },
  };
}
