/**
 * A small path language for the thread JSON readers (lib/selectors/thread-json.ts) and the ask stream's (lib/selectors/stream/), so that where
 * a fact sits in the web app's data is data too:
 *
 *   a.b.c          fields
 *   a[]            every element of the array a
 *   a[0], a[-1]    one element (negative counts from the end)
 *   a[k=v]         the elements of a (or a itself, if an object) whose field k is "v"
 *   a[k=v|w]       … "v" or "w"; k may be a dotted path (`a[value.mode=asi]`)
 *   a{}            every entry of the object a, as `{ key, value }` (the real models config is
 *                  an object keyed by model id: `models{}[value.mode=asi]`, then `key`, `value.label`)
 *   []  [k=v]      the same, applied to the current value (a path may start with them)
 *
 * A path yields every value it reaches, in order; missing fields and nulls yield nothing.
 */

type Step = { key?: string; spread?: boolean; entries?: boolean; index?: number; filter?: { key: string[]; values: string[] } };

const cache = new Map<string, Step[]>();

/** The path split on the dots outside brackets (a filter's key may hold dots). */
function segments(path: string): string[] {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  for (const ch of path) {
    if (ch === '[') depth += 1;
    else if (ch === ']') depth -= 1;
    if (ch === '.' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

function parse(path: string): Step[] {
  const known = cache.get(path);
  if (known) return known;
  const steps: Step[] = [];
  for (const segment of segments(path)) {
    const m = /^([^[\]{}]*)(\{\})?(?:\[([^\]]*)\])?$/.exec(segment);
    if (!m) throw new Error(`bad JSON path segment "${segment}" in "${path}"`);
    const [, key, braces, bracket] = m;
    const step: Step = {};
    if (key) step.key = key;
    if (braces) step.entries = true;
    if (bracket !== undefined) {
      if (bracket === '') step.spread = true;
      else if (/^-?\d+$/.test(bracket)) step.index = Number(bracket);
      else {
        const eq = bracket.indexOf('=');
        if (eq <= 0) throw new Error(`bad filter "[${bracket}]" in "${path}"`);
        step.filter = { key: bracket.slice(0, eq).split('.'), values: bracket.slice(eq + 1).split('|') };
      }
    }
    steps.push(step);
  }
  cache.set(path, steps);
  return steps;
}

/** Why `path` is not a path of this language, or null: the readers' schemas check every path of a pack with it. */
export function pathProblem(path: string): string | null {
  try {
    parse(path);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function matches(v: unknown, filter: NonNullable<Step['filter']>): boolean {
  let field: unknown = v;
  for (const k of filter.key) field = isObject(field) ? field[k] : undefined;
  return field !== undefined && filter.values.includes(String(field));
}

export function evalPath(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const step of parse(path)) {
    const next: unknown[] = [];
    for (const value of current) {
      const v = step.key === undefined ? value : isObject(value) ? value[step.key] : undefined;
      if (v === undefined || v === null) continue;
      if (step.entries) {
        if (isObject(v)) {
          const entries = Object.entries(v).map(([key, value]) => ({ key, value }));
          next.push(...(step.filter ? entries.filter((x) => matches(x, step.filter as NonNullable<Step['filter']>)) : entries));
        }
      } else if (step.spread) {
        if (Array.isArray(v)) next.push(...v);
      } else if (step.index !== undefined) {
        if (Array.isArray(v)) {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if (step.filter) {
        if (Array.isArray(v)) next.push(...v.filter((x) => matches(x, step.filter as NonNullable<Step['filter']>)));
        else if (matches(v, step.filter)) next.push(v);
      } else next.push(v);
    }
    current = next.filter((v) => v !== undefined && v !== null);
  }
  return current;
}

/** The values of the first candidate path that reaches anything, and which candidate it was. */
export function pick(root: unknown, candidates: readonly string[]): { values: unknown[]; path?: string } {
  for (const path of candidates) {
    const values = evalPath(root, path);
    if (values.length > 0) return { values, path };
  }
  return { values: [] };
}

export function firstString(root: unknown, candidates: readonly string[]): string | undefined {
  const v = pick(root, candidates).values.find((x) => typeof x === 'string' || typeof x === 'number');
  return v === undefined ? undefined : String(v);
}

/**
 * An answer's Markdown where a body keeps it two ways: whole at one of `textPaths`, or as chunks while it is
 * written. An empty whole text is the streaming placeholder (`text: ""` beside its chunks in the 2026-08-04 ask
 * stream capture), not an answer, so the chunks are read then; `""` only when a path holds it and no chunk is
 * there; `undefined` when no path reaches anything. The stream's reader and every thread JSON reader use this one
 * rule (review 10, sim F4: they disagreed on the same entry).
 */
export function answerText(root: unknown, textPaths: readonly string[], chunkPaths: readonly string[]): string | undefined {
  const whole = textPaths.flatMap((path) => evalPath(root, path)).filter((v): v is string => typeof v === 'string');
  const chunks = pick(root, chunkPaths).values.filter((v): v is string => typeof v === 'string');
  // Every whole text left is "" when none is longer.
  return whole.find((v) => v !== '') ?? (chunks.length > 0 ? chunks.join('') : whole[0]);
}

export function firstNumber(root: unknown, candidates: readonly string[]): number | undefined {
  const v = pick(root, candidates).values[0];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

export function firstBoolean(root: unknown, candidates: readonly string[]): boolean | undefined {
  const v = pick(root, candidates).values[0];
  return typeof v === 'boolean' ? v : undefined;
}

export function strings(root: unknown, candidates: readonly string[]): string[] {
  return pick(root, candidates).values.filter((x): x is string => typeof x === 'string');
}
