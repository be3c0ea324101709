import { describe, expect, it, vi } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import type { PanelState } from '../../lib/protocol/panel';
import type { WatchSnapshot } from '../../lib/protocol/watch';
import { offlinePanelService } from '../support/panel-service';

/**
 * The Mode card shows a mode only for the tab and page load it was read on (review 15f, F7): with the panel closed, an
 * agent sets Computer on tab 7, then switches to tab 9, whose page (generation A) shows no mode; the panel opening
 * then must not say tab 9 is in Computer mode, neither in its first state nor after tab 9's first snapshot. On the
 * same tab and page load, the agent's answer stands.
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const origin = { clientId: 'k1.c1', clientName: 'claude-code', summary: '', door: 'loopback' as const };
const call = (id: string, method: string, params: unknown, tool: string): Request => ({ kind: 'request', id, method, params, origin: { ...origin, tool } });

// One page load per tab, as PageHub.document gives it.
const pages = new Map([7, 9].map((id) => [id, {}]));

function world(driven: { tabId: string }) {
  return offlinePanelService(async () => ({}), {
    status: async () => ({ perplexityTab: { tabId: driven.tabId, url: 'https://www.perplexity.ai/', title: 'Perplexity' }, pageAccess: null }),
    tabs: { drivenTab: async () => undefined, connectedDrivenTab: () => ({ id: Number(driven.tabId), url: 'https://www.perplexity.ai/' }) },
    pages: { state: () => undefined, request: async () => ({}), document: (id: number) => pages.get(id) },
  });
}

const snapshot: WatchSnapshot = {
  url: 'https://www.perplexity.ai/',
  title: 'Perplexity',
  mode: null,
  status: 'idle',
  latestStep: '',
  question: '',
  interactions: [],
  conversations: [],
};

const stateOf = (panel: ReturnType<typeof world>) => (panel as unknown as { state(): Promise<PanelState> }).state();
const snapshotOf = (panel: ReturnType<typeof world>, tabId: number) => (panel as unknown as { onSnapshot(tabId: number, value: WatchSnapshot): void }).onSnapshot(tabId, snapshot);

describe('the mode the panel shows belongs to the tab it was read on', () => {
  it('an agent’s comet_mode is shown for its own tab and page load, which shows no mode', async () => {
    const panel = world({ tabId: '7' });
    const mode = call('m1', 'page.mode', { mode: 'computer' }, 'comet_mode');
    panel.onCall({ phase: 'start', request: mode, at: 1 });
    panel.onCall({ phase: 'end', request: mode, at: 2, ok: true, result: { mode: 'computer', source: 'typeahead', changed: true } });
    snapshotOf(panel, 7);
    expect((await stateOf(panel)).mode.current).toBe('computer');
    // The tab loads another page: the answer was of the last one.
    pages.set(7, {});
    expect((await stateOf(panel)).mode.current).toBeNull();
  });

  it('an agent’s comet_mode on tab 7 is not shown as tab 9’s mode', async () => {
    const driven = { tabId: '7' };
    const panel = world(driven);
    const mode = call('m1', 'page.mode', { mode: 'computer' }, 'comet_mode');
    panel.onCall({ phase: 'start', request: mode, at: 1 });
    panel.onCall({ phase: 'end', request: mode, at: 2, ok: true, result: { mode: 'computer', source: 'typeahead', changed: true } });
    const sw = call('s1', 'tabs.switch', { tabId: '9' }, 'comet_switch_tab');
    panel.onCall({ phase: 'start', request: sw, at: 3 });
    driven.tabId = '9';
    panel.onCall({ phase: 'end', request: sw, at: 4, ok: true, result: { tab: { id: '9' } } });

    // The panel opens: its first state, then tab 9's first snapshot (generation A shows no mode).
    const state = await stateOf(panel);
    snapshotOf(panel, 9);
    expect(state.perplexityTab?.tabId).toBe('9');
    expect(state.mode.current).toBeNull();
    expect(panel.mode.view().current).toBeNull();
  });
});
