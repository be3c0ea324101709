import { describe, expect, it } from 'vitest';
import {
  APT_LINE,
  type ChromiumDeps,
  ensureChromium,
  INSTALL_LINE,
  parseDemoArgs,
  playwrightCacheDir,
} from '../demo/get-chromium';
import { NoChromiumError } from '../support/chromium';

/**
 * `npm run demo` on a machine with no usable Chromium (issue 31 item 4): what is asked, run and printed,
 * from which Chromium is found, whether a person is at a terminal, their answer and the install's exit
 * code. Fakes only: nothing is downloaded.
 */

const CACHE = '/home/ann/.cache/ms-playwright';

interface World {
  /** What find() sees, call by call: a path, or none. */
  finds: (string | null)[];
  interactive?: boolean;
  answer?: string | null;
  installExit?: number;
  platform?: NodeJS.Platform;
}

function fake(world: World) {
  const calls = { asked: [] as string[], installs: 0, printed: [] as string[], finds: 0 };
  const deps: ChromiumDeps = {
    find: () => {
      const found = world.finds[Math.min(calls.finds, world.finds.length - 1)];
      calls.finds += 1;
      if (found === null || found === undefined) throw new NoChromiumError('No Chromium found.');
      return found;
    },
    interactive: world.interactive ?? false,
    ask: async (question) => {
      calls.asked.push(question);
      return world.answer === undefined ? '' : world.answer;
    },
    install: async () => {
      calls.installs += 1;
      return world.installExit ?? 0;
    },
    print: (line) => calls.printed.push(line),
    platform: world.platform ?? 'linux',
    cacheDir: CACHE,
  };
  return { deps, calls, output: () => calls.printed.join('\n') };
}

const PW = `${CACHE}/chromium-1200/chrome-linux/chrome`;

