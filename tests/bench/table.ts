/** A markdown table printer: pads cells so the table also reads well in a terminal. */

export interface Row {
  measure: string;
  n: string;
  median: string;
  tail: string;
  target: string;
  /** ✅ met, ❌ missed, ℹ️ informative (no target), ⚠️ a baseline failure mode. */
  mark: string;
  note?: string;
  /** The previous run's "median · tail" (tests/bench/history.ts), "—" when there is none. */
  before?: string;
}

const HEADERS = ['Measurement', 'n', 'median', 'tail', 'before', 'target', '', 'notes'];

export function renderTable(rows: readonly Row[]): string {
  const cells = rows.map((r) => [r.measure, r.n, r.median, r.tail, r.before ?? '—', r.target, r.mark, r.note ?? '']);
  const widths = HEADERS.map((h, i) => Math.max(width(h), ...cells.map((c) => width(c[i] as string))));
  const line = (values: string[]) => `| ${values.map((v, i) => pad(v, widths[i] as number)).join(' | ')} |`;
  return [line(HEADERS), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export const MET = '✅';
export const MISSED = '❌';
export const INFO = 'ℹ️';
export const FAILS = '⚠️';

export function verdict(ok: boolean): string {
  return ok ? MET : MISSED;
}

/** Emoji take two columns in a terminal; count them so the pipes line up. */
function width(text: string): number {
  let w = 0;
  for (const ch of text.replace(/\uFE0F/g, '')) w += /\p{Extended_Pictographic}/u.test(ch) ? 2 : 1;
  return w;
}

function pad(text: string, to: number): string {
  return text + ' '.repeat(Math.max(0, to - width(text)));
}
