import type { ThreadAsset, ThreadFile, ThreadSource } from '../../protocol/threads/threads';
import type { SelectorSet } from '../../selectors';
import type { ThreadPageReader } from '../../selectors/thread-schema';
import type { PageContext } from '../dom/context';
import { cleanText, closest, first, isHidden, outermost, type Scope, union } from '../dom/dom';
import { absolute, attr, type Box, boxesOf, boxInteraction } from '../checkpoints/thread-boxes';
import { answerFooter, answerRoots, answersOf, indicators, readAnswer, readError, readQuestionNow, readSteps, statusOf, toolSteps } from '../answer/reader';
import { type Turn, turnCountOf, turnsOf } from '../dom/turns';
import { fromInlineCitations, fromLinks, mergeSources } from '../answer/sources';
import { renderText } from '../dom/text';
import type { CheckpointEvent, ThreadReading, TurnReading } from '../checkpoints/thread-model';

/**
 * Reads a Computer thread's state from the page: the selector set finds turns, steps and answers;
 * the page reader (lib/selectors/thread-page.ts) finds its sleep, its blocks and its files, and
 * what a task waits on (thread-boxes.ts, shared with what every page runs). Part of the threads
 * kit. Never clicks, types or scrolls: a background tab stays as it is.
 */

/** One file card of a turn: the asset it stands for, and the link it holds. */
export interface PageAsset {
  asset: ThreadAsset;
  url: string;
}

/**
 * The files a turn offers. A card's own id (the reader's assetId attributes) is the asset's id, the
 * same one the thread JSON gives, so a listed asset stays the same asset whichever source answers;
 * a card without one stands for its link.
 */
function cardsOf(turn: Turn, entryId: string, base: string, r: ThreadPageReader): PageAsset[] {
  return union(turn, r.asset).flatMap((card): PageAsset[] => {
    const link = first(card, r.assetLink);
    const url = absolute(link?.getAttribute('href'), base);
    if (!url) return [];
    const type = link?.getAttribute('type');
    return [
      {
        url,
        asset: {
          asset_id: attr(card, r.assetId) ?? url,
          entry_id: entryId,
          filename: link?.getAttribute('download') || cleanText(link) || 'file',
          mime_type: type || null,
          size_bytes: null,
          asset_type: 'file',
          created_at: 0,
          is_primary_asset: null,
          root_asset_id: attr(card, r.assetRootId) ?? null,
          parent_asset_id: attr(card, r.assetParentId) ?? null,
          published_url: null,
        },
      },
    ];
  });
}

function filesOf(turn: Turn, base: string, r: ThreadPageReader): ThreadFile[] {
  return cardsOf(turn, '', base, r).map(({ asset, url }) => ({ filename: asset.filename ?? 'file', media_type: asset.mime_type, size_bytes: null, url }));
}

/** Every file card of the thread's turns, in page order (entry ids are the turns' `turn-N`, N the page's own index). */
export function pageAssets(ctx: Pick<PageContext, 'doc' | 'set'>, r: ThreadPageReader): PageAsset[] {
  const base = ctx.doc.location?.href ?? '';
  return turnsOf(ctx.doc, ctx.set).flatMap((turn) => cardsOf(turn, `turn-${turn.index}`, base, r));
}

function domain(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

function sourcesOf(turn: Turn, set: SelectorSet, base: string): ThreadSource[] {
  // The answer blocks and wherever else the answer's words are (a Deep Research report's card beside its block), as
  // comet_get_sources reads them (review 13a, S1).
  const answers = outermost([...answersOf(turn), ...answerRoots(turn, set)]);
  const scope: Scope[] = answers.length > 0 ? answers : [turn];
  const merged = mergeSources(
    scope.flatMap((a) => fromInlineCitations(a, set, base)),
    fromLinks(scope, set, base),
  );
  return merged.filter((s) => s.url).map((s) => ({ title: s.title || null, url: s.url as string, domain: domain(s.url as string), snippet: null }));
}

/** A notice's words, one line per block, as one line ("Insufficient credits. Add credits…"). */
function noticeText(el: Element): string {
  return renderText(el, { skip: [], markdown: false })
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => (/[.!?:]$/.test(l) ? l : `${l}.`))
    .join(' ');
}

/**
 * Elements the reader knows by their words (`insufficientCreditsWords`): the scope's candidates in
 * order (an alert before any div), the first that has elements whose own text matches, the
 * innermost of those. An answer, a question or the composer quoting the words is not the notice:
 * their text is left out. One text read when the words are not there at all.
 */
