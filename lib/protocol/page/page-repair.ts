import { z } from 'zod';

/**
 * The repair kit's methods (lib/page/kits/repair-kit.ts; issue 24): when the reader misses on a
 * conversation page, the worker hands the page the thread JSON's finished turns, and the page
 * derives and verifies selectors that find them again. Types here are the worker's and the side
 * panel's; the page script imports none of this (it stays free of zod).
 */

/** What a repair replaced, where, and the file that shares it (`comet-relay selectors add` takes it as it is). */
export const RepairInfo = z.object({
  /** The derived set's name (`gen-b-2026-12-derived`). */
  name: z.string(),
  /** "derived on <date> from <page> against its thread JSON". */
  origin: z.string(),
  /** The conversation page it was derived on, and read for. */
  url: z.string(),
  derivedAt: z.string(),
  /** Probe → the selector that replaced the set's own. */
  replaced: z.record(z.string(), z.string()),
  /** The set it was derived from (the one the page chose). */
  base: z.string(),
  /** The JSON turns whose text the derived set reads. */
  turns: z.array(z.number().int()),
  /** A selector-set pack file: `{ kind, comment, set }`. */
  pack: z.object({ kind: z.string(), comment: z.string(), set: z.record(z.string(), z.unknown()) }),
});
export type RepairInfo = z.infer<typeof RepairInfo>;

/** One finished turn of the thread JSON, as the worker read it. */
export const RepairTurn = z.object({
  index: z.number().int().min(0),
  question: z.string().max(200_000),
  answer: z.string().max(2_000_000),
  sources: z.array(z.string().max(4000)).max(500),
});
export type RepairTurn = z.infer<typeof RepairTurn>;

export const RepairResult = z.object({
  /**
   * `miss`: the reader misses here and a repair is due (call again with the JSON's turns);
   * `fine`: the reader reads the page (nothing to repair); `tried`: a repair was tried on this page
   * load and layout and failed (`probe`, `reason`); `repaired`: a derived set is in use (`repair`);
   * `failed`: this attempt failed (`probe`, `reason`).
   */
  status: z.enum(['miss', 'fine', 'tried', 'repaired', 'failed']),
  /** The page's URL when it answered. */
  url: z.string().optional(),
  probe: z.string().optional(),
  reason: z.string().optional(),
  repair: RepairInfo.optional(),
});
export type RepairResult = z.infer<typeof RepairResult>;

export const repairMethods = {
  /** Without `turns`: does the reader miss here, and is a repair due? With them: derive, verify, use. */
  'page.repair': {
    params: z.object({ turns: z.array(RepairTurn).max(200).optional(), probe: z.string().max(64).optional() }).strict(),
    result: RepairResult,
  },
  /** The repair in use on this page, if any (the side panel, `doctor --page`). */
  'page.repairState': { params: z.object({}).strict(), result: z.object({ repair: RepairInfo.nullable() }) },
  /** Drops the repair in use; the reader misses again as it did, and no repair is tried again on this page load and layout. */
  'page.repairUndo': { params: z.object({}).strict(), result: z.object({ undone: z.boolean() }) },
} as const;

