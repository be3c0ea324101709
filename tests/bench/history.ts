import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/harness';
import type { Row } from './table';

/**
 * The previous run's figures, so every row prints beside what it measured last time. Kept in the
 * gitignored `.cache/bench-last.json`, one entry per measurement (keyed by its label), merged on
 * each run: a `--only` run updates its own rows and keeps the others' last figures.
 */
export const HISTORY_FILE = path.join(ROOT, '.cache', 'bench-last.json');

interface Entry {
  median: string;
  tail: string;
  commit: string;
  date: string;
}

type History = Record<string, Entry>;

export function loadHistory(file = HISTORY_FILE): History {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as History) : {};
  } catch {
    return {}; // no previous run (or a damaged file): every row says "—"
  }
}

/** "median · tail" of the last run that measured this row, or "—". */
export function previousFigure(history: History, row: Row): string {
  const entry = history[row.measure];
  if (!entry) return '—';
  return entry.tail ? `${entry.median} · ${entry.tail}` : entry.median;
}

export function saveHistory(history: History, rows: readonly Row[], commit: string, file = HISTORY_FILE): void {
  const date = new Date().toISOString();
  const next: History = { ...history };
  for (const row of rows) next[row.measure] = { median: row.median, tail: row.tail, commit, date };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
}
