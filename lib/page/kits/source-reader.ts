import { RelayError } from '../../protocol/error/relay-error';
import { expandCitations } from '../answer/citations';
import { cutContent, wholePageContent } from '../answer/content';
import type { PageContext } from '../dom/context';
import type { PageDriver } from '../driver';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { all, cleanText, isHidden, pointerClick, type Scope, union } from '../dom/dom';
import { answerRoots, requireTurns } from '../answer/reader';
import { type Turn, turnNow, turnsOf } from '../dom/turns';
import { fromEntries, fromInlineCitations, fromLinks, mergeNumbered, type Source } from '../answer/sources';
import type { SelectorSet } from '../../selectors';
import { regexLiteral } from '../../selectors/language/placeholders';
import { sameConversation } from '../../protocol/threads/thread-ids';
import { THREAD_PAGE_READER_KIND } from '../../selectors/reader-shelf';
import { REPORT_CARD_2026 } from '../../selectors/thread-page';
import type { ThreadPageReader } from '../../selectors/thread-schema';
import { reportCardOf } from '../answer/report-card';

export interface SourcesResult {
  sources: Source[];
  /** Grouped citations seen / popovers opened and read. */
  grouped: number;
  expanded: number;
  /** The Sources tab panel was read. */
  fromTab: boolean;
  /** How many sources the page says the turn has ("15 sources"), when it says so: more than `sources` means a part. */
  stated?: number;
}

/**
 * The number of sources the page states for the turn: a button of its action row (the set's answerFooter) reading
 * "<n> <the Sources tab's word>", "15 sources" on the Sep 2026 page (`search-thread-several-turns-…-2026-09-26.html`)
 * while the answer's chips name only the sources its text cites (captures review 2026-12-05, M1). None when the page
 * states none. Its words are the set's; the shape is here, kept out of the set for the page script's budget.
 */
function statedCount(turn: Turn | undefined, set: SelectorSet): number | undefined {
  if (!turn || !set.answerFooter) return undefined;
  const words = Object.values(set.labels).flatMap((language) => language.words.sourcesTab ?? []);
  const said = new RegExp(`^(\\d+)\\s+(?:${words.map(regexLiteral).join('|')})$`, 'i');
  for (const row of union(turn, set.answerFooter)) {
    for (const button of all(row, ['button'])) {
      const n = said.exec(cleanText(button))?.[1];
      if (n) return Number(n);
    }
  }
  return undefined;
}

/** Every turn has its own tab list: search the current turn first, the page only if it has none. */
function sourcesTab(ctx: PageContext, turn: Turn | undefined): Element | null {
  const re = new RegExp(ctx.set.sourcesTabPattern, 'i');
  const inTurn = turn ? union(turn, ctx.set.sourcesTab).find((t) => re.test(cleanText(t))) : undefined;
  return inTurn ?? union(ctx.doc, ctx.set.sourcesTab).find((t) => re.test(cleanText(t))) ?? null;
}

/** The panel the tab names: its own turn's first, as the February layout gave every turn's panel one id (a capture of 2026-02-27). */
function panelFor(ctx: PageContext, tab: Element, turn: Turn | undefined): Element | null {
  const id = tab.getAttribute('aria-controls');
  const byId = id ? ([...(turn?.querySelectorAll('[id]') ?? [])].find((e) => e.id === id) ?? ctx.doc.getElementById(id)) : null;
  if (byId && !isHidden(byId)) return byId;
  const tabId = tab.id;
  return (
    all(ctx.doc, ctx.set.sourcesPanel).find((p) => !isHidden(p) && tabId !== '' && p.getAttribute('aria-labelledby') === tabId) ?? null
  );
}

const hasLinks = (ctx: PageContext, panel: Element | null): panel is Element => panel !== null && all(panel, ctx.set.link).length > 0;

/**
 * Shown panels with links that are not the answer's own panel: where a tab's content is when the
 * page does not say which panel belongs to which tab. The turn's own panels first, then the page's.
 */
