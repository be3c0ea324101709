import type { SelectorSet } from '../../selectors';
import { outermost, union } from '../dom/dom';
import { outsideThread, turnsOf } from '../dom/turns';
import { readQuestionNow, readTurnNow } from '../answer/reader';
import { FlatText, markdownWords, showsExactly, wordsOf } from './repair-text';

/**
 * Finding the answer again when the page changed (issue 24): the thread JSON, the site's own record
 * of the conversation, holds each finished turn's question and answer; the elements whose text is
 * that text are the turns' question and answer, whatever the page now calls them. From what those
 * elements share, a selector for each probe the reader needs (turn, userBubble, queryText, answer,
 * prose, and the citations from the JSON's source URLs) is derived, and the set made of them is used
 * only once it reads every mounted turn exactly as the JSON has it and matches nothing else.
 *
 * Only stable hooks make a selector: data attributes, roles, ids without their counters, and class
 * tokens that name a thing (`group/answer-text`, `richtext`), never utility classes (`flex`,
 * `min-w-0`), generated names (anything with a digit or capitals) or a position among siblings.
 */

/** One finished turn of the thread JSON, as the worker read it (lib/worker/calls/repairs.ts). */
export interface JsonTurn {
  /** The turn's index in the thread. */
  index: number;
  question: string;
  /** The answer as Markdown. */
  answer: string;
  /** The answer's source URLs, in the JSON's order. */
  sources: readonly string[];
}

/** The probes a repair may replace: all of them read, none of them types or clicks. */
export const REPAIRED_PROBES = ['turn', 'userBubble', 'queryText', 'answer', 'prose', 'citationInline'] as const;
export type RepairedProbe = (typeof REPAIRED_PROBES)[number];

export interface Derived {
  /** The base set with the derived probes in place of its own. */
  set: SelectorSet;
  /** Each replaced probe's new selector. */
  replaced: Partial<Record<RepairedProbe, string>>;
  /** The attribute citations carry their URL in, when citations were derived. */
  citationUrlAttr?: string;
  /** The JSON turns found on the page (by index). */
  turns: number[];
}

export type Derivation = { ok: true; derived: Derived } | { ok: false; probe: string; reason: string };

// ---------------------------------------------------------------- stable hooks

/** Class tokens that style rather than name (Tailwind's utilities and their prefixes). */
const UTILITY_WORDS = new Set(
  'flex grid block inline contents hidden relative absolute fixed sticky static truncate group peer reset interactable underline italic visible invisible isolate container table prose-invert not-prose sr-only antialiased uppercase lowercase capitalize transition transform grow shrink border rounded shadow outline ring blur filter'.split(
    ' ',
  ),
);
const UTILITY_PREFIX =
  /^-?(?:min|max|w|h|p|px|py|pt|pb|pl|pr|ps|pe|m|mx|my|mt|mb|ml|mr|ms|me|gap|space|text|bg|border|rounded|items|justify|flex|grid|col|row|overflow|font|leading|tracking|shrink|grow|basis|size|inset|top|left|right|bottom|start|end|z|opacity|select|whitespace|break|scrollbar|place|self|content|order|cursor|pointer|ring|shadow|outline|duration|ease|animate|transition|translate|rotate|scale|fill|stroke|aspect|object|align|decoration|list|line|divide|from|to|via|backdrop|will|appearance|resize|snap|touch|indent|auto|inline|table|float|clear|box|columns|caret|accent|fade|slide|zoom|spin|bounce|prose)-/;
/** Attributes that say how an element is now (open, selected), not what it is. */
const STATE_ATTRIBUTES = new Set(['data-state', 'data-highlighted', 'data-disabled', 'data-orientation', 'data-side', 'data-align', 'data-placeholder']);

function namesAThing(token: string): boolean {
  return /^[a-z][a-z-]{1,38}(?:\/[a-z][a-z-]{1,38})?$/.test(token) && !UTILITY_WORDS.has(token) && !UTILITY_PREFIX.test(token) && !token.endsWith('-');
}

/** A value that is a word (not a number, a hash, a URL or a sentence). */
const isWord = (value: string) => /^[a-z][a-z_-]{0,30}$/i.test(value);