function byWords(root: Turn | Element, probe: ThreadPageReader['insufficientCreditsWords'], set: SelectorSet): Element[] {
  if (!probe) return [];
  const re = new RegExp(probe.pattern, 'i');
  if (!re.test(cleanText(root))) return [];
  const quoting = [...set.prose, ...set.userBubble, '[contenteditable="true"]'];
  for (const selector of probe.scope) {
    const hits = union(root, [selector]).filter((el) => re.test(cleanText(el)) && !closest(el, quoting));
    const innermost = hits.filter((el) => !hits.some((o) => o !== el && el.contains(o)));
    // Only now the costlier read: a block around an answer that quotes the words is not the notice.
    const found = innermost.filter((el) => re.test(renderText(el, { skip: quoting, markdown: false }).replace(/\s+/g, ' ')));
    if (found.length > 0) return found;
  }
  return [];
}

/** The credits notices in `root`: by the reader's selectors, then by its words (each notice once). */
function creditsNotices(root: Turn | Element, r: ThreadPageReader, set: SelectorSet): Element[] {
  const marked = union(root, r.insufficientCredits);
  const worded = byWords(root, r.insufficientCreditsWords, set).filter((el) => !marked.some((m) => m.contains(el) || el.contains(m)));
  return [...marked, ...worded];
}

export interface TurnContext {
  /** The current (last) turn: the working indicators of the page are its own. */
  current: boolean;
  /** Our watcher or the page saw the user stop this turn. */
  stopped: boolean;
  /**
   * Classify only (what a wait does on every change): the answer is not rendered to Markdown
   * (its presence is enough), sources and files are not gathered.
   */
  light?: boolean;
}

function hasAnswerText(turn: Turn, set: SelectorSet): boolean {
  return outermost(union(turn, set.answer)).some((a) => (a.textContent ?? '').trim() !== '');
}

/** A rendered turn, read without touching it. */
export function readTurnDom(ctx: PageContext, r: ThreadPageReader, turn: Turn, index: number, tc: TurnContext): TurnReading {
  const { doc, set } = ctx;
  const base = doc.location?.href ?? '';
  const answer = tc.light ? '' : readAnswer(turn, set);
  const answered = tc.light ? hasAnswerText(turn, set) : answer.length > 0;
  const steps = readSteps(turn, set);
  const tools = toolSteps(turn, set);
  const boxes = boxesOf(turn, index, ctx, r);
  const optionalAuth = union(turn, r.optionalAuth)
    .filter((b) => !isHidden(b))
    .map((b) => boxInteraction(b, index, ctx, r, false));
  const ind = tc.current ? indicators(doc, set, turn) : { hasStopButton: false, hasLoadingSpinner: false };
  const credits = creditsNotices(turn, r, set).find((el) => !isHidden(el));
  const denied = first(turn, r.accessDenied);
  const sleeping = first(turn, r.sleeping);
  const waiting = first(turn, r.waiting);
  const error = readError(turn, set);

  let event: CheckpointEvent | null = null;
  let notice: string | undefined;
  let account: TurnReading['account'];
  let wakeAt: string | undefined;
  if (credits && !isHidden(credits)) {
    event = 'insufficient_credits';
    notice = noticeText(credits);
    const billing = absolute(first(credits, r.billingLink)?.getAttribute('href'), base);
    const reset = first(credits, r.quotaReset)?.getAttribute('datetime') ?? undefined;
    account = { reason: attr(credits, r.creditsReason) ?? 'insufficient_credits', ...(billing ? { billingUrl: billing } : {}), ...(reset ? { quotaResetDate: reset } : {}) };
  } else if (denied && !isHidden(denied)) {
    event = 'access_denied';
    notice = noticeText(denied);
    account = { reason: 'access_denied' };
  } else if (error) event = 'error';
  else if (tc.stopped || steps.stopped) event = 'cancelled';
  else if (boxes.length > 0) event = (boxes[0] as Box).interaction.type;
  else if (sleeping && !isHidden(sleeping)) {
    event = 'sleep';
    wakeAt = first(sleeping, r.wakeTime)?.getAttribute('datetime') ?? undefined;
    notice = cleanText(first(sleeping, r.sleepReason)) || undefined;
  } else if (waiting && !isHidden(waiting) && !ind.hasStopButton) {
    event = 'waiting';
    notice = noticeText(waiting);
  } else if (statusOf(ind, { hasAnswer: answered, stepsFinished: steps.finished }, tc.current ? answerFooter(turn, set) : null) === 'completed') {
    // comet_poll's rule: the current turn is done on its action row where the set names one, never because no stop
    // control shows (captures review 2026-12-05, H1); an earlier turn is done, a later question followed it.
    event = 'complete';
  }

  return {
    index,
    query: readQuestionNow(turn, set),
    event,
    answer,
    ...(error ? { errorMessage: error } : {}),
    ...(notice ? { notice } : {}),
    steps: tools.length > 0 ? tools : steps.steps,
    sources: tc.light ? [] : sourcesOf(turn, set, base),
    files: tc.light ? [] : filesOf(turn, base, r),
    ...(wakeAt ? { wakeAt } : {}),
    // Only when the turn waits on them: a credits block or an error outranks a box still drawn.
    interactions: event !== null && event === boxes[0]?.interaction.type ? boxes.map((b) => b.interaction) : [],
    optionalAuth,
    ...(account ? { account } : {}),
  };
}

