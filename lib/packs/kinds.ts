import { z } from 'zod';
import { BUILT_IN_SOURCES } from '../selectors';
import { Candidates, Pattern, type SelectorSet, SelectorSetSchema, SelectorSetShape } from '../selectors/schema';

/**
 * A data pack is a JSON file that teaches comet-relay something about Perplexity's page without a
 * rebuild: `{ "kind": "<kind>", …the kind's own fields }`. Each kind says how its file is checked,
 * what it is called, what it hands to the page, and how to explain a wrong field. Selector sets are
 * the first kind; thread readers (DOM and thread-JSON) are meant to be the next, registered here
 * the same way, and everything that loads, validates, lists, watches and delivers packs works for
 * them unchanged.
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
  /** What a field should hold, in words, for a message about a wrong value; undefined when unknown. */
  expected(path: readonly PropertyKey[]): string | undefined;
}

export const SELECTOR_SET_KIND = 'selector-set';

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

/** Every kind a pack may have, by its `kind`. */
export const PACK_KINDS: Readonly<Record<string, PackKind>> = {
  [SELECTOR_SET_KIND]: selectorSetKind as PackKind,
};