/** The stable hooks of an element, as selector parts: `[data-x]`, `[data-x="word"]`, `[role="…"]`, `[id^="prefix-"]`, `[class~="token"]`. */
export function hooksOf(el: Element): string[] {
  const out: string[] = [];
  for (const { name, value } of Array.from(el.attributes)) {
    if (name === 'class') {
      for (const token of value.split(/\s+/)) if (namesAThing(token)) out.push(`[class~="${token}"]`);
    } else if (name === 'id') {
      // `markdown-content-3`: the name without its counter; an id with a hash or no counter names one element only.
      const prefix = /^([a-z][a-z-]*[a-z][-_])\d+$/i.exec(value)?.[1];
      if (prefix) out.push(`[id^="${prefix}"]`);
    } else if (name === 'role') {
      if (isWord(value)) out.push(`[role="${value}"]`);
    } else if (name.startsWith('data-') && !STATE_ATTRIBUTES.has(name) && /^data-[a-z][a-z-]*$/.test(name)) {
      out.push(`[${name}]`);
      if (isWord(value)) out.push(`[${name}="${value}"]`);
    }
  }
  return out;
}

/** Every element matched by `rule` in the document is one of `targets`, and every target is matched. */
function matchesExactly(doc: Document, rule: string, targets: readonly Element[]): boolean {
  let found: Element[];
  try {
    found = Array.from(doc.querySelectorAll(rule));
  } catch {
    return false;
  }
  const wanted = new Set(targets);
  return found.length === wanted.size && found.every((el) => wanted.has(el));
}

/**
 * The most specific rule that matches exactly one element of each chain and nothing else: for each
 * hook of the first chain (from the preferred end), the element of every chain that carries it; then
 * every hook those elements share (and their tag, when they share it), alone or inside `scope`.
 */
function ruleFor(doc: Document, chains: readonly Element[][], prefer: 'outer' | 'inner', scope?: string): { rule: string; targets: Element[] } | null {
  const ordered = chains.map((c) => (prefer === 'outer' ? c : [...c].reverse()));
  const [head] = ordered;
  if (!head) return null;
  const tried = new Set<string>();
  for (const el of head) {
    for (const hook of hooksOf(el)) {
      const targets = ordered.map((c) => c.find((e) => hooksOf(e).includes(hook)));
      if (targets.some((t) => !t)) continue;
      const found = targets as Element[];
      const shared = hooksOf(found[0] as Element).filter((h) => found.every((t) => hooksOf(t).includes(h)));
      const tag = found.every((t) => t.tagName === found[0]?.tagName) ? (found[0] as Element).tagName.toLowerCase() : '';
      const rule = `${tag}${shared.join('')}`;
      if (tried.has(rule)) continue;
      tried.add(rule);
      if (matchesExactly(doc, rule, found)) return { rule, targets: found };
      if (scope && matchesExactly(doc, `${scope} ${rule}`, found)) return { rule: `${scope} ${rule}`, targets: found };
    }
  }
  return null;
}

// ---------------------------------------------------------------- finding the JSON's text

/** Elements of the body whose text is exactly `words`, outermost first (nested wrappers of one text form a chain). */
function elementsShowing(doc: Document, flat: FlatText, words: readonly string[]): Element[] {
  if (words.length === 0) return [];
  return Array.from(doc.body?.querySelectorAll('*') ?? []).filter((el) => showsExactly(words, flat.of(el)));
}

/** A chain of one text: the elements showing it that lie inside the outermost one (a second copy elsewhere is another chain). */
function chainsOf(found: Element[]): Element[][] {
  return outermost(found).map((top) => found.filter((el) => top === el || top.contains(el)));
}

/** The last chain that comes before `anchor` in the page, else the first after it. */
function nearestBefore(chains: Element[][], anchor: Element): Element[] | undefined {
  const before = chains.filter((c) => (c[0] as Element).compareDocumentPosition(anchor) & Node.DOCUMENT_POSITION_FOLLOWING);
  return before.at(-1) ?? chains[0];
}

/** A number-valued attribute every turn's element carries with its JSON index: the page's own turn numbers. */
function turnNumberOf(elements: readonly Element[], indexes: readonly number[]): { attr: string; pattern: string } | null {
  const [head] = elements;
  if (!head) return null;
  for (const { name } of Array.from(head.attributes)) {
    if (name === 'class' || name === 'style') continue;
    if (elements.every((el, i) => el.getAttribute(name) === String(indexes[i]))) return { attr: name, pattern: '^(\\d+)$' };
  }
  return null;
}

