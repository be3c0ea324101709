import { clip } from '../text/clip';
import { eventWords } from '../threads/thread-events';
import type { ExportedFile, ExportedThread, ExportedTurn } from './library';

/**
 * A thread as Markdown, the one rendering used by comet_export_thread, the MCP resources and
 * `comet-relay export`. Pure: the same thread gives the same bytes on every run.
 */

/** One line of text (a title or question in a heading), whitespace folded. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A Markdown link's text with the brackets that would end it escaped. */
function linkText(text: string): string {
  return oneLine(text).replace(/([\\[\]])/g, '\\$1');
}

/**
 * Text the person typed (or the site wrote as plain words), written to render as typed: every character Markdown
 * (or HTML, or an editor's math) would read as markup escaped (`_` inside a word is no markup: a file name keeps its
 * own), and a line's list marker too (review 15e, F10: `2*3*4` rendered in italics, `<b>` as HTML).
 */
function literal(text: string): string {
  return text
    .replace(/[\\`*{}[\]<>#|~!&$]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&')
    .replace(/^(\s*)([-+=]|\d+(?=[.)]))/gm, (_, space: string, mark: string) => (/^\d/.test(mark) ? `${space}${mark}\\` : `${space}\\${mark}`));
}

/** A URL as a link destination: `<…>` when it holds spaces or parentheses. */
function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>\s]/g, encodeURIComponent)}>` : url;
}

const HEADING_MAX = 120;

/** A question as its heading's text, before escaping: one line, cut on a character (never half an emoji, review 15e, F11). */
function headingOf(question: string): string {
  return clip(question, HEADING_MAX) || '(no question)';
}

/** A fence's opening line (backticks or tildes, three or more), at any indent a list item gives it. */
const FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
/** A list item's first line: what lets a fence under it be indented four spaces or more. */
const LIST_ITEM = /^ {0,3}([-+*]|\d+[.)])[ \t]/;
/** A thematic break (`---`, `***`, `___`, spaced or not). */
const RULE = /^ {0,3}([-*_])[ \t]*(?:\1[ \t]*){2,}$/;
/** An ATX heading's marks. */
const ATX = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
/** A setext heading's underline. */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** A line that starts a block of its own (a list item, a quote, a heading, a table row, HTML): no setext heading's text. */
const NOT_PARAGRAPH = /^ {0,3}([-+*]\s|\d+[.)]\s|>|#|\||<)/;

/**
 * An answer placed under its turn's `##` heading (review 15e, F7): its headings outside code shifted so the highest is
 * `###` (a setext one written as ATX), and its thematic breaks written `* * *`, so that neither an answer's section nor
 * its `---` passes for a turn; a code fence the answer leaves open (a turn cut while written) closed, so the rest of the
 * file is not code (F8). Code is left as written.
 */
function nestedAnswer(answer: string): string {
  const lines = answer.split('\n');
  /**
   * The fence a line opens, if it opens one (CommonMark): a backtick fence's info string holds no backtick ("```x```
   * sets x." is a code span), and four spaces of indent make code, not a fence, unless a list item holds it (review
   * 15g, G1: a line merely starting with ``` was taken for a fence, and the one added to close it made the rest of the
   * file code).
   */
  const opens = (i: number): string | undefined => {
    const m = FENCE.exec(lines[i] as string);
    if (!m) return undefined;
    const [, indent, marks, info] = m as unknown as [string, string, string, string];
    if (marks[0] === '`' && info.includes('`')) return undefined;
    if (indent.replace(/\t/g, '    ').length < 4) return marks;
    for (let k = i - 1; k >= 0; k--) {
      const above = lines[k] as string;
      if (above.trim() === '' || /^ {4}|^\t/.test(above)) continue;
      return LIST_ITEM.test(above) ? marks : undefined;
    }
    return undefined;
  };
  /** Per line: code (inside a fence, or one), the first line of a setext heading's text (its underline's index), or text. */
  const code: boolean[] = [];
  const setextAt = new Map<number, number>();
  const inSetext = new Set<number>();
  let fence: string | undefined;
  let top = 7;
  for (const [i, line] of lines.entries()) {
    if (fence !== undefined) {
      const close = FENCE.exec(line)?.[2];
      if (close && close[0] === fence[0] && close.length >= fence.length && line.trim() === close) fence = undefined;
      code.push(true);
      continue;
    }
    const open = opens(i);
    code.push(open !== undefined);
    if (open) {
      fence = open;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) top = Math.min(top, (atx[2] as string).length);
    if (!SETEXT.test(line)) continue;
    // A setext underline makes a heading of the paragraph right above it (lines of text since a blank, a fence or a block).
    let first = i;
    while (first > 0 && !code[first - 1] && !inSetext.has(first - 1) && paragraphLine(lines[first - 1] as string)) first -= 1;
    if (first === i) continue;
    // A paragraph right under a list item or a quote is that block's continuation (lazy, or indented): the underline
    // is then a rule, and its text stays in the item (review 15g, G3).
    const before = first > 0 ? (lines[first - 1] as string) : '';
    if (before.trim() !== '' && !code[first - 1] && /^ {0,3}([-+*]\s|\d+[.)]\s|>)/.test(before)) continue;
    setextAt.set(first, i);
    for (let k = first; k <= i; k++) inSetext.add(k);
    top = Math.min(top, line.trim()[0] === '=' ? 1 : 2);
  }
  const shift = Math.max(0, 3 - top);
  const level = (marks: number) => '#'.repeat(Math.min(6, marks + shift));
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const underline = setextAt.get(i);
    const atx = ATX.exec(line);
    if (code[i]) out.push(line);
    else if (underline !== undefined) {
      const text = lines.slice(i, underline).map((l) => l.trim()).join(' ');
      out.push(`${level((lines[underline] as string).trim()[0] === '=' ? 1 : 2)} ${text}`);
    } else if (inSetext.has(i)) continue;
    else if (atx) out.push(`${atx[1]}${level((atx[2] as string).length)}${line.slice(atx[0].length)}`);
    else out.push(RULE.test(line) ? '* * *' : line);
  }
  if (fence !== undefined) out.push(fence);
  return out.join('\n');
}

