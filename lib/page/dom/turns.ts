import type { SelectorSet } from '../../selectors';
import { closest, outermost, sortInDocumentOrder, union } from './dom';

/**
 * A turn of the open thread, assembled from the blocks the page has. Perplexity has drawn a turn
 * three ways (lib/selectors/README.md, "A thread page"): one element holding question, steps and
 * answer; a question block followed by sibling blocks for steps, answer and action row (Aug–Oct
 * 2026); and, in February 2026, a wrapper per turn with `markdown-content-N` answers. The site
 * served the last two side by side, so nothing here decides a layout per page: each turn is found
 * from its own markers (a question block, an answer block), and its blocks are whatever lies
 * between it and the next turn's markers.
 *
 * A Turn answers the query helpers of dom.ts like an element does (they call querySelectorAll),
 * except that its own blocks count too: a turn whose answer block is one of its blocks has that
 * block as its answer.
 */
export class Turn {
  constructor(
    /** The turn's top-level blocks, in document order. */
    readonly blocks: readonly Element[],
    /** The question's block, when it is mounted. */
    readonly question: Element | null,
    /** The answer blocks (the one with text first; a layout may mount an empty twin beside it). */
    readonly answers: readonly Element[],
    /** The page's own index of this turn (it may keep older turns unmounted), else its position. */
    readonly index: number,
  ) {}

  /** What stays the same element while the turn is on the page: for remembering what was read of it. */
  get anchor(): Element {
    return this.question ?? this.answers[0] ?? (this.blocks[0] as Element);
  }

  querySelectorAll(selector: string): Element[] {
    const out: Element[] = [];
    for (const block of this.blocks) {
      if (block.matches(selector)) out.push(block);
      out.push(...Array.from(block.querySelectorAll(selector)));
    }
    return out;
  }

  contains(node: Node | null): boolean {
    return node !== null && this.blocks.some((b) => b.contains(node));
  }

  get textContent(): string {
    return this.blocks.map((b) => b.textContent ?? '').join('');
  }

  /** Brings the turn into view (a virtualized turn renders only there). */
  scrollIntoView(arg?: ScrollIntoViewOptions): void {
    this.anchor.scrollIntoView(arg);
  }

  /** Whether this is the same turn as `other` (turns are read afresh on every call). */
  is(other: Turn | null | undefined): boolean {
    return other != null && other.anchor === this.anchor;
  }
}

/** Whether an element sits outside the thread (the sidebar, the page's chrome). */
export function outsideThread(el: Element, set: SelectorSet): boolean {
  return closest(el, set.outsideThread) !== null;
}

function hasText(el: Element): boolean {
  return (el.textContent ?? '').trim() !== '';
}

interface Group {
  question: Element | null;
  answers: Element[];
}

/** The page's own number for a turn, from the attributes the set names on its question or answer. */
function numberOf(group: Group, set: SelectorSet): number | null {
  for (const where of set.turnNumber ?? []) {
    for (const el of [group.question, ...group.answers]) {
      const value = el?.getAttribute(where.attr);
      if (value == null) continue;
      const m = new RegExp(where.pattern).exec(value);
      if (m?.[1] !== undefined) return Number(m[1]);
    }
  }
  return null;
}

/**
 * Indexes in page order: the page's own numbers where it writes them (and they go up), the rest
 * counted from their neighbours; with no number at all, positions.
 */
function indexesOf(groups: Group[], set: SelectorSet): number[] {
  const numbers = groups.map((g) => numberOf(g, set));
  const firstKnown = numbers.findIndex((n) => n !== null);
  const out: number[] = [];
  let prev = firstKnown > 0 ? Math.max(0, (numbers[firstKnown] as number) - firstKnown) - 1 : -1;
  for (const n of numbers) {
    prev = n !== null && n > prev ? n : prev + 1;
    out.push(prev);
  }
  return out;
}

/**
 * Elements of the page a turn never holds (the composer, the page's chrome), matched once per
 * turnsOf: asking each ancestor of each turn's marker for them measured ~80 % of a snapshot's time
 * on the Aug–Oct 2026 layout, and a snapshot runs after every batch of DOM changes while an answer streams.
 */
interface Fences {
  composer: readonly Element[];
  outside: readonly Element[];
}

