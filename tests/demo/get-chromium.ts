import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { NoChromiumError } from '../support/chromium';

/**
 * `npm run demo` on a machine with no Chromium it can use (none, or only branded Chrome, which ignores
 * --load-extension): offer what works there in one step instead of stopping. On a terminal, ask, then run
 * `npx playwright install chromium`; `--install-browser` runs it without asking; with no terminal, a
 * refusal or a download that fails, print the commands that get one. The decision is `ensureChromium`
 * over injected effects, so a unit test drives it with fakes (tests/unit/demo-chromium.test.ts) and no
 * test depends on a download.
 */

export const INSTALL_COMMAND = ['npx', 'playwright', 'install', 'chromium'] as const;
export const INSTALL_LINE = INSTALL_COMMAND.join(' ');
export const APT_LINE = 'sudo apt-get install -y chromium';
/** What `npx playwright install chromium` downloads (Playwright 1.65's Chromium, unpacked ~5× that). */
export const DOWNLOAD_SIZE = '~170 MB';

export interface DemoArgs {
  installBrowser: boolean;
  /** The question for comet_ask; empty for the default. */
  question: string;
}

/** `npm run demo -- [--install-browser] [question…]`; any other `--option` is a mistake, said with the usage. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  const words: string[] = [];
  let installBrowser = false;
  for (const arg of argv) {
    if (arg === '--install-browser') installBrowser = true;
    else if (arg.startsWith('--')) {
      throw new Error(`Unknown option ${arg}. Usage: npm run demo -- [--install-browser] [question]`);
    } else words.push(arg);
  }
  return { installBrowser, question: words.join(' ') };
}

/** Where Playwright keeps its browsers (its registry's rule): PLAYWRIGHT_BROWSERS_PATH, else the per-user cache. */
export function playwrightCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string {
  const chosen = env.PLAYWRIGHT_BROWSERS_PATH;
  if (chosen && chosen !== '0') return path.resolve(chosen);
  if (chosen === '0') return 'node_modules/playwright-core/.local-browsers';
  if (platform === 'win32') return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'ms-playwright');
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Caches', 'ms-playwright');
  return path.posix.join(env.XDG_CACHE_HOME || path.posix.join(home, '.cache'), 'ms-playwright');
}

export interface ChromiumDeps {
  /** findChromium: a path, or NoChromiumError when there is none (any other error is the person's CHROMIUM_PATH: rethrown). */
  find(): string;
  /** Whether a person can answer (stdin is a terminal). */
  interactive: boolean;
  /** One line of answer; null when input ended (Ctrl-D) before one came. */
  ask(question: string): Promise<string | null>;
  /** Runs INSTALL_COMMAND with the output shown; its exit code (non-zero when it could not start at all). */
  install(): Promise<number>;
  print(line: string): void;
  platform: NodeJS.Platform;
  cacheDir: string;
}

/** The lines that get a Chromium by hand, for this system. */
export function manualLines(platform: NodeJS.Platform): string[] {
  return [
    ...(platform === 'linux' ? [`  Debian/Ubuntu:  ${APT_LINE}`] : []),
    `  Any system:     ${INSTALL_LINE}   (${DOWNLOAD_SIZE}; or npm run demo -- --install-browser)`,
    '  Or point CHROMIUM_PATH at a Chromium or Chrome for Testing binary.',
  ];
}

/**
 * A Chromium path the demo can start, getting one first if it may; null when there is none (and the way to
 * get one has been printed), so the demo stops with a non-zero exit.
 */
export async function ensureChromium(args: Pick<DemoArgs, 'installBrowser'>, deps: ChromiumDeps): Promise<string | null> {
  try {
    return deps.find();
  } catch (error) {
    if (!(error instanceof NoChromiumError)) throw error;
  }
  deps.print(
    'No Chromium found (/usr/bin/chromium, /usr/bin/chromium-browser, Playwright\'s own). Branded Google Chrome 137+ ' +
      'ignores --load-extension, so the demo cannot use it.',
  );
  const offer = `Playwright's Chromium, ${DOWNLOAD_SIZE}, into ${deps.cacheDir}`;
  let agreed = args.installBrowser;
  if (!agreed && deps.interactive) {
    const answer = await deps.ask(`Download ${offer} (${INSTALL_LINE})? [Y/n] `);
    agreed = answer !== null && /^\s*(y|yes)?\s*$/i.test(answer);
  }
  if (!agreed) {
    deps.print(`Get one, then run npm run demo again:\n${manualLines(deps.platform).join('\n')}`);
    return null;
  }
  deps.print(`Running ${INSTALL_LINE}: ${offer}…`);
  const code = await deps.install();
  if (code !== 0) {
    deps.print(
      `${INSTALL_LINE} failed (exit ${code}): the download could not be reached or written. Get one another way, then run npm run demo again:\n` +
        manualLines(deps.platform).join('\n'),
    );
    return null;
  }
  try {
    return deps.find();
  } catch (error) {
    if (!(error instanceof NoChromiumError)) throw error;
    deps.print(`${INSTALL_LINE} finished, yet no Chromium is found in ${deps.cacheDir}. Get one another way:\n${manualLines(deps.platform).join('\n')}`);
    return null;
  }
}

/** The real effects: this process's terminal, and INSTALL_COMMAND run with its output shown. */
export function processDeps(find: () => string): ChromiumDeps {
  return {
    find,
    interactive: Boolean(process.stdin.isTTY),
    ask: (question) =>
      new Promise((resolve) => {
        const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
        let answered = false;
        rl.on('close', () => {
          if (!answered) resolve(null);
        });
        rl.question(question, (answer) => {
          answered = true;
          rl.close();
          resolve(answer);
        });
      }),
    install: () =>
      new Promise((resolve) => {
        const [command, ...rest] = INSTALL_COMMAND;
        const child = spawn(command, rest, { stdio: 'inherit', shell: process.platform === 'win32' });
        child.on('error', () => resolve(127)); // npx not on PATH: the same as a download that could not start
        child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
      }),
    print: (line) => console.error(line),
    platform: process.platform,
    cacheDir: playwrightCacheDir(process.env, process.platform, os.homedir()),
  };
}