/** A line that continues a paragraph: text, not a blank, a list item, a quote, a heading, a rule, a table row or HTML. */
function paragraphLine(line: string): boolean {
  return line.trim() !== '' && !NOT_PARAGRAPH.test(line) && !RULE.test(line) && !SETEXT.test(line);
}

/** A file's size in words a person reads (the JSON gives bytes). */
function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function fileLine(f: ExportedFile): string {
  const name = f.name ?? '(a file with no name)';
  const about = [f.type.replace(/_/g, ' '), ...(f.size !== null ? [sizeWords(f.size)] : []), ...(f.url ? [] : ['no download link in the thread'])].join(', ');
  return `- ${f.url ? `[${linkText(name)}](${destination(f.url)})` : literal(name)} (${literal(about)})`;
}

/** What the turn asked the person, each question with the answer given, or that none was (review 15e, F3). */
function askedMarkdown(turn: ExportedTurn): string[] {
  return (turn.asked ?? []).map((a) => {
    const head = a.prompt.trim() ? `**Asked:** ${literal(oneLine(a.prompt))}` : '**Asked:**';
    const given = [...a.answers];
    const items = a.questions.map((q) => {
      const at = given.findIndex((x) => x.question === q);
      const answer = at >= 0 ? given.splice(at, 1)[0] : undefined;
      return `- ${literal(oneLine(q))}${answer ? ` → ${literal(oneLine(answer.answer))}` : ''}`;
    });
    // Answers to a question the item does not list (its questions moved, or were never given) are kept too.
    items.push(...given.map((x) => `- ${literal(oneLine(x.question))} → ${literal(oneLine(x.answer))}`));
    return [head, items.join('\n'), a.answers.length === 0 ? '*(Not answered.)*' : ''].filter(Boolean).join('\n\n');
  });
}

/** How a turn that did not finish ended, in the event table's words (review 15e, F2). */
function outcomeNote(turn: ExportedTurn): string {
  if (turn.outcome === 'cancelled') {
    return `*(${eventWords('cancelled')}: the turn was stopped before it finished${turn.answer.trim() ? '; what it had written follows' : ''}.)*`;
  }
  if (turn.outcome === 'error') return `*(${eventWords('error')}${turn.error ? `: ${literal(oneLine(turn.error))}` : ', and the site says no reason'})*`;
  return '';
}