const cut = (text: string, n = 60) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** Derives the reading probes from the JSON's finished turns; `base` is the set the page chose (everything else comes from it). */
export function deriveRepair(doc: Document, base: SelectorSet, json: readonly JsonTurn[], name: string): Derivation {
  const flat = new FlatText();
  const usable = json.filter((t) => markdownWords(t.answer).length > 0);
  if (usable.length === 0) return { ok: false, probe: 'answer', reason: `the thread JSON's ${json.length} finished turn(s) hold no answer text to look for` };

  interface Mounted {
    turn: JsonTurn;
    answer: Element[];
    question: Element[];
  }
  const mounted: Mounted[] = [];
  for (const turn of usable) {
    const answers = chainsOf(elementsShowing(doc, flat, markdownWords(turn.answer)));
    if (answers.length === 0) continue;
    if (answers.length > 1) return { ok: false, probe: 'answer', reason: `the answer of turn ${turn.index} ("${cut(turn.answer)}") is shown ${answers.length} times on the page` };
    // Not the thread list (its link to this thread shows the first question as its title): what the reader leaves
    // out of the thread (#9).
    const asked = elementsShowing(doc, flat, wordsOf(turn.question)).filter((el) => !outsideThread(el, base));
    // An element holding the question too is the turn's, not the answer's (a short question fits in the slack).
    const whole = answers[0] as Element[];
    const tight = whole.filter((a) => !asked.some((q) => a.contains(q)));
    const answer = tight.length > 0 ? tight : whole;
    // Of the question's places, the nearest before its answer.
    const shown = asked.filter((el) => !answer.some((a) => a.contains(el) || el.contains(a)));
    mounted.push({ turn, answer, question: nearestBefore(chainsOf(shown), answer[0] as Element) ?? [] });
  }
  if (mounted.length === 0) {
    return { ok: false, probe: 'answer', reason: `no element on the page shows the text of any of the thread JSON's ${usable.length} finished answer(s)` };
  }

  const answer = ruleFor(doc, mounted.map((m) => m.answer), 'outer');
  if (!answer) return { ok: false, probe: 'answer', reason: 'the elements showing the JSON\'s answers share no stable hook (data attribute, role, id, class naming a thing) that matches them and nothing else' };
  // The prose inside the answer block (the answer block itself when nothing inside it is marked).
  const inner = mounted.map((m, i) => m.answer.filter((el) => el !== answer.targets[i] && answer.targets[i]?.contains(el)));
  const prose = inner.every((c) => c.length > 0) ? ruleFor(doc, inner, 'inner', answer.rule) : null;

  const asked = mounted.filter((m) => m.question.length > 0);
  let turn: { rule: string; targets: Element[] } | null = null;
  let queryText: { rule: string; targets: Element[] } | null = null;
  if (asked.length > 0) {
    turn = ruleFor(doc, asked.map((m) => m.question), 'outer');
    if (!turn) return { ok: false, probe: 'turn', reason: 'the elements showing the JSON\'s questions share no stable hook that matches them and nothing else' };
    const within = asked.map((m, i) => m.question.filter((el) => el !== turn?.targets[i] && turn?.targets[i]?.contains(el)));
    queryText = within.every((c) => c.length > 0) ? ruleFor(doc, within, 'inner', turn.rule) : null;
  }

  const citations = deriveCitations(doc, mounted.map((m) => ({ scope: answer.targets[mounted.indexOf(m)] as Element, urls: m.turn.sources })), answer.rule);
  const numbers = turnNumberOf(turn?.targets ?? [], asked.map((m) => m.turn.index)) ?? turnNumberOf(answer.targets, mounted.map((m) => m.turn.index));

  const replaced: Derived['replaced'] = { answer: answer.rule, prose: prose?.rule ?? answer.rule };
  // With no question mounted, the turn probe stays the base set's: an answer alone begins a turn (turns.ts).
  if (turn) Object.assign(replaced, { turn: turn.rule, userBubble: turn.rule, queryText: queryText?.rule ?? turn.rule });
  if (citations) replaced.citationInline = citations.rule;
  const set: SelectorSet = {
    ...base,
    name,
    signature: { present: [answer.rule, ...(turn ? [turn.rule] : [])], absent: [] },
    answer: [answer.rule],
    prose: [replaced.prose as string],
    ...(turn ? { turn: [turn.rule], userBubble: [turn.rule], queryText: [replaced.queryText as string] } : {}),
    turnNumber: numbers ? [numbers] : [],
    ...(citations ? { citationInline: [citations.rule], citationUrlAttr: citations.attr } : {}),
  };
  const verdict = verify(doc, set, mounted.map((m) => ({ turn: m.turn, questionShown: m.question.length > 0 })));
  if (verdict) return { ok: false, probe: verdict.probe, reason: `the derived selectors failed verification: ${verdict.reason}` };
  return { ok: true, derived: { set, replaced, ...(citations ? { citationUrlAttr: citations.attr } : {}), turns: mounted.map((m) => m.turn.index) } };
}

