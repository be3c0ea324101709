// @vitest-environment happy-dom
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, it } from 'vitest';
import { ActivityCard } from '../../components/agents/ActivityCard';
import { ConnectionCard } from '../../components/settings/ConnectionCard';
import type { PanelConnection } from '../../lib/panel/connection';
import { ActivityEntry } from '../../lib/protocol/panel';
import { panelState } from '../support/panel-state';

/** A button whose request fails says why under it; nothing is swallowed (review 15f, F12). */
const failing = { request: async () => Promise.reject(Object.assign(new Error('The extension restarted; try again.'), { code: 'CANCELLED' })) } as unknown as PanelConnection;

const STATE = panelState({ link: { state: 'disconnected', since: 1, failures: 2, detail: 'The host is not running.' } });

const press = async (host: HTMLElement, name: string) => {
  const button = [...host.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement;
  await act(async () => {
    button.click();
    await new Promise((r) => setTimeout(r, 0));
  });
};

describe('errors the panel used to swallow', () => {
  it('"Reconnect now" that fails says why', async () => {
    const host = document.createElement('div');
    await act(() => render(h(ConnectionCard, { state: STATE, connection: failing }), host));
    await press(host, 'Reconnect now');
    expect(host.querySelector('[data-testid="reconnect-error"]')?.textContent).toBe('[CANCELLED] The extension restarted; try again.');
  });

  it('"Clear" in Activity that fails says why', async () => {
    const host = document.createElement('div');
    const entry = ActivityEntry.parse({ id: 'a1', clientName: 'Claude Code', tool: 'comet_ask', method: 'page.ask', summary: 'x', startedAt: 1, endedAt: 2, ok: true });
    await act(() => render(h(ActivityCard, { activity: [entry], approvals: [], connection: failing }), host));
    await press(host, 'Clear');
    expect(host.querySelector('[data-testid="activity-clear-error"]')?.textContent).toBe('[CANCELLED] The extension restarted; try again.');
  });
});
