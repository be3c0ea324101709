/**
 * The host → worker event that offers the packs folder (lib/protocol/packs.ts describes it). Its
 * own module, without zod, so the host can name it without loading the schemas.
 */
export const PACKS_CHANGED_EVENT = 'packs.changed';
