import { describe, expect, it, vi } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import type { ActivityEntry } from '../../lib/protocol/panel';
import { ActivityLog, resultSummary } from '../../lib/worker/panel/activity';
import { ModeState } from '../../lib/worker/panel/page-watch';
import { SAVE_DELAY_MS } from '../../lib/worker/browser/session-store';

const call = (id: string, method: string, tool?: string): Request => ({
  kind: 'request',
  id,
  method,
  params: {},
  origin: { clientId: 'c1', clientName: 'cursor', door: 'loopback' as const, ...(tool ? { tool } : {}), summary: 'prompt "hello"' },
});

describe('ActivityLog', () => {
  it('records agent calls newest first with client, tool, summary, duration and result', () => {
    const log = new ActivityLog(() => {});
    log.record({ phase: 'start', request: call('a', 'page.ask', 'comet_ask'), at: 100 });
    log.record({ phase: 'start', request: call('b', 'page.mode', 'comet_mode'), at: 110 });
    log.record({ phase: 'end', request: call('a', 'page.ask', 'comet_ask'), at: 150, ok: true, result: {} });
    log.record({ phase: 'end', request: call('b', 'page.mode', 'comet_mode'), at: 160, ok: false, error: '[TIMEOUT] nobody approved' });
    log.record({ phase: 'start', request: call('c', 'browser.status'), at: 170 });
    expect(log.entries()).toEqual([
      { id: 'b', clientId: 'c1', clientName: 'cursor', tool: 'comet_mode', method: 'page.mode', summary: 'prompt "hello"', startedAt: 110, endedAt: 160, ok: false, error: '[TIMEOUT] nobody approved' },
      { id: 'a', clientId: 'c1', clientName: 'cursor', tool: 'comet_ask', method: 'page.ask', summary: 'prompt "hello"', startedAt: 100, endedAt: 150, ok: true, result: 'prompt submitted' },
    ]);
  });

  it('saves to the session store and restores after a restart, marking unfinished calls', async () => {
    let saved: ActivityEntry[] = [];
    const store = {
      load: async () => saved,
      save: async (entries: ActivityEntry[]) => {
        saved = entries;
      },
    };
    vi.useFakeTimers();
    const log = new ActivityLog(() => {}, store);
    log.record({ phase: 'start', request: call('a', 'page.wait', 'comet_wait'), at: 1 });
    expect(saved).toHaveLength(0); // debounced: one write for a burst of changes
    vi.advanceTimersByTime(SAVE_DELAY_MS);
    vi.useRealTimers();
    expect(saved).toHaveLength(1);
    const after = new ActivityLog(() => {}, store);
    after.record({ phase: 'start', request: call('z', 'tabs.list', 'comet_list_tabs'), at: 5 });
    await after.restore(9);
    expect(after.entries().map((e) => [e.id, e.ok, e.error])).toEqual([
      ['z', undefined, undefined],
      ['a', false, 'Interrupted: the extension restarted during the call.'],
    ]);
  });

  it('clears', () => {
    let changes = 0;
    const log = new ActivityLog(() => changes++);
    log.record({ phase: 'start', request: call('a', 'tabs.list', 'comet_list_tabs'), at: 1 });
    log.clear();
    expect(log.entries()).toEqual([]);
    expect(changes).toBe(2);
  });

  it('summarises results in one line, never the whole answer', () => {
    expect(resultSummary('page.wait', { status: 'completed', response: 'x'.repeat(5000), totalLength: 5000 })).toBe('completed · 5000 characters');
    expect(resultSummary('page.mode', { mode: 'learn', changed: false })).toBe('mode learn (unchanged)');
    expect(resultSummary('tabs.list', { tabs: [{}, {}] })).toBe('2 tabs');
    expect(resultSummary('page.sources', { sources: [{}] })).toBe('1 source');
    expect(resultSummary('browser.status', {})).toBeUndefined();
  });
});

describe('ModeState', () => {
  it('prefers what the page shows, keeps the last answer, and reports a switch in flight or failed', () => {
    const mode = new ModeState();
    const here = { tabId: 7, page: {} };
    expect(mode.view()).toEqual({ current: null });
    mode.fromResult({ mode: null, source: 'unavailable', detail: 'no composer here' }, here);
    expect(mode.view()).toEqual({ current: null, detail: 'no composer here' });
    mode.switchStarted('learn');
    expect(mode.view()).toMatchObject({ switching: 'learn' });
    mode.fromResult({ mode: 'learn', source: 'switched' }, here);
    expect(mode.view()).toEqual({ current: 'learn' });
    expect(mode.viewAt(here)).toEqual({ current: 'learn' });
    // Read on tab 7's page load: not the mode of another load, nor of another tab.
    expect(mode.viewAt({ tabId: 7, page: {} })).toEqual({ current: null });
    expect(mode.viewAt({ tabId: 9, page: here.page })).toEqual({ current: null });
    mode.fromSnapshot({ url: '', title: '', mode: 'computer', status: 'idle', latestStep: '', question: '', interactions: [], conversations: [] }, here);
    expect(mode.view()).toEqual({ current: 'computer' });
    mode.switchStarted('review');
    mode.switchFailed(new Error('menu missing'));
    expect(mode.view()).toEqual({ current: 'computer', error: '[INTERNAL] menu missing' });
    mode.reset();
    expect(mode.view()).toEqual({ current: null });
  });
});