/**
 * Citations from the JSON's source URLs: the elements inside the answers that carry one of them in
 * an attribute other than `href` (a link is read as a link already), and the attribute.
 */
function deriveCitations(doc: Document, answers: { scope: Element; urls: readonly string[] }[], scope: string): { rule: string; attr: string } | null {
  const carriers: Element[] = [];
  let attr: string | null = null;
  for (const { scope: root, urls } of answers) {
    const wanted = new Set(urls);
    for (const el of Array.from(root.querySelectorAll('*'))) {
      const hit = Array.from(el.attributes).find((a) => a.name !== 'href' && a.name.startsWith('data-') && wanted.has(a.value));
      if (!hit) continue;
      if (attr !== null && hit.name !== attr) return null;
      attr = hit.name;
      carriers.push(el);
    }
  }
  if (!attr || carriers.length === 0) return null;
  // Every carrier is its own chain: the rule must match exactly them.
  const found = ruleFor(doc, carriers.map((c) => [c]), 'outer', scope);
  return found ? { rule: found.rule, attr } : null;
}

/**
 * A derived set is used only when it finds exactly the mounted turns and reads each one's question
 * and answer as the JSON has them. Returns what failed, or null.
 */
export function verify(doc: Document, set: SelectorSet, expected: readonly { turn: JsonTurn; questionShown: boolean }[]): { probe: string; reason: string } | null {
  // Nothing else: the answer and question probes match one element per mounted turn, no more.
  const answers = outermost(union(doc, set.answer)).length;
  if (answers !== expected.length) return { probe: 'answer', reason: `it matches ${answers} answer element(s) where the page shows the JSON's answers in ${expected.length}` };
  const asked = expected.filter((e) => e.questionShown).length;
  // Counted as turnsOf counts them: what sits outside the thread is not a question of it (#9).
  const questions = outermost(union(doc, set.turn)).filter((q) => !outsideThread(q, set)).length;
  if (asked > 0 && questions !== asked) return { probe: 'turn', reason: `it matches ${questions} question element(s) where the page shows the JSON's questions in ${asked}` };
  const turns = turnsOf(doc, set);
  if (turns.length !== expected.length) {
    return { probe: 'turn', reason: `it finds ${turns.length} turn(s) where the page shows the JSON's text for ${expected.length}` };
  }
  for (const [i, t] of turns.entries()) {
    const want = expected[i] as { turn: JsonTurn; questionShown: boolean };
    // Where the page numbers its turns, the numbers must be the JSON's (the worker looks the turn up by it).
    if ((set.turnNumber ?? []).length > 0 && t.index !== want.turn.index) {
      return { probe: 'turnNumber', reason: `the turn showing the JSON's turn ${want.turn.index} is numbered ${t.index}` };
    }
    const read = readTurnNow(t, t.index, set);
    if (!showsExactly(markdownWords(want.turn.answer), markdownWords(read.response).join(''))) {
      return { probe: 'answer', reason: `turn ${want.turn.index} reads "${cut(read.response)}" where the JSON's answer is "${cut(want.turn.answer)}"` };
    }
    const question = readQuestionNow(t, set);
    const questionOk = want.questionShown ? showsExactly(wordsOf(want.turn.question), wordsOf(question).join('')) : question === '';
    if (!questionOk) return { probe: 'queryText', reason: `turn ${want.turn.index} reads the question "${cut(question)}" where the JSON has "${cut(want.turn.question)}"` };
  }
  return null;
}
