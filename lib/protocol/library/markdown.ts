import type { ExportedThread, ExportedTurn } from './library';

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

/** A URL as a link destination: `<…>` when it holds spaces or parentheses. */
function destination(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>\s]/g, encodeURIComponent)}>` : url;
}

const HEADING_MAX = 120;

function headingOf(question: string): string {
  const line = oneLine(question) || '(no question)';
  return line.length > HEADING_MAX ? `${line.slice(0, HEADING_MAX - 1)}…` : line;
}

function turnMarkdown(turn: ExportedTurn, index: number): string {
  const parts = [`## ${index + 1}. ${headingOf(turn.question)}`];
  // A question the heading does not hold whole (several lines, or long) follows it quoted, as asked.
  if (turn.question.trim() && headingOf(turn.question) !== turn.question.trim()) {
    parts.push(
      turn.question
        .trim()
        .split('\n')
        .map((l) => (l ? `> ${l}` : '>'))
        .join('\n'),
    );
  }
  parts.push(turn.answer.trim() ? turn.answer.trim() : turn.running ? '' : '*(no answer)*');
  if (turn.running) parts.push('*(Still being written when this was exported: the answer above is not the whole.)*');
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
  const header = [`# ${oneLine(t.title) || t.slug}`, facts.flatMap(([k, v]) => (v ? [`- ${k}: ${v}`] : [])).join('\n')].join('\n\n');
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