/** Whether `el` is or holds one of `els` (`matches` or `first` for the candidates they were matched by). */
const holdsAny = (el: Element, els: readonly Element[]) => els.some((x) => el.contains(x));

/**
 * The blocks of one turn: the highest ancestor of its first marker that holds no other turn's
 * marker, and that ancestor's next siblings up to the one holding the next turn's (in a layout of
 * one element per turn, that element alone). Never the composer or the page's chrome.
 */
function blocksOf(group: Group, others: Element[], fences: Fences): Element[] {
  const start = (group.question ?? group.answers[0]) as Element;
  if (group.question && group.answers.length > 0 && group.answers.every((a) => group.question?.contains(a))) return [group.question];
  const holdsOther = (el: Element) => holdsAny(el, others);
  // Not the thread column: the February layout puts that class on each turn's own wrappers too.
  const stop = (el: Element) => holdsOther(el) || holdsAny(el, fences.composer) || holdsAny(el, fences.outside);
  let root = start;
  for (let p = root.parentElement; p && p !== root.ownerDocument.body && !stop(p); p = p.parentElement) root = p;
  const blocks = [root];
  for (let s = root.nextElementSibling; s && !stop(s); s = s.nextElementSibling) blocks.push(s);
  return blocks;
}

/**
 * Turns of the thread in page order. Markers are the question blocks and the answer blocks not
 * inside one. A question begins a turn; an answer joins the turn before it unless that turn
 * already has an answer with text (its question is then not mounted, and it begins its own).
 */
export function turnsOf(doc: Document, set: SelectorSet): Turn[] {
  const questions = outermost(union(doc, set.turn)).filter((q) => !outsideThread(q, set));
  const answers = outermost(union(doc, set.answer)).filter((a) => !outsideThread(a, set) && !closest(a, set.userBubble));
  const fences: Fences = { composer: union(doc, set.composer), outside: union(doc, set.outsideThread) };
  const qs = new Set(questions);
  // The question block an answer sits in, if any (the layout of one element per turn): up the tree, not across every block.
  const owner = new Map<Element, Element>();
  for (const a of answers) {
    for (let p = a.parentElement; p; p = p.parentElement) {
      if (qs.has(p)) {
        owner.set(a, p);
        break;
      }
    }
  }
  const markers = sortInDocumentOrder([...questions, ...answers.filter((a) => !owner.has(a))]);
  const groups: Group[] = [];
  for (const m of markers) {
    const current = groups.at(-1);
    if (qs.has(m)) {
      groups.push({ question: m, answers: [] });
    } else if (current && (!hasText(m) || !current.answers.some(hasText))) {
      current.answers.push(m);
    } else {
      groups.push({ question: null, answers: [m] });
    }
  }
  const byQuestion = new Map(groups.map((g) => [g.question, g]));
  for (const [a, q] of owner) byQuestion.get(q)?.answers.push(a);
  const indexes = indexesOf(groups, set);
  const markersOf = (g: Group) => [...(g.question ? [g.question] : []), ...g.answers];
  return groups.map((g, i) => {
    const others = groups.flatMap((o, j) => (j === i ? [] : markersOf(o)));
    const ordered = [...g.answers.filter(hasText), ...g.answers.filter((a) => !hasText(a))];
    return new Turn(blocksOf(g, others, fences), g.question, ordered, indexes[i] as number);
  });
}

/** The turn with the page's index `index` (not the position: older turns may be unmounted). */
export function turnAt(turns: readonly Turn[], index: number): Turn | undefined {
  return index < 0 ? turns.at(index) : turns.find((t) => t.index === index);
}

/**
 * The turn `turn` is now, found again by its index after an await: the page may have drawn it anew meanwhile (React
 * re-mounts a turn as it ends) or added blocks to it (the action row), which the blocks read before do not have.
 */
export function turnNow(doc: Document, set: SelectorSet, turn: Turn): Turn {
  return turnAt(turnsOf(doc, set), turn.index) ?? turn;
}

/** Turns the page has had so far: the latest's index plus one (it keeps only the latest mounted). */
export function turnCountOf(turns: readonly Turn[]): number {
  return (turns.at(-1)?.index ?? -1) + 1;
}
