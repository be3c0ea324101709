import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageAccessWords } from '../../lib/protocol/page-access';
import { ActionIndicator, type ActionApi, actionLook } from '../../lib/worker/link/action-state';
import type { LinkStatus } from '../../lib/worker/link/native-link';
import { iconFiles } from '../support/icons';
import { decodePng } from '../support/png';

const PUBLIC = path.resolve(import.meta.dirname, '../../public');
const status = (over: Partial<LinkStatus>): LinkStatus => ({ state: 'disconnected', since: 0, failures: 0, ...over });

describe('toolbar icon: connected to the host, but the browser keeps comet-relay out of the page', () => {
  it('is never green: red dot, "!" badge, and the cause with its fix in the tooltip', () => {
    const access = pageAccessWords({ state: 'blocked-by-policy', settled: true }, { browserName: 'Comet', tabId: 3, form: { command: 'comet-relay' } });
    const look = actionLook(status({ state: 'connected', hostVersion: '0.1.0' }), access);
    expect(look).toMatchObject({ state: 'disconnected', badgeText: '!' });
    expect(look.title).toBe(
      "comet-relay — Blocked on perplexity.ai by a browser policy. To fix it, run `comet-relay unblock --browser comet`, which lets comet-relay's extension alone in, and restart Comet.",
    );
  });

  it('a page still loading leaves the icon connected, and the indicator follows the access as it changes', () => {
    const loading = pageAccessWords({ state: 'loading', settled: false }, { browserName: 'Chromium', tabId: 3 });
    expect(actionLook(status({ state: 'connected' }), loading).state).toBe('connected');
    const calls: string[] = [];
    const api: ActionApi = {
      setIcon: async ({ path }) => void calls.push(`icon ${path['16']}`),
      setTitle: async () => {},
      setBadgeText: async ({ text }) => void calls.push(`badge ${text}`),
      setBadgeBackgroundColor: async () => {},
    };
    const indicator = new ActionIndicator(api);
    indicator.show(status({ state: 'connected' }));
    indicator.showAccess(pageAccessWords({ state: 'site-access-off', settled: true }, { browserName: 'Chromium' }));
    indicator.showAccess(null);
    return Promise.resolve().then(() =>
      expect(calls).toEqual(['icon /action/connected-16.png', 'badge ', 'icon /action/disconnected-16.png', 'badge !', 'icon /action/connected-16.png', 'badge ']),
    );
  });
});

describe('toolbar icon: connection state → look', () => {
  it('connected: green dot, no badge, the host version in the tooltip', () => {
    expect(actionLook(status({ state: 'connected', hostVersion: '0.1.0' }))).toEqual({
      state: 'connected',
      icon: { '16': '/action/connected-16.png', '32': '/action/connected-32.png' },
      title: 'comet-relay — connected to the host 0.1.0. Click to open the side panel.',
      badgeText: '',
      badgeColor: '#D93025',
    });
  });

  it('connecting for the first time: amber dot, no badge', () => {
    expect(actionLook(status({ state: 'connecting' }))).toMatchObject({ state: 'connecting', badgeText: '', title: 'comet-relay — connecting to the host…' });
  });

  it('disconnected: red dot, "!" badge, and the reason in the tooltip', () => {
    const look = actionLook(status({ state: 'disconnected', failures: 1, detail: 'Specified native messaging host not found. run `npx comet-relay install`' }));
    expect(look).toMatchObject({ state: 'disconnected', badgeText: '!', icon: { '16': '/action/disconnected-16.png' } });
    expect(look.title).toBe('comet-relay — not connected: Specified native messaging host not found. run `npx comet-relay install`');
  });

  it('a retry after a failure stays "not connected" instead of blinking amber', () => {
    expect(actionLook(status({ state: 'connecting', failures: 3 }))).toMatchObject({ state: 'disconnected', badgeText: '!', title: expect.stringContaining('retrying (attempt 4)') });
  });

  it('an incompatible host is an error, and a long reason is cut for the tooltip', () => {
    const look = actionLook(status({ state: 'incompatible', detail: `Protocol mismatch ${'x'.repeat(400)}` }));
    expect(look).toMatchObject({ state: 'disconnected', badgeText: '!' });
    expect(look.title.length).toBeLessThan(330);
    expect(look.title.endsWith('…')).toBe(true);
  });

  it('every icon the looks name is in public/, exactly as tests/support/icons.ts draws it', () => {
    const named = (['connected', 'connecting', 'disconnected'] as const).flatMap((state) =>
      Object.entries(actionLook(status(state === 'connecting' ? { state } : { state, failures: 1 })).icon),
    );
    expect(named).toHaveLength(6);
    for (const [size, icon] of named) {
      const { width, height } = decodePng(fs.readFileSync(path.join(PUBLIC, icon)));
      expect([width, height]).toEqual([Number(size), Number(size)]);
    }
    for (const { file, size, rgba } of iconFiles()) {
      const png = decodePng(fs.readFileSync(path.join(PUBLIC, file)));
      expect([file, png.width, png.height]).toEqual([file, size, size]);
      expect(png.rgba.equals(rgba()), `${file} differs from what \`npm run icons\` draws: run it again`).toBe(true);
    }
  });

  it('the extension icons follow WXT conventions (public/icon/<size>.png) at the sizes Chromium uses', () => {
    expect(fs.readdirSync(path.join(PUBLIC, 'icon')).sort()).toEqual(['128.png', '16.png', '32.png', '48.png']);
  });
});

