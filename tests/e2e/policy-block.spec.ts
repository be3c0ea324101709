import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { CLI, Harness, textOf } from '../support/harness';
import { BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS, ManagedPolicy, managedPolicySupport } from '../support/managed-policy';
import { routePlaceholder } from '../support/placeholder-site';

/**
 * A browser whose ExtensionSettings policy forbids extensions on perplexity.ai — what Comet ships
 * with, and what an administrator can set in any Chromium — enforced by Chromium's own policy engine.
 * The policy lives in a private mount namespace of this Chromium alone (tests/support/managed-policy.ts):
 * no other Chromium on the machine sees it, and nothing is left behind by a killed run.
 * Measured 2026-12-02: the "*" block reaches an extension loaded with --load-extension.
 */
test.describe.configure({ mode: 'serial' });

const support = managedPolicySupport();
let policy: ManagedPolicy | undefined;
let harness: Harness;

test.beforeAll(async () => {
  if (!support.ok) return;
  policy = new ManagedPolicy();
  policy.write('block-perplexity', BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS);
  harness = await Harness.start({ site: routePlaceholder, executablePath: policy.executablePath });
  await harness.waitForHost();
  await harness.openPerplexity();
});
test.afterAll(async () => {
  await harness?.close();
  policy?.cleanup();
});

// Installed the way a clone is (`node dist/cli.js install --home H`, as the harness does): the host
// tells the extension that form, absolute, and its state folder, and every word the extension
// prints says both (issue 31, item 2; day-5 review F7).
const unblock = () => `node ${CLI} unblock --browser chromium --home ${harness.home}`;

test('comet_connect and comet_poll name the policy block and the command, not "reload the tab"', async () => {
  test.skip(!support.ok, support.ok ? '' : support.reason);
  const client = await harness.stdioClient('policy-block');
  const connect = await client.callTool({ name: 'comet_connect', arguments: {} });
  expect(connect.isError).toBe(true);
  expect(textOf(connect)).toMatch(/\[BROWSER_POLICY\] An ExtensionSettings policy of this browser \(Chromium\) blocks extensions on perplexity\.ai/);
  expect(textOf(connect)).toContain('cannot be scripted due to an ExtensionsSettings policy');
  expect(textOf(connect)).toContain(unblock());
  const poll = await client.callTool({ name: 'comet_poll', arguments: {} });
  expect(poll.isError).toBe(true);
  expect(textOf(poll)).toMatch(/^\[BROWSER_POLICY\] .*blocks extensions on perplexity\.ai/);
  expect(textOf(poll)).toContain(unblock());
});

test('doctor fails the Perplexity tab check with the same words and exits non-zero', () => {
  test.skip(!support.ok, support.ok ? '' : support.reason);
  let output = '';
  let status = 0;
  try {
    output = execFileSync(process.execPath, [CLI, 'doctor', '--user-data-dir', harness.userDataDir], { env: harness.env, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout: string }).stdout);
    status = (error as { status: number }).status;
  }
  expect(status, output).not.toBe(0);
  expect(output).toMatch(/✘ Perplexity tab[^\n]*\[BROWSER_POLICY\] An ExtensionSettings policy of this browser \(Chromium\) blocks extensions on perplexity\.ai/);
  expect(output).toMatch(new RegExp(`fix: run \`${unblock()}\``));
});

test('the side panel shows the block as its own state with the command to copy, never "Connected"', async () => {
  test.skip(!support.ok, support.ok ? '' : support.reason);
  const panel = await harness.openPanel();
  await expect(panel.getByTestId('page-access')).toHaveAttribute('data-state', 'blocked-by-policy', { timeout: 15_000 });
  await expect(panel.getByTestId('page-access')).toContainText('blocks extensions on perplexity.ai');
  await expect(panel.getByTestId('page-access-command')).toHaveText(unblock());
  await expect(panel.getByTestId('page-access')).toContainText(`run \`${unblock()}\`, which`);
  await expect(panel.getByTestId('link-state')).not.toContainText('Connected');
});
