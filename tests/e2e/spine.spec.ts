import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { CLI, Harness, textOf } from '../support/harness';
import { allowOtherTabsFromPanel } from '../support/other-tabs';
import { routePlaceholder } from '../support/placeholder-site';
import { pageContentMarkers } from '../../lib/mcp/fence';
import { EXTENSION_ID } from '../../lib/protocol/identity';
import { listHosts } from '../../lib/relay/discovery';

/** The whole path of one call, for real: MCP client → comet-relay → host → worker → tab → back. */
test.describe.configure({ mode: 'serial' });

let harness: Harness;

test.beforeAll(async () => {
  harness = await Harness.start({ site: routePlaceholder });
});
test.afterAll(async () => harness?.close());

test('the extension ID is the one pinned by the manifest key', () => {
  expect(harness.extensionId).toBe(EXTENSION_ID);
});

test('the browser starts the host, which registers the profile for discovery', async () => {
  const host = await harness.waitForHost();
  expect(host.profileId).toMatch(/^[0-9a-f]{16}$/);
  expect(host.browser.version).toMatch(/^\d+\./);
  const mode = fs.statSync(host.socketPath).mode & 0o777;
  expect(mode).toBe(0o600);
});

test('tools/list answers over stdio, and comet_list_tabs reaches the browser', async () => {
  await harness.openPerplexity('https://www.perplexity.ai/search/spine-test');
  const page = await harness.context.newPage();
  await page.goto('https://example.com/article');
  const client = await harness.stdioClient();
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['comet_connect', 'comet_list_tabs', 'comet_switch_tab', 'comet_get_page_content']));
  const text = textOf(await client.callTool({ name: 'comet_list_tabs', arguments: {} }));
  expect(text).toMatch(/=== Main \(1\) ===\n {2}\[\d+\] Perplexity \/search\/spine-test — https:\/\/www\.perplexity\.ai\/search\/spine-test/);
  // Another tab's title and URL are the person's, as its text is: listed only once they allow reading other tabs.
  expect(text).not.toContain('example.com');
  expect(text).toMatch(/\[\d+ other tabs? not listed: Reading tabs other than Perplexity is off/);
  await allowOtherTabsFromPanel(harness);
  const granted = textOf(await client.callTool({ name: 'comet_list_tabs', arguments: {} }));
  expect(granted).toMatch(/=== Agent Browsing \(1\) ===\n {2}\[\d+\] Example Domain — https:\/\/example\.com\/article/);
});

test('comet_connect reports the browser, profile and tab without closing any tab', async () => {
  const before = harness.context.pages().length;
  const client = await harness.stdioClient('connect-client');
  const text = textOf(await client.callTool({ name: 'comet_connect', arguments: { port: 9222 } }));
  expect(text).toMatch(/^Connected to \S+ on profile ".+" \(Chrome\/\d+[\d.]*\), target tab \d+/);
  expect(text).toContain('port parameter (9222) is ignored');
  expect(harness.context.pages().length).toBe(before);
});

