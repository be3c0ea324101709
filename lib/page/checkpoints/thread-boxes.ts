import type { RelayError } from '../../protocol/error/relay-error';
import { derivedPromptId } from '../../protocol/threads/thread-replies';
import type { ThreadInteraction } from '../../protocol/watch';
import type { SelectorSet } from '../../selectors';
import type { BoxReader, ThreadPageReader } from '../../selectors/thread-schema';
import type { PageContext } from '../dom/context';
import { all, candidatesMiss, cleanText, first, isHidden, type MissDetail, matches, outermost, spokenText, union } from '../dom/dom';
import { type Interaction, toWatched } from './thread-model';
import { type Turn, turnsOf } from '../dom/turns';

/**
 * The boxes a task (or a Deep Research answer asking first) waits on in a turn — questions,
 * confirmations, sign-ins, two-factor prompts, forms — found by the thread page reader
 * (lib/selectors/thread-page.ts) and the selector set's interaction* candidates. Part of what every
 * page runs (comet_wait and the side panel report them); the rest of a thread's reading is in
 * thread-dom-reader.ts, loaded only in thread tabs. Never clicks, types or scrolls.
 */

/** FNV-1a, 32 bits, hex: a short, stable id for a box the page gives no id. */
export function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

export function attr(el: Element, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = el.getAttribute(name);
    if (v) return v;
  }
  return undefined;
}

export function absolute(href: string | null | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    return new URL(href, base).href;
  } catch {
    return undefined;
  }
}

export interface Box {
  interaction: Interaction;
  box: Element;
}

const BOX_KINDS = ['ask_user_question', 'confirm_action', 'auth_required', 'two_factor_required', 'interaction_required'] as const;

/** The kind a box stands for: the reader's own candidates first, then what it holds (older markup). */
function kindOf(box: Element, set: SelectorSet, r: BoxReader): Interaction['type'] {
  for (const kind of BOX_KINDS) if (matches(box, r.boxes[kind])) return kind;
  if (first(box, set.interactionApprove)) return 'confirm_action';
  if (first(box, set.interactionField) || first(box, set.interactionOption)) return 'ask_user_question';
  return 'interaction_required';
}

function questionsOf(box: Element, promptText: string, fallbackId: string, set: SelectorSet, r: BoxReader) {
  const choices = (root: Element) => union(root, r.questionChoice).map((o) => cleanText(o)).filter(Boolean);
  const groups = all(box, r.question).filter((q) => first(q, r.questionText));
  if (groups.length > 0) {
    return groups.map((q) => {
      const text = cleanText(first(q, r.questionText));
      const options = choices(q);
      return { id: attr(q, r.questionId) ?? `${fallbackId}-q${hash(text)}`, text, ...(options.length ? { options } : {}) };
    });
  }
  const options = [...new Set([...choices(box), ...all(box, set.interactionOption).map((o) => cleanText(o)).filter(Boolean)])];
  return [{ id: attr(box, r.questionId) ?? `${fallbackId}-q`, text: promptText, ...(options.length ? { options } : {}) }];
}

/** One box inside a turn, as an interaction; `index` is the turn's, for derived ids. */
export function boxInteraction(
  box: Element,
  index: number,
  ctx: Pick<PageContext, 'doc' | 'set'>,
  r: BoxReader,
  required = true,
  sameWordsBefore: (derived: string) => number = () => 0,
): Interaction {
  const { set } = ctx;
  const base = ctx.doc.location?.href ?? '';
  const type = required ? kindOf(box, set, r) : 'auth_required';
  const promptEl = first(box, r.boxPrompt) ?? first(box, set.interactionPrompt);
  const text = promptEl ? cleanText(promptEl) : spokenText(box, true);
  const plain = derivedPromptId(index, type, hash(text), 0);
  const followupUuid = attr(box, r.boxId) ?? derivedPromptId(index, type, hash(text), sameWordsBefore(plain));
  const expiresAt = attr(box, r.expiresAt);
  const out: Interaction = { type, followupUuid, text, ...(expiresAt ? { expiresAt } : {}), requiresUserResponse: required };
  if (type === 'ask_user_question') {
    out.questions = questionsOf(box, text, followupUuid, set, r);
  } else if (type === 'auth_required') {
    const link = first(box, r.authLink);
    const connector = attr(box, r.connectorId);
    const description = cleanText(first(box, r.authDescription));
    const name = cleanText(link).replace(/^Connect\s+/i, '');
    const authUrl = absolute(link?.getAttribute('href'), base);
    Object.assign(out, {
      ...(connector ? { connector } : {}),
      ...(name ? { displayName: name } : {}),
      title: text,
      ...(description ? { description } : {}),
      ...(authUrl ? { authUrl } : {}),
    });
  } else if (type === 'interaction_required') {
    const link = first(box, r.formLink);
    const url = absolute(link?.getAttribute('href'), base);
    const title = cleanText(link).replace(/^Open\s+/i, '');
    Object.assign(out, { ...(url ? { url } : {}), ...(title ? { title } : {}) });
  }
  return out;
}

/** Boxes of a turn the task waits on, in page order (hidden ones left out). */
export function boxesOf(turn: Turn, index: number, ctx: Pick<PageContext, 'doc' | 'set'>, r: BoxReader): Box[] {
  const candidates = [...BOX_KINDS.flatMap((k) => r.boxes[k]), ...ctx.set.interactionBox];
  const before = sameWords();
  return outermost(union(turn, candidates))
    .filter((box) => !isHidden(box) && !matches(box, r.optionalAuth))
    .map((box) => ({ box, interaction: boxInteraction(box, index, ctx, r, true, before) }));
}

/** Counts, per derived id, the boxes of this turn before this one with the same type and words. */
function sameWords(): (derived: string) => number {
  const seen = new Map<string, number>();
  return (derived) => {
    const n = seen.get(derived) ?? 0;
    seen.set(derived, n + 1);
    return n;
  };
}

/** The thread page reader's controls an action needs (lists of CSS candidates, so they can miss). */
export type ReaderProbe = 'settingsButton' | 'fileInput' | 'projectVisibility' | 'questionsSubmit' | 'authDone';

/** SELECTOR_MISS for a field of the thread page reader, naming it, its candidates, the page and the reader. */
export function readerMiss(r: ThreadPageReader, key: ReaderProbe, url: string, detail: MissDetail = {}): RelayError {
  return candidatesMiss(key, r[key], url, { ...detail, after: `${detail.after ?? ''} (thread page reader ${r.name})` });
}

export interface PendingInteraction {
  interaction: ThreadInteraction;
  box: Box;
}

/**
 * What the current (last) turn waits on, in page order, as the side panel and comet_wait show it.
 * The id is the page's own when it has one; otherwise it is derived from the turn's index, the kind
 * and a hash of the prompt, so it stays the same for as long as the question is shown.
 */
export function pendingInteractions(doc: Document, set: SelectorSet, r: BoxReader, known?: readonly Turn[]): PendingInteraction[] {
  // The page's own index (as the thread readers use it), so a derived id is the same from both.
  const turn = (known ?? turnsOf(doc, set)).at(-1);
  if (!turn) return [];
  return boxesOf(turn, turn.index, { doc, set }, r).map((box) => ({ interaction: toWatched(box.interaction), box }));
}