/** The blocks a turn's export holds nothing of, one line for each known kind of content and one for the kinds not read (review 15e, F9). */
function unreadNotes(turn: ExportedTurn): string[] {
  const groups = new Map<string, { blocks: number; kinds: string[] }>();
  for (const u of turn.unread ?? []) {
    const group = groups.get(u.what ?? '') ?? { blocks: 0, kinds: [] };
    group.blocks += u.blocks;
    group.kinds.push(u.kind);
    groups.set(u.what ?? '', group);
  }
  return [...groups].map(([what, { blocks, kinds }]) => {
    const count = `${blocks} block${blocks === 1 ? '' : 's'}`;
    const names = kinds.map(literal).join(', ');
    return what
      ? `*(Not in this export: ${literal(what)} (${count}: ${names}).)*`
      : `*(Not in this export: ${count} of ${kinds.length === 1 ? 'a kind' : 'kinds'} comet-relay does not read: ${names}.)*`;
  });
}

/**
 * A question quoted as typed: its text escaped, except code indented four spaces after a blank line, which Markdown shows
 * as written, backslashes included (review 15g, G2: pasted code read `a\*b\[0\]`).
 */
function quotedQuestion(question: string): string {
  const lines = question.split('\n');
  let code = false;
  return lines
    .map((line, i) => {
      code = /^( {4}|\t)/.test(line) && (code || i === 0 || (lines[i - 1] as string).trim() === '');
      if (!line) return '>';
      return `> ${code ? line : literal(line)}`;
    })
    .join('\n');
}

function turnMarkdown(turn: ExportedTurn, index: number): string {
  const heading = headingOf(turn.question);
  const parts = [`## ${index + 1}. ${literal(heading)}`];
  // A question the heading does not hold whole (several lines, or long) follows it quoted, as asked.
  if (turn.question.trim() && heading !== turn.question.trim()) {
    parts.push(quotedQuestion(turn.question.trim()));
  }
  parts.push(...askedMarkdown(turn));
  parts.push(outcomeNote(turn));
  const files = turn.files ?? [];
  // No "(no answer)" where the turn says why it has none, or where its files are the result (a Computer task).
  const silent = turn.running || turn.outcome || files.length > 0;
  parts.push(turn.answer.trim() ? nestedAnswer(turn.answer.trim()) : silent ? '' : '*(no answer)*');
  if (turn.running) parts.push('*(Still being written when this was exported: the answer above is not the whole.)*');
  if (files.length > 0) parts.push(`**Files**\n\n${files.map(fileLine).join('\n')}`);
  parts.push(...unreadNotes(turn));
  if (turn.sources.length > 0) {
    const list = turn.sources.map((s) => `${s.n}. [${linkText(s.title || s.url)}](${destination(s.url)})`).join('\n');
    parts.push(`**Sources**\n\n${list}`);
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The header, then each turn: its question, its answer's Markdown, its sources numbered as its citations number them. */
export function threadMarkdown(t: ExportedThread): string {
  const facts: [string, string | null][] = [
    ['URL', t.url],
    ['Created', t.created],
    ['Updated', t.updated],
    ['Mode', t.mode],
    ['Model', t.model],
    ['Space', t.space],
  ];
  const header = [`# ${literal(oneLine(t.title) || t.slug)}`, facts.flatMap(([k, v]) => (v ? [`- ${k}: ${v}`] : [])).join('\n')].join('\n\n');
  const turns = t.turns.map(turnMarkdown);
  return `${[header, ...turns].join('\n\n---\n\n')}\n`;
}

/**
 * A YAML scalar: a JSON string is a valid YAML double-quoted scalar once what YAML does not allow raw
 * there is escaped too (DEL and the C1 controls, which JSON leaves as they are, and the line and paragraph separators); null stays null.
 */
function scalar(value: string | number | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** YAML front matter (title, url, created, updated, mode, model, space when it has one, turns), between `---` lines. */
export function frontMatter(t: ExportedThread): string {
  const fields: [string, string | number | null][] = [
    ['title', oneLine(t.title)],
    ['url', t.url],
    ['created', t.created],
    ['updated', t.updated],
    ['mode', t.mode],
    ['model', t.model],
    ...(t.space ? [['space', t.space] as [string, string]] : []),
    ['turns', t.turns.length],
  ];
  return `---\n${fields.map(([k, v]) => `${k}: ${scalar(v)}`).join('\n')}\n---\n`;
}