describe('toolbar icon: calls waiting for approval', () => {
  it('the count takes the badge in amber, and the link\'s words stay in the tooltip', () => {
    const look = actionLook(status({ state: 'connected', hostVersion: '0.1.0' }), null, 2);
    expect(look).toMatchObject({ state: 'connected', badgeText: '2', badgeColor: '#B7791F' });
    expect(look.title).toBe('comet-relay — 2 calls waiting for your approval; connected to the host 0.1.0. Click to open the side panel.');
  });

  it('approvals and a blocked page never wipe each other (they once had two writers: the last approval cleared the "!")', async () => {
    const shown = { badge: '', title: '' };
    const api: ActionApi = {
      setIcon: async () => {},
      setTitle: async ({ title }) => {
        shown.title = title;
      },
      setBadgeText: async ({ text }) => {
        shown.badge = text;
      },
      setBadgeBackgroundColor: async () => {},
    };
    const indicator = new ActionIndicator(api);
    indicator.show(status({ state: 'connected' }));
    indicator.showAccess(pageAccessWords({ state: 'blocked-by-policy', settled: true }, { browserName: 'Comet', tabId: 3 }));
    indicator.showWaiting(1);
    await Promise.resolve();
    expect(shown).toMatchObject({ badge: '1' });
    expect(shown.title).toContain('1 call waiting for your approval; Blocked on perplexity.ai by a browser policy.');
    indicator.showWaiting(0);
    await Promise.resolve();
    expect(shown.badge).toBe('!');
    expect(shown.title).toContain('Blocked on perplexity.ai by a browser policy.');
    expect(shown.title).not.toContain('approval');
  });
});

describe('ActionIndicator', () => {
  function fakeApi() {
    const calls: string[] = [];
    const api: ActionApi = {
      setIcon: async (d) => void calls.push(`icon ${d.path['16']}`),
      setTitle: async (d) => void calls.push(`title ${d.title}`),
      setBadgeText: async (d) => void calls.push(`badge "${d.text}"`),
      setBadgeBackgroundColor: async (d) => void calls.push(`color ${d.color}`),
    };
    return { api, calls };
  }

  it('updates only what changed', async () => {
    const { api, calls } = fakeApi();
    const indicator = new ActionIndicator(api);
    indicator.show(status({ state: 'connecting' }));
    indicator.show(status({ state: 'connected', hostVersion: '0.1.0' }));
    indicator.show(status({ state: 'connected', hostVersion: '0.1.0' }));
    indicator.show(status({ state: 'disconnected', failures: 1, detail: 'the host exited' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual([
      'icon /action/connecting-16.png',
      'title comet-relay — connecting to the host…',
      'color #D93025',
      'badge ""',
      'icon /action/connected-16.png',
      'title comet-relay — connected to the host 0.1.0. Click to open the side panel.',
      'icon /action/disconnected-16.png',
      'title comet-relay — not connected: the host exited',
      'badge "!"',
    ]);
  });

  it('a failing action API (sync or async) never throws into the link', async () => {
    const api: ActionApi = {
      setIcon: () => {
        throw new Error('no action');
      },
      setTitle: async () => {
        throw new Error('gone');
      },
      setBadgeText: async () => {},
      setBadgeBackgroundColor: async () => {},
    };
    expect(() => new ActionIndicator(api).show(status({ state: 'connected' }))).not.toThrow();
    await new Promise((r) => setTimeout(r, 0));
  });
});
