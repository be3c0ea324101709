// @vitest-environment happy-dom
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../components/App';
import { connectPanel } from '../../lib/panel/connection';
import { panelState } from '../support/panel-state';

/**
 * The side panel's page is read from disk each time it opens, the extension's worker only when the extension is
 * reloaded: after an upgrade in place the panel can be a newer build than the worker it talks to. A state it cannot
 * read is said, with the step, instead of "Connecting…" for good (review 8, skew F1).
 */
const port = vi.hoisted(() => ({ deliver: (_message: unknown) => {} }));
vi.mock('wxt/browser', () => ({
  browser: {
    runtime: {
      connect: () => ({
        onMessage: { addListener: (listener: (message: unknown) => void) => (port.deliver = listener) },
        onDisconnect: { addListener: () => {} },
        postMessage: () => {},
      }),
    },
  },
}));

/** A state as this build's worker pushes it: a connected link, no tab, nothing running. */
const STATE = panelState();

const push = (data: unknown) => act(() => port.deliver({ kind: 'event', event: 'panel.state', data }));

describe('a side panel and a worker of different builds', () => {
  it('a state the panel cannot read is said, with the reload that ends it; a readable one shows again', async () => {
    const connection = connectPanel();
    const host = document.createElement('div');
    await act(() => render(h(App, { connection }), host));
    expect(host.textContent).toBe('Connecting to the extension…');

    const { pageAccess: _unknownToTheOlderWorker, ...older } = STATE;
    await push(older);
    const alert = host.querySelector('[role="alert"]');
    expect(alert?.textContent).toMatch(/^This side panel cannot read the state the extension sends \(pageAccess: [^)]+\)\. If comet-relay was upgraded since the browser loaded it, the two are different builds: reload comet-relay on the browser's extensions page/);
    expect(host.textContent).not.toContain('Connecting');

    await push(STATE);
    expect(host.querySelector('[role="alert"]')).toBeNull();
    expect(host.querySelector('h1')?.textContent).toBe('comet-relay');
    render(null, host);
  });
});
