import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Runtime } from 'webextension-polyfill';
import type { Request } from '../../lib/protocol/messages';
import { PanelService, type PanelServiceDeps } from '../../lib/worker/panel/panel-service';

/**
 * Held calls reach the panel whatever the browser's status does (review 13b, R13b-8): the panel's every state waited
 * on it, and it asks the browser to run a script in a Perplexity tab without our page script, which a renderer with a
 * dialog open, or hung, never answers. No card was shown, and the held call timed out unseen.
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));
afterEach(() => vi.useRealTimers());

async function heldWith(status: () => Promise<unknown>, posted: unknown[] = []) {
  const deps = {
    router: () => ({}),
    tabs: { drivenTab: async () => ({ id: 7, title: 'T', url: 'https://www.perplexity.ai/search/x' }), connectedDrivenTab: () => undefined },
    pages: { state: () => undefined, document: () => undefined, askCount: () => 0, request: async () => ({}) },
    status,
    identity: async () => ({ browser: { name: 'Chromium', version: '156', userAgent: 'x' }, profile: { id: 'p', label: 'P' } }),
    renameProfile: async () => {},
    link: () => ({ state: 'connected', since: 0, failures: 0 }),
    restartLink: () => {},
    clients: () => [],
    packs: () => ({ added: [], readers: [], problems: [] }),
  } as unknown as PanelServiceDeps;
  const panel = new PanelService(deps);
  await panel.settings.update({ requireApproval: true });
  const listeners = { addListener: () => {} };
  panel.accept({ name: 'panel', onDisconnect: listeners, onMessage: listeners, postMessage: (m: unknown) => posted.push(m) } as unknown as Runtime.Port);
  const request: Request = { kind: 'request', id: 'k1:1', method: 'threads.start', params: {}, origin: { clientId: 'k1', clientName: 'Agent', tool: 'call_perplexity_computer', door: 'loopback' } };
  void panel.authorize(request, { message: 'Book the flight' }, new AbortController().signal, () => {}).catch(() => {});
  return () => (posted.filter((m) => (m as { event?: string }).event === 'panel.state') as { data: { approvals: unknown[] } }[]).some((s) => s.data.approvals.length === 1);
}

describe('the panel and a browser status that does not come', () => {
  it('shows a held call once the status answers, and within seconds when it never does', async () => {
    vi.useFakeTimers();
    const answered = await heldWith(async () => ({}));
    await vi.advanceTimersByTimeAsync(100);
    expect(answered()).toBe(true);
    const never = await heldWith(() => new Promise(() => {}));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(never()).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(never()).toBe(true);
  });

  it('a status that comes late reaches the panel once it comes; till then the last one stands (review 13d, 7)', async () => {
    vi.useFakeTimers();
    const tab = { tabId: '7', url: 'https://www.perplexity.ai/search/x', title: 'T' };
    const posted: unknown[] = [];
    await heldWith(() => new Promise((resolve) => setTimeout(() => resolve({ perplexityTab: tab }), 5_000)), posted);
    await vi.advanceTimersByTimeAsync(12_000);
    const tabs = (posted.filter((m) => (m as { event?: string }).event === 'panel.state') as { data: { perplexityTab: unknown } }[]).map((s) => s.data.perplexityTab);
    expect(tabs.at(-1)).toEqual(tab);
    // Once it was known, a slow status never makes the panel say there is no tab.
    expect(tabs.slice(tabs.indexOf(tabs.find((t) => t !== null))).every((t) => t !== null)).toBe(true);
  });
});
