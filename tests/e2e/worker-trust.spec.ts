import { expect, test } from '@playwright/test';
import type { RelayError } from '../../lib/protocol/errors';
import { RelayClient } from '../../lib/relay/client';
import { PANEL_PORT } from '../../lib/protocol/ports';
import { evaluateInContentScript } from '../support/content-world';
import { HOSTILE_URLS } from '../support/hostile-urls';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * The service worker is the trust boundary: whatever reaches it through the host socket is
 * checked there again, not only in the MCP tools. These tests talk to the real host socket with a
 * raw relay client, bypassing every check the tools make.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
let raw: RelayClient;
test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'B', clientName: 'trusting-agent' });
  raw = new RelayClient({ home: world.harness.home, client: { name: 'raw-socket-client' }, transport: 'stdio' });
});
test.afterAll(async () => {
  raw?.close();
  await world?.harness.close();
});

test('a raw tabs.navigate with a hostile URL is refused by the worker itself; the tab stays where it was', async () => {
  const before = world.page.url();
  for (const url of HOSTILE_URLS) {
    const outcome = await raw.call('tabs.navigate', { url }, { timeoutMs: 10_000 }).then(
      (value) => `navigated: ${JSON.stringify(value)}`,
      (error: RelayError) => `[${error.code}] ${error.message}`,
    );
    expect(outcome, url).toMatch(/^\[INVALID_URL\] .*perplexity\.ai/);
  }
  expect(world.page.url()).toBe(before);
  // A Perplexity URL still opens.
  const ok = await raw.call('tabs.navigate', { url: 'https://www.perplexity.ai/library' }, { timeoutMs: 20_000 });
  expect(ok.url).toBe('https://www.perplexity.ai/library');
  await expect(world.page).toHaveURL('https://www.perplexity.ai/library');
});

test('the panel port refuses a content script: it gets no state and cannot change the settings', async () => {
  const outcome = await evaluateInContentScript<{ seen: string[]; disconnected: boolean }>(
    world.page,
    `new Promise((resolve) => {
      const port = chrome.runtime.connect({ name: ${JSON.stringify(PANEL_PORT)} });
      const seen = [];
      port.onMessage.addListener((m) => seen.push(m.kind + ':' + (m.event || m.id)));
      port.onDisconnect.addListener(() => resolve({ seen, disconnected: true }));
      port.postMessage({ kind: 'request', id: 'evil-1', method: 'panel.setSettings', params: { readOnly: true, requireApproval: true } });
      setTimeout(() => resolve({ seen, disconnected: false }), 2000);
    })`,
  );
  expect(outcome).toEqual({ seen: [], disconnected: true });
  const stored = await world.harness.worker.evaluate("chrome.storage.local.get('settings').then((r) => r.settings ?? null)");
  expect(stored).toBeNull();
  // The real panel still connects and gets its state.
  const panel = await world.harness.openPanel();
  await expect(panel.getByTestId('link-state')).toHaveAttribute('data-state', 'connected');
  await panel.close();
});