test('comet_switch_tab and comet_get_page_content act on the chosen tab', async () => {
  const client = await harness.stdioClient('switch-client');
  const switched = textOf(await client.callTool({ name: 'comet_switch_tab', arguments: { title: 'Example' } }));
  expect(switched).toMatch(/^Switched to tab \[\d+\] Example Domain — https:\/\/example\.com\/article$/);
  // Allowed in the test above (the tab list needs it too); the page comes fenced.
  const content = textOf(await client.callTool({ name: 'comet_get_page_content', arguments: {} }));
  const nonce = /<<<BEGIN PAGE CONTENT nonce=([0-9a-f]{32})>>>/.exec(content)?.[1];
  const { begin, end } = pageContentMarkers(nonce ?? 'missing');
  expect(content).toContain(`${begin}\nURL: https://example.com/article\nTitle: Example Domain\n\nAn agent browsing page.\n${end}`);
  const missing = await client.callTool({ name: 'comet_switch_tab', arguments: { tabId: '999999' } });
  expect(missing.isError).toBe(true);
  expect(textOf(missing)).toBe('Tab not found matching ID "999999"');
  const neither = await client.callTool({ name: 'comet_switch_tab', arguments: {} });
  expect(textOf(neither)).toMatch(/At least one of tabId or title/);
  const back = textOf(await client.callTool({ name: 'comet_switch_tab', arguments: { title: 'spine-test' } }));
  expect(back).toContain('perplexity.ai/search/spine-test');
  const perplexity = textOf(await client.callTool({ name: 'comet_get_page_content', arguments: { maxLength: 12 } }));
  expect(perplexity).toMatch(/^Title: Perplexity \/search\/spine-test\n\nPerplexity \/\n\n\[Truncated: showing 12 of \d+ characters/);
});

test('invalid input is an error result naming the field, and the server keeps serving', async () => {
  const client = await harness.stdioClient('bad-input');
  const bad = await client.callTool({ name: 'comet_get_page_content', arguments: { maxLength: 'lots' } });
  expect(bad.isError).toBe(true);
  expect(textOf(bad)).toMatch(/maxLength/);
  const good = await client.callTool({ name: 'comet_list_tabs', arguments: {} });
  expect(good.isError).toBeFalsy();
});

test('over HTTP: 401 without the token, then the same tools with it', async () => {
  const { url, token } = await harness.startServe();
  const bare = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  expect(bare.status).toBe(401);
  // The hint names the command the way this copy runs (`node …/dist/cli.js token` from a clone).
  expect(await bare.text()).toMatch(/(comet-relay|cli\.js) token/);
  // fetch may not set Host (a forbidden header), so send the rebinding attempt with node:http.
  const wrongHost = await rawPost(url, { host: 'evil.example:80', authorization: `Bearer ${token}` });
  expect(wrongHost).toBe(403);
  const wrongOrigin = await fetch(url, { method: 'POST', headers: { origin: 'https://evil.example', authorization: `Bearer ${token}` }, body: '{}' });
  expect(wrongOrigin.status).toBe(403);
  const client = await harness.httpClient(url, token);
  const { tools } = await client.listTools();
  expect(tools.length).toBeGreaterThanOrEqual(4);
  const text = textOf(await client.callTool({ name: 'comet_list_tabs', arguments: {} }));
  expect(text).toContain('=== Main (1) ===');
});

test('two clients at once get their own answers, and the host lists both by name', async () => {
  const alpha = await harness.stdioClient('alpha-agent');
  const beta = await harness.stdioClient('beta-agent');
  const calls = Array.from({ length: 20 }, (_, i) =>
    (i % 2 ? beta : alpha).callTool({ name: 'comet_get_page_content', arguments: { maxLength: 5 + i } }),
  );
  const results = await Promise.all(calls);
  for (const [i, result] of results.entries()) expect(textOf(result)).toContain(`showing ${5 + i} of`);
  const status = JSON.parse(execFileSync(process.execPath, [CLI, 'status', '--json'], { env: harness.env }).toString());
  const names = status[0].clients.map((c: { name: string }) => c.name);
  expect(names).toEqual(expect.arrayContaining(['alpha-agent', 'beta-agent']));
  // The host's key proves it to clients; it stays in the record, never in what status prints.
  expect(listHosts(harness.home)[0]?.key).toMatch(/^[0-9a-f]{64}$/);
  expect(status[0].host).not.toHaveProperty('key');
});

test('killing the host: the extension starts a new one and the next call succeeds', async () => {
  const client = await harness.stdioClient('survivor');
  expect(textOf(await client.callTool({ name: 'comet_list_tabs', arguments: {} }))).toContain('Main');
  const old = listHosts(harness.home)[0]!;
  process.kill(old.pid, 'SIGKILL');
  const fresh = await harness.waitForHost(15_000, old.pid);
  expect(fresh.pid).not.toBe(old.pid);
  const after = await client.callTool({ name: 'comet_list_tabs', arguments: {} });
  expect(after.isError).toBeFalsy();
  expect(textOf(after)).toContain('=== Main (1) ===');
});

function rawPost(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    request.on('error', reject);
    request.end('{}');
  });
}