/** The page says there is no such thread (a 404 page). */
export function pageSaysNotFound(doc: Document, r: ThreadPageReader): boolean {
  const re = new RegExp(r.notFound.pattern, 'i');
  return union(doc, r.notFound.scope).some((el) => re.test(cleanText(el)));
}

export function pageTitle(doc: Document, r: ThreadPageReader): string | undefined {
  const h = first(doc, r.title);
  const title = cleanText(h) || (doc.title ?? '').replace(/\s+[-–|]\s+Perplexity.*$/, '').trim();
  return title && title !== 'Perplexity' ? title : undefined;
}

/**
 * The thread as the page shows it. Turns that are virtualized placeholders read as what the
 * page holds of them (their query may be empty); the latest turn is always rendered. Each turn
 * carries the page's own index: a long thread keeps only its latest answers mounted, so the
 * mounted turns may be 5…9 of ten.
 */
export function readThreadDom(ctx: PageContext, r: ThreadPageReader, info: { threadId: string; stopped(index: number): boolean }): ThreadReading {
  const turns = turnsOf(ctx.doc, ctx.set);
  const readings = turns.map((el, i) => readTurnDom(ctx, r, el, el.index, { current: i === turns.length - 1, stopped: info.stopped(el.index) }));
  const title = pageTitle(ctx.doc, r);
  return {
    source: 'page',
    threadId: info.threadId,
    url: ctx.doc.location?.href ?? '',
    ...(title ? { title } : {}),
    turnCount: turnCountOf(turns),
    turns: readings,
    assets: pageAssets(ctx, r).map((a) => a.asset),
  };
}

/**
 * The page refused a message before sending it (the account's credit check, or no Computer):
 * an account notice outside every turn, near the composer.
 */
/**
 * The credits or access notice the page shows outside its turns. `earlier` tells a notice that was
 * already there (an earlier refusal, not this submit's) from a new one: it is skipped.
 */
export function refusalOf(
  ctx: Pick<PageContext, 'doc' | 'set'>,
  r: ThreadPageReader,
  earlier: (el: Element) => boolean = () => false,
): { event: 'insufficient_credits' | 'access_denied'; text: string; account: { reason: string; billingUrl?: string } } | undefined {
  const base = ctx.doc.location?.href ?? '';
  const turns = turnsOf(ctx.doc, ctx.set);
  const outside = (el: Element) => !isHidden(el) && !inTurn(el, turns) && !earlier(el);
  const credits = creditsNotices(ctx.doc.body, r, ctx.set).find(outside);
  if (credits) {
    const billingUrl = absolute(first(credits, r.billingLink)?.getAttribute('href'), base);
    return { event: 'insufficient_credits', text: noticeText(credits), account: { reason: attr(credits, r.creditsReason) ?? 'insufficient_credits', ...(billingUrl ? { billingUrl } : {}) } };
  }
  const denied = union(ctx.doc, r.accessDenied).find(outside);
  if (denied) return { event: 'access_denied', text: noticeText(denied), account: { reason: 'access_denied' } };
  return undefined;
}

/** Each credits or access notice showing outside the turns now, with its words (to tell a later one from it). */
export function refusalNotices(ctx: Pick<PageContext, 'doc' | 'set'>, r: ThreadPageReader): Map<Element, string> {
  const turns = turnsOf(ctx.doc, ctx.set);
  const showing = [...creditsNotices(ctx.doc.body, r, ctx.set), ...union(ctx.doc, r.accessDenied)].filter((el) => !isHidden(el) && !inTurn(el, turns));
  return new Map(showing.map((el) => [el, noticeText(el)]));
}

/**
 * Whether a notice belongs to a turn: inside any of the blocks the turn is assembled from (in the
 * Aug–Oct 2026 layout a task's own credits card is a sibling of its question block, not inside it).
 */
function inTurn(el: Element, turns: readonly Turn[]): boolean {
  return turns.some((t) => t.contains(el));
}
