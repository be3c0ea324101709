import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { CLI, Harness, textOf } from '../support/harness';
import { routePlaceholder } from '../support/placeholder-site';

/** A browser whose native host was never registered: every layer says what is wrong and what to do. */
test.describe.configure({ mode: 'serial' });

let harness: Harness;
test.beforeAll(async () => {
  harness = await Harness.start({ site: routePlaceholder, registerHost: false, extraEnv: { COMET_HOST_WAIT: '0' } });
});
test.afterAll(async () => harness?.close());

test('tools/list still answers, and a browser tool says no browser is connected and what to do', async () => {
  const client = await harness.stdioClient('broken-setup');
  const { tools } = await client.listTools();
  // The 13 comet_* tools, comet_export_thread and the eleven thread tools.
  expect(tools.length).toBe(25);
  for (const name of ['comet_list_tabs', 'models_list']) {
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError, name).toBe(true);
    // The MCP server runs as node + this clone's dist/cli.js: the hint says doctor in those words.
    expect(textOf(result), name).toMatch(/^\[EXTENSION_NOT_CONNECTED\] No browser with the comet-relay extension is connected\..*run `node (?:dist\/cli\.js|\S+\/dist\/cli\.js) doctor(?: --home \S+)?` to see which link is broken\.$/);
  }
});

test('the extension reports the missing host with the install hint', async () => {
  const panel = await harness.openPanel();
  await expect(panel.getByTestId('link-state')).toHaveAttribute('data-state', /disconnected|connecting/);
  // No host has ever said how comet-relay runs here: the global command, and how to adapt it.
  await expect(panel.getByTestId('link-detail')).toContainText('run `comet-relay install` (or however you run comet-relay, followed by `install`)', { timeout: 15_000 });
  await expect(panel.getByTestId('doctor-command')).toHaveText('comet-relay doctor');
});

test('doctor names the broken link and exits non-zero', () => {
  let output = '';
  let status = 0;
  try {
    execFileSync(process.execPath, [CLI, 'doctor', '--user-data-dir', harness.userDataDir], { env: harness.env, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout: string }).stdout);
    status = (error as { status: number }).status;
  }
  expect(status).not.toBe(0);
  // Run as `node <this clone's dist/cli.js>`: the fix says install in those words.
  expect(output).toMatch(/✘ manifest[^\n]*\n\s+fix: run: node (?:dist\/cli\.js|\S+\/dist\/cli\.js) install --user-data-dir /);
  expect(output).toMatch(/✘ host running/);
});

test('after install, the extension connects on its own (its retry never gives up)', async () => {
  execFileSync(process.execPath, [CLI, 'install', '--user-data-dir', harness.userDataDir, '--home', harness.home], { env: harness.env });
  const panel = await harness.openPanel();
  const reconnect = panel.getByRole('button', { name: /reconnect/i });
  // The extension may reconnect by itself between the look and the click, and the button then goes
  // for good: a click that waited for it would wait out the test. The assertion below is what counts.
  if (await reconnect.isVisible()) await reconnect.click({ timeout: 2000 }).catch(() => {});
  await expect(panel.getByTestId('link-state')).toHaveAttribute('data-state', 'connected', { timeout: 40_000 });
  await harness.waitForHost();
});

test('once a host said how comet-relay runs here, the words say it, also when the host is gone again', async () => {
  // The host's welcome named the form install wrote into its launcher; the extension keeps it.
  // With the state folder it was installed with (--home): each command that takes one says it (day-5 review F7).
  const stored = () => harness.worker.evaluate("chrome.storage.local.get('hostCommand').then((r) => r.hostCommand ?? null)");
  await expect.poll(stored, { timeout: 10_000 }).toEqual({ command: `node ${CLI}`, home: harness.home });
  const host = await harness.waitForHost();
  execFileSync(process.execPath, [CLI, 'uninstall', '--user-data-dir', harness.userDataDir, '--home', harness.home], { env: harness.env });
  process.kill(host.pid);
  const panel = await harness.openPanel();
  const home = ` --home ${harness.home}`;
  await expect(panel.getByTestId('link-detail')).toContainText(`run \`node ${CLI} install${home}\`, then \`node ${CLI} doctor${home}\``, { timeout: 15_000 });
  await expect(panel.getByTestId('doctor-command')).toHaveText(`node ${CLI} doctor${home}`);
});
