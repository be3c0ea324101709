import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Page } from 'playwright-core';
import { LINUX_POLICY_FILE } from '../../lib/install/policy-places';
import { PERPLEXITY_HOSTS } from '../../lib/install/unblock';
import { EXTENSION_ID } from '../../lib/protocol/identity';
import { routeSim } from '../sim/playwright';
import { createSimSite } from '../sim/site';
import { CLI, EXTENSION_DIR, Harness, textOf } from '../support/harness';
import { BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS, ManagedPolicy, managedPolicySupport } from '../support/managed-policy';

/**
 * `comet-relay unblock` against Chromium's own policy engine: a managed policy blocks perplexity.ai
 * for every extension (what Comet ships with); unblock lets comet-relay's extension in and leaves the
 * block on every other extension (a second extension, loaded beside ours, proves it); after a restart
 * the whole chain works; `--undo` restores the block. The policy folder is a temporary one, seen at
 * /etc/chromium/policies/managed only inside the private mount namespaces of this suite's Chromium
 * and of the `unblock` command (tests/support/managed-policy.ts): the machine's real folder is untouched.
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(120_000);

/** The two extension APIs this suite calls in the service worker. */
declare const chrome: {
  tabs: { query(filter: { url: string }): Promise<{ id?: number }[]> };
  scripting: { executeScript(injection: { target: { tabId: number }; func: () => string }): Promise<{ result?: unknown }[]> };
};

const BLOCK_FILE = '10-block-perplexity.json';
/** What Chromium answers scripting on a page its ExtensionSettings policy keeps an extension out of. */
const POLICY_REFUSAL = /cannot be scripted due to an ExtensionsSettings policy/;
const OTHER_MARK = 'data-other-extension';

let policy: ManagedPolicy;
let otherExtension: string;
let unblockHome: string;
let harness: Harness | undefined;

test.beforeAll(() => {
  const support = managedPolicySupport();
  if (!support.ok) throw new Error(`This suite needs a private managed policy: ${support.reason}`);
  policy = new ManagedPolicy();
  policy.write(BLOCK_FILE, BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS);
  unblockHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-unblock-home-'));
  // Another extension, with a content script on perplexity.ai that marks the page where it runs.
  otherExtension = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-other-extension-'));
  fs.writeFileSync(
    path.join(otherExtension, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name: 'another extension',
      version: '1.0',
      content_scripts: [{ matches: ['https://www.perplexity.ai/*'], js: ['mark.js'], run_at: 'document_start' }],
    }),
  );
  fs.writeFileSync(path.join(otherExtension, 'mark.js'), `document.documentElement.setAttribute('${OTHER_MARK}', 'ran');\n`);
});

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

test.afterAll(() => {
  policy?.cleanup();
  for (const dir of [otherExtension, unblockHome]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh Chromium under the managed policy as it is now (policy is read at start: this is the restart). */
async function startBrowser() {
  const site = createSimSite({ generation: 'B', scenario: 'short', speed: 4 });
  const both = `${EXTENSION_DIR},${otherExtension}`;
  harness = await Harness.start({
    site: (context) => routeSim(context, site),
    executablePath: policy.executablePath,
    // The last of a repeated switch wins: both extensions load, and only they.
    browserArgs: [`--disable-extensions-except=${both}`, `--load-extension=${both}`],
  });
  await harness.waitForHost();
  const page = await harness.openPerplexity();
  return { harness, site, page };
}

/** Asks Chromium itself whether comet-relay's extension may script the Perplexity tab: its answer, or its refusal. */
async function scriptOurTab(h: Harness): Promise<string> {
  return h.worker.evaluate(async () => {
    const [tab] = await chrome.tabs.query({ url: 'https://www.perplexity.ai/*' });
    if (tab?.id === undefined) return 'no Perplexity tab';
    try {
      const [result] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => `ran on ${location.host}` });
      return String(result?.result);
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  });
}

const otherMark = (page: Page) => page.evaluate((name) => document.documentElement.getAttribute(name), OTHER_MARK);

function runUnblock(args: string[]) {
  const result = policy.run(process.execPath, [CLI, 'unblock', '--browser', 'chromium', '--yes', '--home', unblockHome, ...args]);
  if (result.error) throw result.error;
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

test('under the block, Chromium refuses comet-relay\'s extension on perplexity.ai, and every other extension too', async () => {
  const { harness: h, page } = await startBrowser();
  expect(await scriptOurTab(h)).toMatch(POLICY_REFUSAL);
  expect(await otherMark(page)).toBeNull();
});

test('unblock --browser chromium writes the file that sorts last: the "*" block kept, our ID alone allowed', () => {
  const { status, out } = runUnblock([]);
  expect(status, out).toBe(0);
  expect(out).toContain(`/etc/chromium/policies/managed/${LINUX_POLICY_FILE}`);
  expect(out).toMatch(/Restart Chromium/);
  expect(policy.files()).toEqual({
    [BLOCK_FILE]: BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS,
    [LINUX_POLICY_FILE]: {
      ExtensionSettings: {
        ...BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS.ExtensionSettings,
        [EXTENSION_ID]: { runtime_allowed_hosts: [PERPLEXITY_HOSTS], runtime_blocked_hosts: [PERPLEXITY_HOSTS] },
      },
    },
  });
});

test('after a restart our extension runs on perplexity.ai while the other stays blocked, and the chain works', async () => {
  const { harness: h, page, site } = await startBrowser();
  expect(await scriptOurTab(h)).toBe('ran on www.perplexity.ai');
  // Both content scripts run at document_start: ours ran (above), the other's did not.
  expect(await otherMark(page)).toBeNull();
  const client = await h.stdioClient('policy-unblock');
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 });
    return { text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError) };
  };
  const connected = await call('comet_connect');
  expect(connected.isError, connected.text).toBe(false);
  expect(connected.text).toMatch(/^Connected to /);
  const asked = await call('comet_ask', { prompt: 'Does the unblocked extension reach the page?' });
  expect(asked.text).toBe('Prompt submitted successfully. Use comet_poll to track status or comet_wait to block until completion.');
  const waited = await call('comet_wait');
  expect(waited.isError, waited.text).toBe(false);
  expect(site.threads()[0]?.turns.map((turn) => turn.query)).toEqual(['Does the unblocked extension reach the page?']);
});

test('unblock --undo takes back exactly its file; after a restart the block is back for comet-relay too', async () => {
  const { status, out } = runUnblock(['--undo']);
  expect(status, out).toBe(0);
  expect(policy.files()).toEqual({ [BLOCK_FILE]: BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS });
  expect(fs.existsSync(path.join(unblockHome, 'unblock', 'chromium.json'))).toBe(false);
  const { harness: h, page } = await startBrowser();
  expect(await scriptOurTab(h)).toMatch(POLICY_REFUSAL);
  expect(await otherMark(page)).toBeNull();
});
