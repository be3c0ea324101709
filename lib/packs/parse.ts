import type { z } from 'zod';
import { nestsDeeperThan } from '../protocol/limits';
import { PACK_KINDS, type PackKind } from './kinds';

/**
 * Checks one data pack, whoever holds it: the CLI before installing a file, the host before handing
 * the folder to the browser, the worker again when it arrives (what comes from the host is not
 * trusted). A refusal names the field that is wrong and what it should hold.
 */
export interface ValidPack {
  ok: true;
  kind: string;
  name: string;
  /** What the page is given. */
  item: unknown;
  /** The pack as validated (the file's content, checked). */
  pack: { kind: string };
}

export interface InvalidPack {
  ok: false;
  /** One line per problem: `set.composer: … (expected …)`. */
  problems: string[];
}

/** Pack files larger than this are refused unread (a selector set is about 10 kB). */
export const MAX_PACK_BYTES = 256 * 1024;

/**
 * How deep a pack may nest (the built-in ones nest 5 levels). Reader packs keep unknown keys, so
 * without this a key nested ~10,000 deep would pass the schema and then break every hop that
 * serialises the pack (JSON.stringify recurses): the host's offer of the whole folder, the worker.
 */
export const MAX_PACK_DEPTH = 32;

export function parsePack(raw: unknown): ValidPack | InvalidPack {
  if (nestsDeeperThan(raw, MAX_PACK_DEPTH)) {
    return { ok: false, problems: [`(the pack): it nests deeper than ${MAX_PACK_DEPTH} levels; no field of a data pack needs that (start again from \`comet-relay selectors show NAME\`)`] };
  }
  const kindName = typeof raw === 'object' && raw !== null ? (raw as { kind?: unknown }).kind : undefined;
  const known = Object.keys(PACK_KINDS);
  if (typeof kindName !== 'string' || !Object.hasOwn(PACK_KINDS, kindName)) {
    const got = typeof raw !== 'object' || raw === null || Array.isArray(raw) ? 'the file is not a JSON object' : `kind is ${JSON.stringify(kindName ?? null)}`;
    return { ok: false, problems: [`kind: ${got}; a data pack is a JSON object whose "kind" is one of ${known.map((k) => `"${k}"`).join(', ')}`] };
  }
  const kind = PACK_KINDS[kindName] as PackKind;
  const parsed = kind.schema.safeParse(raw);
  if (!parsed.success) return { ok: false, problems: describeIssues(kind, parsed.error.issues, raw) };
  const item = kind.item(parsed.data);
  return { ok: true, kind: kind.kind, name: kind.name(item), item, pack: parsed.data };
}

/** Parses a pack file's text: JSON first (with where it broke), then the pack. */
export function parsePackText(text: string): ValidPack | InvalidPack {
  if (text.length > MAX_PACK_BYTES) {
    return { ok: false, problems: [`the file is ${text.length} bytes; a data pack may be at most ${MAX_PACK_BYTES} bytes`] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`not valid JSON: ${(error as Error).message}`] };
  }
  return parsePack(raw);
}

const MAX_PROBLEMS = 5;

function describeIssues(kind: PackKind, issues: readonly z.core.$ZodIssue[], raw: unknown): string[] {
  const lines = issues.slice(0, MAX_PROBLEMS).map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(kind, issue.path);
      // One issue holds every unknown key of an object: a file of thousands would cost seconds of "did you mean" and a
      // message of hundreds of kB, in the CLI and in the host at every read of the folder (review 13c, F11).
      const more = issue.keys.length - MAX_PROBLEMS;
      return [
        ...issue.keys.slice(0, MAX_PROBLEMS).map((key) => {
          const near = nearest(key, known);
          return `${fieldName([...issue.path, key])}: not a field of a ${kind.noun}${near ? ` (did you mean "${near}"?)` : ''}`;
        }),
        ...(more > 0 ? [`…and ${more} more fields that are not fields of a ${kind.noun}`] : []),
      ].join('; ');
    }
    const expected = kind.expected(issue.path);
    const got = valueAt(raw, issue.path);
    const shown = got === undefined ? 'it is missing' : `it is ${preview(got)}`;
    return `${fieldName(issue.path)}: ${issue.message}; ${shown}${expected ? ` (expected ${expected})` : ''}`;
  });
  if (issues.length > MAX_PROBLEMS) lines.push(`…and ${issues.length - MAX_PROBLEMS} more problems`);
  return lines;
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(the pack)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

/** Field names valid at a path, for "did you mean". */
function keysAt(kind: PackKind, path: readonly PropertyKey[]): string[] {
  let schema: unknown = kind.schema;
  for (const key of path) {
    const shape = shapeOf(schema);
    schema = shape?.[String(key)];
  }
  return Object.keys(shapeOf(schema) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let s = schema as { shape?: Record<string, unknown>; def?: { in?: unknown; innerType?: unknown; schema?: unknown } } | undefined;
  // Unwrap refinements and pipes to the object underneath.
  for (let i = 0; i < 5 && s && !s.shape; i++) s = (s.def?.in ?? s.def?.innerType ?? s.def?.schema) as typeof s;
  return s?.shape;
}

/** The known name closest to a misspelt one (at most 2 edits away). */
function nearest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}
