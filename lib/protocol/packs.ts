import { z } from 'zod';

/**
 * Data packs on their way to the page (lib/packs explains what a pack is). The host reads the
 * packs folder and offers every file it could read (event `packs.changed`, at the handshake and
 * whenever the folder changes); the worker validates each pack again and hands the page the valid
 * ones (event `packs.apply`, ports.ts, when the page connects and whenever they change).
 */
export { PACKS_CHANGED_EVENT } from './pack-events';

/** Most packs one folder may offer; more are skipped with a reason. */
export const MAX_PACKS = 32;

export const PackOffer = z.object({
  /** The file it came from (shown to the person as the set's origin). */
  source: z.string().min(1).max(4096),
  /** The file's JSON, unchecked: the worker validates it. */
  pack: z.unknown(),
});
export type PackOffer = z.infer<typeof PackOffer>;

/** A file the host could not use, and why (shown by `doctor`, `selectors list` and the side panel). */
export const SkippedPack = z.object({ source: z.string().max(4096), reason: z.string().max(4000) });
export type SkippedPack = z.infer<typeof SkippedPack>;

/** The most skipped files one offer names (the host sums up the rest in a last one). */
export const MAX_SKIPPED = 256;

export const PacksChanged = z.object({
  packs: z.array(PackOffer).max(MAX_PACKS),
  skipped: z.array(SkippedPack).max(MAX_SKIPPED),
});
export type PacksChanged = z.infer<typeof PacksChanged>;
