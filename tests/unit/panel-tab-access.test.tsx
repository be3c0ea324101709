// @vitest-environment happy-dom
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../components/App';
import type { PanelConnection } from '../../lib/panel/connection';
import { pageAccessWords } from '../../lib/protocol/page-access';
import type { PanelState } from '../../lib/protocol/panel';
import { panelState } from '../support/panel-state';

/**
 * A Perplexity tab comet-relay cannot get into (a browser policy, site access off) or that is still loading is open:
 * the Connection card's tab row and the Mode card say so, in page-access.ts's words, never "none open" nor "open a
 * Perplexity tab", which a new tab would not cure (review 15f, F1).
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const base = (pageAccess: unknown) =>
  panelState({ browser: { name: 'Comet', version: '156.0.0.0', userAgent: 'Comet/156' }, otherTabs: { allowed: true }, pageAccess });


function show(state: PanelState) {
  const connection = { subscribe: (l: (s: PanelState) => void) => {
      l(state);
      return () => {};
    },
    onProblem: () => () => {}, request: async () => ({}) } as unknown as PanelConnection;
  const host = document.createElement('div');
  document.body.append(host);
  act(() => render(h(App, { connection }), host));
  return host;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a Perplexity tab comet-relay cannot get into is not "none open"', () => {
  it('with no tab at all, the tab row and the Mode card say none is open', () => {
    const host = show(base(null));
    expect(host.querySelector('[data-testid="perplexity-tab"]')?.textContent).toBe('none open');
    expect(host.querySelector('[data-testid="mode-disabled"]')?.textContent).toMatch(/No Perplexity tab is open/);
  });

  for (const [state, settled] of [
    ['blocked-by-policy', true],
    ['site-access-off', true],
    ['loading', false],
  ] as const) {
    it(`${state}: the tab row and the Mode card do not say no Perplexity tab is open`, () => {
      const words = pageAccessWords({ state, settled }, { browserName: 'Comet', tabId: 7 });
      const host = show(base(words));
      expect(host.querySelector('[data-testid="page-access"]')?.textContent).toContain('tab 7');
      expect(host.querySelector('[data-testid="perplexity-tab"]')?.textContent).toBe(`tab 7 · ${words.title}`);
      const mode = host.querySelector('[data-testid="mode-disabled"]')?.textContent ?? '';
      expect(mode).not.toMatch(/No Perplexity tab is open/);
      // What is wrong and what to do, as the tools say it.
      expect(mode).toContain(words.title);
      expect(mode.toLowerCase()).toContain(words.fix.toLowerCase());
    });
  }
});
