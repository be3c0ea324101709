import { describe, expect, it, vi } from 'vitest';
import type { WatchSnapshot } from '../../lib/protocol/watch';
import { offlinePanelService } from '../support/panel-service';

/**
 * The side panel never types into the person's composer to read a mode (review 2026-12-02, #23):
 * on generation A the mode hides in the slash menu, and reading it there means typing "/". Until
 * 2026-12-02 the panel sent page.mode by itself once per page load whenever its watch could not name
 * the mode, and page.mode typed "/" into the composer and then put back what it held before, erasing
 * what the person typed meanwhile. Now the panel says it does not know, until an agent's comet_mode
 * or the person's own switch from the panel names it.
 */

// Every extension API the service touches at construction, as no-ops: this test is about its calls.
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const snapshot = (mode: WatchSnapshot['mode']): WatchSnapshot => ({
  url: 'https://www.perplexity.ai/',
  title: 'Perplexity',
  mode,
  status: 'idle',
  latestStep: '',
  question: '',
  interactions: [],
  conversations: [],
});

function service() {
  const local = vi.fn(async (method: string) => (method === 'page.mode' ? { mode: 'standard', source: 'typeahead' } : {}));
  // Tab 7, one page load: where the snapshots and the agent's comet_mode below are read.
  const page = {};
  const panel = offlinePanelService(local, {
    tabs: { drivenTab: async () => undefined, connectedDrivenTab: () => ({ id: 7, url: 'https://www.perplexity.ai/' }) },
    pages: { state: () => undefined, request: async () => ({}), document: () => page },
  });
  // The page watch's snapshot, as the worker hands it over (PageWatch → onSnapshot).
  const onSnapshot = (value: WatchSnapshot) => (panel as unknown as { onSnapshot(tabId: number, value: WatchSnapshot): void }).onSnapshot(7, value);
  return { panel, local, onSnapshot };
}

describe('the panel and a mode the page does not show', () => {
  it('sends no page.mode of its own: the mode stays unknown, and the panel says why', async () => {
    const { panel, local, onSnapshot } = service();
    onSnapshot(snapshot(null));
    onSnapshot(snapshot(null));
    await new Promise((r) => setTimeout(r, 10));
    expect(local.mock.calls.map(([method]) => method)).not.toContain('page.mode');
    const view = panel.mode.view();
    expect(view.current).toBeNull();
    expect(view.detail).toMatch(/without typing into the composer/);
  });

  it('a mode the page shows is shown; an agent\'s comet_mode answer names one the page does not show', () => {
    const { panel, onSnapshot } = service();
    onSnapshot(snapshot('learn'));
    expect(panel.mode.view()).toEqual({ current: 'learn' });
    panel.mode.reset();
    onSnapshot(snapshot(null));
    panel.onCall({ phase: 'end', ok: true, request: { id: 'r1', method: 'page.mode', params: {} }, result: { mode: 'deep-research', source: 'typeahead' } } as never);
    onSnapshot(snapshot(null));
    expect(panel.mode.view()).toEqual({ current: 'deep-research' });
  });
});
