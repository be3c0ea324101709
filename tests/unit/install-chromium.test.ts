import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { install } from '../../lib/install/install';
import { EXTENSION_ID, EXTENSION_ORIGIN, EXTENSION_PUBLIC_KEY, NATIVE_HOST_NAME } from '../../lib/protocol/identity';

/**
 * The one check that the real browser accepts what install writes: a probe extension with our
 * pinned key sends a native message; the launcher must start node with our "CLI" (a stand-in that
 * answers one message) and COMET_RELAY_HOME. Paths contain spaces and quotes on purpose.
 * Skipped where there is no Chromium (the README's "Set-up" says how to install one).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!fs.existsSync(CHROMIUM))('install with a real Chromium', () => {
  it('the browser finds the manifest in --user-data-dir, runs the launcher and talks to the host', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "cr nm 'e2e' "));
    temps.push(base);
    const ext = path.join(base, 'ext');
    fs.mkdirSync(ext);
    fs.writeFileSync(
      path.join(ext, 'manifest.json'),
      JSON.stringify({ manifest_version: 3, name: 'nm-probe', version: '1.0', key: EXTENSION_PUBLIC_KEY, permissions: ['nativeMessaging'], background: { service_worker: 'bg.js' } }),
    );
    fs.writeFileSync(
      path.join(ext, 'bg.js'),
      `self.probe = () => new Promise((resolve) => chrome.runtime.sendNativeMessage(${JSON.stringify(NATIVE_HOST_NAME)}, { hello: 1 }, (reply) => resolve(chrome.runtime.lastError ? { error: chrome.runtime.lastError.message } : reply)));`,
    );
    const cli = path.join(base, 'dist', 'cli.js');
    fs.mkdirSync(path.dirname(cli));
    fs.writeFileSync(
      cli,
      `let buf = Buffer.alloc(0);
process.stdin.on('data', (c) => {
  buf = Buffer.concat([buf, c]);
  if (buf.length < 4 || buf.length < 4 + buf.readUInt32LE(0)) return;
  const got = JSON.parse(buf.subarray(4, 4 + buf.readUInt32LE(0)).toString());
  const out = Buffer.from(JSON.stringify({ got, argv: process.argv.slice(2), home: process.env.COMET_RELAY_HOME ?? null }));
  const len = Buffer.alloc(4); len.writeUInt32LE(out.length);
  process.stdout.write(Buffer.concat([len, out]), () => process.exit(0));
});
`,
    );
    const profile = path.join(base, 'profile');
    const home = path.join(base, "home 'q' $x");
    const report = await install({ userDataDir: profile, home, cliPath: cli, env: { PATH: '/usr/bin:/bin' }, platform: 'linux', homedir: base });
    expect(report.ok).toBe(true);

    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [`--disable-extensions-except=${ext}`, `--load-extension=${ext}`, '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
      expect(new URL(worker.url()).host).toBe(EXTENSION_ID);
      const reply = await worker.evaluate(() => (globalThis as unknown as { probe: () => Promise<unknown> }).probe());
      expect(reply).toEqual({ got: { hello: 1 }, argv: ['host', EXTENSION_ORIGIN], home });
    } finally {
      await context.close();
    }
  }, 60_000);
});