describe('npm run demo without a usable Chromium', () => {
  it('a Chromium found is used at once: nothing asked, run or printed, --install-browser or not', async () => {
    for (const installBrowser of [false, true]) {
      const { deps, calls } = fake({ finds: ['/usr/bin/chromium'], interactive: true });
      expect(await ensureChromium({ installBrowser }, deps)).toBe('/usr/bin/chromium');
      expect(calls).toMatchObject({ asked: [], installs: 0, printed: [] });
    }
  });

  it('on a terminal, asks with the size, the folder and the command; Enter or yes runs it and uses what it installed', async () => {
    for (const answer of ['', 'y', 'YES ']) {
      const { deps, calls } = fake({ finds: [null, PW], interactive: true, answer });
      expect(await ensureChromium({ installBrowser: false }, deps)).toBe(PW);
      expect(calls.asked).toHaveLength(1);
      expect(calls.asked[0]).toContain('~170 MB');
      expect(calls.asked[0]).toContain(CACHE);
      expect(calls.asked[0]).toContain(INSTALL_LINE);
      expect(calls.asked[0]).toMatch(/\[Y\/n\] $/);
      expect(calls.installs).toBe(1);
    }
  });

  it('declined (no, or input ended) runs nothing and prints the apt and npx lines', async () => {
    for (const answer of ['n', 'no', 'later', null]) {
      const { deps, calls, output } = fake({ finds: [null], interactive: true, answer });
      expect(await ensureChromium({ installBrowser: false }, deps)).toBeNull();
      expect(calls.installs).toBe(0);
      expect(output()).toContain(APT_LINE);
      expect(output()).toContain(INSTALL_LINE);
      expect(output()).toContain('--install-browser');
    }
  });

  it('with no terminal, asks nothing, runs nothing, and prints the ways to get one', async () => {
    const { deps, calls, output } = fake({ finds: [null], interactive: false });
    expect(await ensureChromium({ installBrowser: false }, deps)).toBeNull();
    expect(calls).toMatchObject({ asked: [], installs: 0 });
    expect(output()).toMatch(/No Chromium found.*Branded Google Chrome 137\+ ignores --load-extension/s);
    expect(output()).toContain(`Debian/Ubuntu:  ${APT_LINE}`);
    expect(output()).toContain(INSTALL_LINE);
  });

  it('--install-browser installs without asking, terminal or not', async () => {
    for (const interactive of [false, true]) {
      const { deps, calls, output } = fake({ finds: [null, PW], interactive });
      expect(await ensureChromium({ installBrowser: true }, deps)).toBe(PW);
      expect(calls).toMatchObject({ asked: [], installs: 1 });
      expect(output()).toContain(`Running ${INSTALL_LINE}`);
      expect(output()).toContain(CACHE);
    }
  });

  it('an install that fails (no network, npx missing) ends with the apt line and the exit code, not a retry', async () => {
    for (const installExit of [1, 127]) {
      const { deps, calls, output } = fake({ finds: [null, PW], installExit });
      expect(await ensureChromium({ installBrowser: true }, deps)).toBeNull();
      expect(calls.installs).toBe(1);
      expect(calls.finds).toBe(1); // not looked for again: nothing was installed
      expect(output()).toContain(`failed (exit ${installExit})`);
      expect(output()).toContain(APT_LINE);
    }
  });

  it('an install that succeeds yet leaves nothing findable says so and how else to get one', async () => {
    const { deps, output } = fake({ finds: [null, null] });
    expect(await ensureChromium({ installBrowser: true }, deps)).toBeNull();
    expect(output()).toContain(`finished, yet no Chromium is found in ${CACHE}`);
    expect(output()).toContain(APT_LINE);
  });

  it('the apt line only where apt is (Linux); the npx line everywhere', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const { deps, output } = fake({ finds: [null], platform });
      await ensureChromium({ installBrowser: false }, deps);
      expect(output()).not.toContain('apt-get');
      expect(output()).toContain(INSTALL_LINE);
    }
  });

  it('a CHROMIUM_PATH that names no file is the person\'s mistake: raised as is, nothing offered', async () => {
    const { deps, calls } = fake({ finds: [], interactive: true });
    deps.find = () => {
      throw new Error('CHROMIUM_PATH is set to "/nope", which is not a file.');
    };
    await expect(ensureChromium({ installBrowser: true }, deps)).rejects.toThrow(/CHROMIUM_PATH is set/);
    expect(calls).toMatchObject({ asked: [], installs: 0, printed: [] });
  });
});

describe('npm run demo -- …', () => {
  it('parses --install-browser anywhere, the other words being the question', () => {
    expect(parseDemoArgs([])).toEqual({ installBrowser: false, question: '' });
    expect(parseDemoArgs(['--install-browser'])).toEqual({ installBrowser: true, question: '' });
    expect(parseDemoArgs(['What', 'is', 'MCP?', '--install-browser'])).toEqual({ installBrowser: true, question: 'What is MCP?' });
  });

  it('an unknown option is refused with the usage, never asked to Perplexity as the question', () => {
    expect(() => parseDemoArgs(['--install-browsr'])).toThrow(/Unknown option --install-browsr\. Usage: npm run demo -- \[--install-browser\]/);
  });
});

describe("Playwright's cache folder, as said in the offer", () => {
  it('follows Playwright: PLAYWRIGHT_BROWSERS_PATH, else the per-user cache of each system', () => {
    expect(playwrightCacheDir({}, 'linux', '/home/ann')).toBe('/home/ann/.cache/ms-playwright');
    expect(playwrightCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/ann')).toBe('/x/cache/ms-playwright');
    expect(playwrightCacheDir({}, 'darwin', '/Users/ann')).toBe('/Users/ann/Library/Caches/ms-playwright');
    expect(playwrightCacheDir({ LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' }, 'win32', 'C:\\Users\\ann')).toBe(
      'C:\\Users\\ann\\AppData\\Local\\ms-playwright',
    );
    expect(playwrightCacheDir({ PLAYWRIGHT_BROWSERS_PATH: '/opt/pw' }, 'linux', '/home/ann')).toBe('/opt/pw');
  });
});
