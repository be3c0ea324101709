import type { SelectorSet } from '../../selectors/schema';
import type { ThreadPageReader } from '../../selectors/thread-schema';
import { cleanText, closest, union } from '../dom/dom';
import type { Turn } from '../dom/turns';

/**
 * Deep Research's report card on a turn (the thread page reader's `reportCard`, lib/selectors/thread-page.ts): since
 * about 2026-08-20 the answer a Deep Research turn streams and shows is a summary, and the report is a separate
 * document behind a card above it, whose body is not in the page until the person opens it. Known by its label's
 * words alone; the card's other words are the report's title. Null when the reader has no such probe or the turn
 * shows no such label: no card seen is no word on whether there is one.
 */
export interface ReportCard {
  /** The card's words beside its label (the report's title), "" when it has none or too many to be one. */
  title: string;
}

/** Longer than this, the words around the label are more than a card's title. */
const TITLE_MAX = 300;

export function reportCardOf(turn: Turn, probe: ThreadPageReader['reportCard'], set: SelectorSet): ReportCard | null {
  if (!probe) return null;
  const pattern = new RegExp(probe.pattern, 'i');
  // The person's question, or the answer, reading those words is no card.
  const quoting = [...set.prose, ...set.userBubble, '[contenteditable="true"]'];
  const holdsWords = (el: Element) => (turn.question !== null && (turn.question.contains(el) || el.contains(turn.question))) || closest(el, quoting) !== null || union(el, set.prose).length > 0;
  const label = union(turn, probe.scope).find((el) => pattern.test(cleanText(el)) && !holdsWords(el));
  if (!label) return null;
  const words = cleanText(label);
  // The card: the nearest of the label's ancestors (three at most, short of the turn's blocks and of anything holding
  // the question or the answer) with words beside the label.
  let title = '';
  for (let up = label.parentElement, i = 0; up && !title && i < 3 && !turn.blocks.includes(up) && !holdsWords(up); up = up.parentElement, i++) {
    title = cleanText(up).replace(words, ' ').replace(/\s+/g, ' ').trim();
  }
  return { title: title.length <= TITLE_MAX ? title : '' };
}
