/** URL paths shared by the simulated site's server and its page script (pure: no Node, no DOM). */
import type { AssetSpec, BlockSpec } from './task-types';
import type { InteractionEvent } from '../types';

/** Path of a file a task produced (the page's download link; the thread JSON adds an expiry). */
export function assetPathOf(threadId: string, asset: Pick<AssetSpec, 'id' | 'filename'>): string {
  return `/_sim/assets/${encodeURIComponent(threadId)}/${encodeURIComponent(asset.id)}/${encodeURIComponent(asset.filename)}`;
}

/** Id of the prompt a blocked turn shows (2FA, a form): its box in the page and the thread JSON agree. */
export function blockId(turn: { uuid?: string; index: number }, block: Pick<BlockSpec, 'kind'>): string {
  return `${turn.uuid ?? `turn-${turn.index}`}-${block.kind.replace(/_/g, '-')}`;
}

/** Id of an interaction (the Computer server's followup_uuid): its own, else one derived from the turn. */
export function interactionIdOf(turn: { uuid?: string; index: number }, ev: Pick<InteractionEvent, 'id'>): string {
  return ev.id ?? `${turn.uuid ?? `turn-${turn.index}`}-interaction`;
}
