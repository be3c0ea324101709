import fs from 'node:fs';
import { createRequire } from 'node:module';

/** There is no Chromium to run (as against a CHROMIUM_PATH that names no file): `npm run demo` offers to get one. */
export class NoChromiumError extends Error {}

/**
 * Finds a Chromium to run: CHROMIUM_PATH when set (and an error when it names no file), else Debian's /usr/bin/chromium, then Playwright's own
 * download (`candidates`, for a test, replaces those three). Says how to get one when there is none (NoChromiumError).
 */
export function findChromium(candidates?: readonly (string | undefined)[]): string {
  const chosen = process.env.CHROMIUM_PATH;
  // A path the person chose that is not there is a mistake to report, not a reason to run another browser.
  if (chosen) {
    if (fs.existsSync(chosen) && fs.statSync(chosen).isFile()) return chosen;
    throw new Error(
      `CHROMIUM_PATH is set to "${chosen}", which is not a file. Point it at a Chromium or Chrome for Testing binary ` +
        '(Debian/Ubuntu: /usr/bin/chromium), or unset it to use the first Chromium found.',
    );
  }
  const where = candidates ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', playwrightChromium()];
  const found = where.find((candidate): candidate is string => Boolean(candidate) && fs.existsSync(candidate as string));
  if (found) return found;
  throw new NoChromiumError(
    'No Chromium found. Install one (Debian/Ubuntu: `sudo apt-get install -y chromium`; elsewhere `npx playwright install chromium`, ' +
      'which `npm run demo -- --install-browser` runs), ' +
      'or point CHROMIUM_PATH at a Chromium or Chrome for Testing binary. Branded Chrome 137+ ignores --load-extension and will not work.',
  );
}

function playwrightChromium(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

/** Flags that keep headless Chromium quiet on a machine with no network but the loopback. */
export const QUIET_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
