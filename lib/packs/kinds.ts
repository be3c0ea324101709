import { z } from 'zod';
import { SELECTOR_SET_KIND } from '../protocol/ports';
import { BUILT_IN_SOURCES } from '../selectors';
import { ACCOUNT_JSON_READERS } from '../selectors/account-json';
import { ACCOUNT_JSON_READER_KIND, ASK_STREAM_READER_KIND, LIBRARY_JSON_READER_KIND, THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../selectors/reader-shelf';
import { LIBRARY_JSON_READERS, LibraryJsonReaderSchema } from '../selectors/library/library-json';
import { ASK_STREAM_READERS } from '../selectors/stream/ask-stream';
import { AskStreamReaderSchema } from '../selectors/stream/stream-schema';
import { Candidates, Pattern, type SelectorSet, SelectorSetSchema, SelectorSetShape } from '../selectors/schema';
import { THREAD_JSON_READERS } from '../selectors/thread-json';
import { THREAD_PAGE_READERS } from '../selectors/thread-page';
import {
  AccountJsonReaderSchema,
  ReaderAttributes,
  ReaderCandidates,
  ReaderPaths,
  ThreadJsonReaderSchema,
  ThreadPageReaderSchema,
} from '../selectors/thread-schema';

/**
 * A data pack is a JSON file that teaches comet-relay something about Perplexity's page without a
 * rebuild: `{ "kind": "<kind>", …the kind's own fields }`. Each kind says how its file is checked,
 * what it is called, what it hands to the page, and how to explain a wrong field. The kinds: selector
 * sets, and the three thread readers (the page, the thread JSON, the account's JSON; the rule for
 * which reader is used is in lib/selectors/reader-shelf.ts). Everything that loads, validates,
 * lists, watches and delivers packs works for every kind unchanged.
 */
export interface PackKind<Item = unknown> {
  kind: string;
  /** In words, for `selectors list` and messages ("selector set"). */
  noun: string;
  /** The whole file, `kind` included. */
  schema: z.ZodType<{ kind: string }>;
  /** What the page is given: the validated item. */
  item(pack: { kind: string }): Item;
  name(item: Item): string;
  /** Names of the built-in items of this kind (an added item of the same name replaces one). */
  builtInNames(): string[];
  /** The built-in items as files, for `selectors show` (null when the name is not built in). */
  builtInPack(name: string): { kind: string } | null;
  /** One line about an item for `selectors list`. */
  describe(item: Item): string;
  /** `selectors list`'s heading for this kind: what the order of its items means. */
  listHeading: string;
  /** What adding an item means, said after `selectors add` (`builtIn`: it has a built-in one's name). */
  afterAdd(name: string, builtIn: boolean): string;
  /** What a field should hold, in words, for a message about a wrong value; undefined when unknown. */
  expected(path: readonly PropertyKey[]): string | undefined;
}

export { SELECTOR_SET_KIND };

const SelectorSetPack = z
  .object({
    kind: z.literal(SELECTOR_SET_KIND),
    /** Free text for people: where the set comes from, what it fixes. */
    comment: z.string().max(2000).optional(),
    set: SelectorSetSchema,
  })
  .strict();

const selectorSetFields = SelectorSetShape.shape as Record<string, unknown>;

export const selectorSetKind: PackKind<SelectorSet> = {
  kind: SELECTOR_SET_KIND,
  noun: 'selector set',
  schema: SelectorSetPack,
  item: (pack) => (pack as z.infer<typeof SelectorSetPack>).set,
  name: (set) => set.name,
  builtInNames: () => BUILT_IN_SOURCES.map((s) => s.name),
  builtInPack(name) {
    const set = BUILT_IN_SOURCES.find((s) => s.name === name);
    return set ? { kind: SELECTOR_SET_KIND, comment: `The built-in selector set ${name}, as shipped.`, set } : null;
  },
  describe: (set) => `generation ${set.generation}, ${set.modeUi} mode UI, languages ${Object.keys(set.labels).join(', ') || 'none'}`,
  listHeading: 'Selector sets, in the order a page is probed (added ones first)',
  afterAdd: (_name, builtIn) =>
    builtIn
      ? 'It replaces the built-in selector set of the same name (remove it to go back to the built-in one).'
      : 'It competes with the built-in selector sets when a page is probed, and wins ties.',
  expected(path) {
    if (path[0] !== 'set') return undefined;
    const field = selectorSetFields[String(path[1])];
    if (path[1] === 'signature') return 'an object { "present": [CSS selectors], "absent": [CSS selectors] }';
    if (path[1] === 'labels') return 'an object by language, e.g. { "fr": { "words": { "submit": ["Envoyer"] }, "modes": { "Recherche": "standard" } } }';
    if (field === Candidates) return 'a list of 1 to 64 CSS selectors, tried in order, e.g. ["#ask-input"]';
    if (field === Pattern) return 'a regular expression, as a string';
    return undefined;
  },
};

interface Named {
  name: string;
  version: number;
}

/** A reader kind: `{ "kind": …, "comment"?: …, "reader": { … } }`, checked with the reader's own schema. */
function readerKind<R extends Named>(kind: string, noun: string, schema: z.ZodType<R>, builtIns: readonly R[], example: string): PackKind<R> {
  const Pack = z.object({ kind: z.literal(kind), comment: z.string().max(2000).optional(), reader: schema }).strict();
  return {
    kind,
    noun,
    schema: Pack as unknown as z.ZodType<{ kind: string }>,
    item: (pack) => (pack as unknown as { reader: R }).reader,
    name: (reader) => reader.name,
    builtInNames: () => builtIns.map((r) => r.name),
    builtInPack(name) {
      const reader = builtIns.find((r) => r.name === name);
      return reader ? { kind, comment: `The built-in ${noun} ${name}, as shipped.`, reader } : null;
    },
    describe: (reader) => `version ${reader.version}, checked ${String((reader as { checked?: unknown }).checked ?? '?').slice(0, 10)}`,
    listHeading: `${noun[0]?.toUpperCase()}${noun.slice(1)}s (the first one is used: an added one before the built-in)`,
    afterAdd: () => `Thread tabs use it instead of the built-in ${noun} from their next read, without a reload (remove it to go back).`,
    expected(path) {
      if (path[0] !== 'reader') return undefined;
      if (path[1] === 'name') return `a name like "${example}"`;
      const field = leafSchema(schema, path.slice(1));
      if (field === ReaderCandidates) return 'a list of 1 or more CSS selectors, tried in order, e.g. ["[data-testid=\\"asset-card\\"]"]';
      if (field === ReaderAttributes) return 'a list of 1 or more attribute names, tried in order, e.g. ["data-asset-id"]';
      if (field === ReaderPaths) return 'a list of 1 or more JSON paths, tried in order, e.g. ["thread_metadata.title"] (the path language: lib/selectors/language/json-path.ts)';
      return undefined;
    },
  };
}

/** The schema at a path inside an object schema (through nested objects), or undefined. */
function leafSchema(schema: unknown, path: readonly PropertyKey[]): unknown {
  let s = schema as { shape?: Record<string, unknown> } | undefined;
  for (const key of path) s = s?.shape?.[String(key)] as typeof s;
  return s;
}

export const threadPageReaderKind = readerKind(THREAD_PAGE_READER_KIND, 'thread page reader', ThreadPageReaderSchema, THREAD_PAGE_READERS, 'thread-page-2027-01');
export const threadJsonReaderKind = readerKind(THREAD_JSON_READER_KIND, 'thread JSON reader', ThreadJsonReaderSchema, THREAD_JSON_READERS, 'thread-json-2027-01');
export const accountJsonReaderKind = readerKind(ACCOUNT_JSON_READER_KIND, 'account JSON reader', AccountJsonReaderSchema, ACCOUNT_JSON_READERS, 'account-json-2027-01');
export const libraryJsonReaderKind = readerKind(LIBRARY_JSON_READER_KIND, 'library JSON reader', LibraryJsonReaderSchema, LIBRARY_JSON_READERS, 'library-json-2027-01');
export const askStreamReaderKind = readerKind(ASK_STREAM_READER_KIND, 'ask stream reader', AskStreamReaderSchema, ASK_STREAM_READERS, 'ask-stream-2027-01');

/** Every kind a pack may have, by its `kind`. */
export const PACK_KINDS: Readonly<Record<string, PackKind>> = {
  [SELECTOR_SET_KIND]: selectorSetKind as PackKind,
  [THREAD_PAGE_READER_KIND]: threadPageReaderKind as PackKind,
  [THREAD_JSON_READER_KIND]: threadJsonReaderKind as PackKind,
  [ACCOUNT_JSON_READER_KIND]: accountJsonReaderKind as PackKind,
  [LIBRARY_JSON_READER_KIND]: libraryJsonReaderKind as PackKind,
  [ASK_STREAM_READER_KIND]: askStreamReaderKind as PackKind,
};

/** One thread reader kind in use, for `doctor`, `selectors list` and the side panel. */
export interface ReaderInUse {
  kind: string;
  noun: string;
  name: string;
  /** `built-in`, or the path of the file it was added from. */
  source: string;
}

/** Which reader of each kind the tabs use, given the packs added (any kinds, in order); the rule of lib/selectors/reader-shelf.ts. */
export function readersInUse(added: readonly { kind: string; name: string; source: string }[]): ReaderInUse[] {
  return [threadPageReaderKind, threadJsonReaderKind, accountJsonReaderKind, libraryJsonReaderKind, askStreamReaderKind].map((k) => {
    const pick = added.find((a) => a.kind === k.kind);
    return { kind: k.kind, noun: k.noun, name: pick?.name ?? (k.builtInNames()[0] as string), source: pick?.source ?? 'built-in' };
  });
}
