import { describe, expect, it, vi } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import { offlinePanelService } from '../support/panel-service';
import type { PanelService } from '../../lib/worker/panel/panel-service';

/**
 * An agent's comet_mode held for the person's approval is a card in Approvals, not a switch under way: the Mode card's
 * buttons stay the person's, and a denied or refused switch leaves no error of the agent's on the person's Mode card
 * (the feed has it) (review 15f, F3). Read-only turned on refuses what waits at once, so no card stays with an Approve
 * that would do nothing (F8).
 */
const state = vi.hoisted(() => ({ stored: { settings: { requireApproval: true } } as Record<string, unknown> }));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

function service() {
  return offlinePanelService(async () => ({}), {
    tabs: { drivenTab: async () => ({ id: 7, title: 'Tides', url: 'https://www.perplexity.ai/search/tides-abc' }), connectedDrivenTab: () => undefined },
    pages: { document: () => undefined, askCount: () => 0 },
  });
}

const origin = { clientId: 'c1', clientName: 'claude-code', tool: 'comet_mode', summary: 'mode computer', door: 'loopback' as const };
const modeCall: Request = { kind: 'request', id: 'm1', method: 'page.mode', params: { mode: 'computer' }, origin };

/** As the router runs it: the start event, then the person's policy. */
async function agentSwitch(panels: PanelService) {
  panels.onCall({ phase: 'start', request: modeCall, at: 1 });
  const outcome = panels.authorize(modeCall, { mode: 'computer' }, new AbortController().signal, () => {}).then(
    () => 'approved',
    (e: Error) => e,
  );
  await vi.waitFor(() => expect(panels.approvals.pending()).toHaveLength(1));
  return { outcome };
}

describe('an agent’s mode switch held for approval', () => {
  it('is not shown as a switch under way while it waits (the buttons stay the person’s)', async () => {
    state.stored.settings = { requireApproval: true };
    const panels = service();
    const { outcome } = await agentSwitch(panels);
    expect(panels.mode.view().switching).toBeUndefined();
    panels.approvals.decide('m1', true);
    expect(await outcome).toBe('approved');
    // Let through, it is under way, until its answer names the mode.
    expect(panels.mode.view().switching).toBe('computer');
    panels.onCall({ phase: 'end', request: modeCall, at: 2, ok: true, result: { mode: 'computer', changed: true } });
    expect(panels.mode.view()).toEqual({ current: 'computer' });
  });

  it('let through and failed on the page, ends its switch without an error of the agent’s on the Mode card', async () => {
    state.stored.settings = { requireApproval: false };
    const panels = service();
    panels.onCall({ phase: 'start', request: modeCall, at: 1 });
    await panels.authorize(modeCall, { mode: 'computer' }, new AbortController().signal, () => {});
    expect(panels.mode.view().switching).toBe('computer');
    panels.onCall({ phase: 'end', request: modeCall, at: 2, ok: false, error: '[TIMEOUT] the mode menu did not open' });
    expect(panels.mode.view()).toEqual({ current: null });
  });

  it('denied, leaves no "switch failed" error on the Mode card', async () => {
    state.stored.settings = { requireApproval: true };
    const panels = service();
    const { outcome } = await agentSwitch(panels);
    panels.approvals.decide('m1', false);
    const error = (await outcome) as Error & { code?: string };
    expect(error.code).toBe('PERMISSION_DENIED');
    panels.onCall({ phase: 'end', request: modeCall, at: 2, ok: false, error: `[${error.code}] ${error.message}` });
    expect(panels.mode.view().error).toBeUndefined();
    expect(panels.mode.view().switching).toBeUndefined();
  });
});

describe('Read-only turned on while a card waits (F8)', () => {
  it('refuses what waits at once, instead of leaving an Approve that does nothing', async () => {
    state.stored.settings = { requireApproval: true };
    const panels = service();
    const { outcome } = await agentSwitch(panels);
    await panels.settings.update({ readOnly: true });
    const pendingAfter = panels.approvals.pending().length;
    panels.approvals.decide('m1', true); // does nothing once it is refused
    const result = (await outcome) as Error & { code?: string };
    expect(pendingAfter).toBe(0);
    expect(result.code).toBe('PERMISSION_DENIED');
    expect(result.message).toMatch(/read-only/);
  });

  it('keeps what waits when the change refuses nothing', async () => {
    state.stored.settings = { requireApproval: true };
    const panels = service();
    const { outcome } = await agentSwitch(panels);
    await panels.settings.update({ approvalTimeoutSec: 300 });
    expect(panels.approvals.pending()).toHaveLength(1);
    panels.approvals.decide('m1', false);
    await outcome;
  });
});
