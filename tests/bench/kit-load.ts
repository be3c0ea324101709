import { TRACE_META } from '../../lib/mcp/server';
import type { SimWorld } from '../support/sim-harness';
import { textOf } from '../support/harness';

/**
 * (a) what the first comet_ask in a freshly loaded tab pays for the ask kit (lib/page/kits/ask-kit.ts),
 * which the worker injects before the prompt goes in: per round, the tab is reloaded (a new
 * document holds no kit), a comet_poll waits for its page script, then two asks and their waits.
 * `kitMs` is the worker's own count (the trace's `kit`: the call waited for the load); `first` and
 * `later` are the two asks' whole round trips as the client sees them (typing, submitting and the
 * page showing the turn included, so their difference is noisier than `kitMs`).
 */
export interface KitLoadCost {
  kitMs: number[];
  first: number[];
  later: number[];
}

export async function measureAskKitLoad(world: SimWorld, rounds: number): Promise<KitLoadCost> {
  const cost: KitLoadCost = { kitMs: [], first: [], later: [] };
  const ask = async (prompt: string) => {
    const since = performance.now();
    const raw = await world.client.callTool({ name: 'comet_ask', arguments: { prompt }, _meta: { [TRACE_META]: true } }, undefined, { timeout: 60_000 });
    const took = performance.now() - since;
    if (raw.isError) throw new Error(`comet_ask failed: ${textOf(raw)}`);
    const waited = await world.call('comet_wait', { timeout: 30_000 });
    if (waited.isError) throw new Error(`comet_wait failed: ${waited.text}`);
    return { took, kit: (raw._meta?.[TRACE_META] as Record<string, number> | undefined)?.kit };
  };
  for (let i = 0; i < rounds; i++) {
    await world.page.reload();
    const ready = await world.call('comet_poll');
    if (ready.isError) throw new Error(`comet_poll after a reload failed: ${ready.text}`);
    const first = await ask(`Kit load round ${i + 1}, first ask`);
    if (first.kit === undefined) throw new Error('the first ask after a reload loaded no kit: its trace has no `kit`');
    const later = await ask(`Kit load round ${i + 1}, second ask`);
    if (later.kit !== undefined) throw new Error('the second ask loaded its kit again');
    cost.kitMs.push(first.kit);
    cost.first.push(first.took);
    cost.later.push(later.took);
  }
  return cost;
}