function panelsWithSources(ctx: PageContext, turn: Turn | undefined): Element[] {
  const scopes: Scope[] = turn ? [turn, ctx.doc] : [ctx.doc];
  for (const scope of scopes) {
    const found = union(scope, ctx.set.sourcesPanel).filter((p) => !isHidden(p) && hasLinks(ctx, p) && union(p, ctx.set.answer).length === 0);
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * Reads the Sources tab. If its panel is not rendered, selects the tab, reads, and selects the
 * tab that was active before, so the user's view is left as it was. The panel is the one the tab
 * names (aria-controls / aria-labelledby) or, when the page links none, the one that appears on
 * the click.
 */
async function readSourcesTab(ctx: PageContext, turn: Turn | undefined, openTab: boolean): Promise<Source[] | null> {
  const tab = sourcesTab(ctx, turn);
  if (!tab) return null;
  const base = ctx.doc.location.href;
  const selected = tab.getAttribute('aria-selected') === 'true';
  const rendered = panelFor(ctx, tab, turn) ?? (selected ? (panelsWithSources(ctx, turn)[0] ?? null) : null);
  if (hasLinks(ctx, rendered)) return fromEntries(rendered, ctx.set, base);
  if (!openTab) return null;
  const tabList = tab.parentElement ?? turn ?? ctx.doc; // the tab's own tab list
  const previous = union(tabList, ctx.set.sourcesTab).find((t) => t.getAttribute('aria-selected') === 'true') ?? null;
  const before = new Set(panelsWithSources(ctx, turn));
  pointerClick(tab);
  const panel = await ctx.waitFor(() => {
    const named = panelFor(ctx, tab, turn);
    if (hasLinks(ctx, named)) return named;
    return panelsWithSources(ctx, turn).find((p) => !before.has(p)) ?? null;
  }, 1500);
  const found = panel ? fromEntries(panel, ctx.set, base) : null;
  if (previous && previous !== tab && previous.isConnected) pointerClick(previous);
  return found;
}

export async function readSources(ctx: PageContext, opts: { expand?: boolean; openTab?: boolean } = {}): Promise<SourcesResult> {
  const { doc, set } = ctx;
  const base = doc.location.href;
  requireTurns(doc, set);
  const turn = turnsOf(doc, set).at(-1);
  // Where the answer's words are (a Deep Research report's card too), as comet_poll reads them.
  const roots = turn ? answerRoots(turn, set) : [];
  const scope: Scope[] = roots.length > 0 ? roots : turn ? [turn] : [];
  const inline = scope.flatMap((a) => fromInlineCitations(a, set, base));
  const links = fromLinks(scope, set, base);
  // After each await, the turn as the page has it now (review 12a, #4: the row that states the count may be new), in the
  // conversation it was in: the person may open another meanwhile, whose turn at that place is not this one (13d, 4).
  const moved = () => {
    if (sameConversation(base, doc.location.href)) return;
    throw new RelayError(
      'AGENT_ERROR',
      `The Perplexity tab left the conversation whose sources were being read (it was ${base}, it is now ${doc.location.href}); nothing of that page is returned. Call comet_get_sources again once it shows the answer.`,
    );
  };
  const expansion = opts.expand === false ? { sources: [], grouped: 0, expanded: 0 } : await expandCitations(ctx);
  moved();
  const tab = await readSourcesTab(ctx, turn && turnNow(doc, set, turn), opts.openTab !== false);
  moved();
  const stated = statedCount(turn && turnNow(doc, set, turn), set);
  return {
    // The Sources tab's order is the page's numbering, the one the answer's [n] counts: it leads.
    // Without the tab, the citations' order of appearance is all there is.
    sources: mergeNumbered(tab ?? [], inline, links, expansion.sources),
    grouped: expansion.grouped,
    expanded: expansion.expanded,
    fromTab: tab !== null,
    ...(stated === undefined ? {} : { stated }),
  };
}

/**
 * The last turn's sources from its own ask stream (issue 30): the final frame's `web_results`, in the order the
 * answer numbers them, once that stream has ended whole; null otherwise (the page is read). A poll finds the turn.
 */
async function streamSources(driver: PageDriver): Promise<(SourcesResult & { answerSource: 'stream' }) | null> {
  const streams = driver.streams();
  if (!streams) return null;
  // The last turn's own stream, bound as comet_poll binds it (its question, the thread in the URL).
  const last = await driver.poll();
  const s = last.lastTurnIndex < 0 ? null : streams.forQuestion(last.questionText, 0, last.url);
  if (!s?.readable() || (s.state() !== 'completed' && s.state() !== 'stopped')) return null;
  const sources = s.sources();
  return sources.length ? { sources, grouped: 0, expanded: 0, fromTab: false, answerSource: 'stream' } : null;
}

/** comet_get_sources through the page's driver (its selector set, its error shaping). */
export function sourcesThrough(driver: PageDriver, params: { expand?: boolean; openTab?: boolean } = {}): Promise<SourcesResult & { repair?: string; answerSource?: 'stream' }> {
  return driver.run('reading sources', async () => {
    const streamed = await streamSources(driver);
    if (streamed) return streamed;
    const repair = driver.repairInUse();
    if (!repair) return readSources(driver.context(), params);
    // Through a repair, reading only: no citation is opened and no tab clicked by a derived selector.
    return { ...(await readSources(driver.readingContext(), { expand: false, openTab: false })), repair: repair.notice };
  });
}

/**
 * The sources kit (lib/protocol/page/page-kits.ts): `page.sources`, `page.content` (comet_get_page_content, the
 * page's whole visible text) and `page.report`, loaded into a tab the first time one is asked.
 */
export function sourcesKit({ driver, readers }: PageKitHost): KitHandlers {
  return {
    /**
     * A turn's Deep Research report card (comet_wait names the report beside the summary it returns): the turn the
     * wait returned, on the conversation it was read on; none while the tab shows another.
     */
    'page.report': async ({ turnIndex, url }: { turnIndex: number; url: string }) => {
      const ctx = driver().context();
      const here = ctx.doc.location.href;
      const turn = sameConversation(here, url) ? turnsOf(ctx.doc, ctx.set).find((t) => t.index === turnIndex) : undefined;
      // The reader in use: an added one as it is (without the probe, none is asked), else the built-in's probe.
      const inUse = readers.pick<ThreadPageReader | undefined>(THREAD_PAGE_READER_KIND, undefined).reader;
      const probe = inUse ? inUse.reportCard : REPORT_CARD_2026;
      return { card: turn ? reportCardOf(turn, probe, ctx.set) : null, url: here };
    },
    'page.sources': async (params: { expand?: boolean; openTab?: boolean }) => sourcesThrough(driver(), params),
    'page.content': async ({ maxLength, library = true }: { maxLength?: number; library?: boolean }) => {
      const d = driver();
      return d.run('reading the page', async () => cutContent(await d.readKept(library ? 'content' : 'content-own', () => wholePageContent(d.context(), library)), maxLength));
    },
  };
}
