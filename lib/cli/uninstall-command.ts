import type { Browser } from '../install/browsers';
import { type UninstallOptions, uninstall } from '../install/install';
import { processUid } from '../install/policy/owned-write';
import { sudoStateDir } from '../install/policy/sudo-home';
import { resolveSystem } from '../install/system';
import { RelayError } from '../protocol/errors';
import { cliCommand, quoteArg } from '../relay/invocation';

export interface UninstallFlags {
  /** Parsed already: the browsers named, or 'all'. */
  browsers: Browser[] | 'all';
  /** As typed (--browser), for the command a refusal prints. */
  browser?: string;
  'user-data-dir'?: string;
  home?: string;
  purge?: boolean;
}

export interface UninstallIo {
  out(text: string): void;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  homedir?: string;
  fs?: UninstallOptions['fs'];
  exec?: UninstallOptions['exec'];
  /** The uid this runs as. Default: the process's. */
  uid?: number;
}

/**
 * `comet-relay uninstall`. Typed by hand as `sudo comet-relay uninstall` (to take back an unblock's
 * policy, which needs root), most Linux distributions' sudo gives it root's HOME: it would take back
 * root's install and leave the person's. As root under sudo, with no --home, it acts on the install
 * of the person who ran sudo (their state folder and their browsers' folders), or refuses, saying
 * to run it without sudo (policy/sudo-home.ts, as `unblock` does).
 */
export async function runUninstall(flags: UninstallFlags, io: UninstallIo): Promise<number> {
  const system = { platform: io.platform, env: io.env, homedir: io.homedir, fs: io.fs };
  const sys = resolveSystem(system);
  let sudo: ReturnType<typeof sudoStateDir>;
  try {
    sudo = flags.home ? undefined : sudoStateDir(sys, io.uid ?? processUid(), { command: 'uninstall', plainCommand: cliCommand(plainWords(flags)) });
  } catch (error) {
    throw new RelayError('CONFIG_ERROR', (error as Error).message);
  }
  if (sudo) io.out(`${sudo.note}\n`);
  const report = await uninstall({
    ...system,
    // The person's folders, found without root's XDG_* (their browsers' folders are under their home).
    ...(sudo ? { homedir: sudo.home, env: personEnv(sys.env), home: sudo.stateDir } : { home: flags.home }),
    exec: io.exec,
    browsers: flags.browsers,
    userDataDir: flags['user-data-dir'],
    purge: flags.purge,
  });
  io.out(`${report.lines.join('\n')}\n`);
  return report.ok ? 0 : 1;
}

/** The uninstall as typed, without sudo: what the person runs instead. */
function plainWords(flags: UninstallFlags): string {
  const words = ['uninstall'];
  if (flags.browser) words.push('--browser', quoteArg(flags.browser, 'linux'));
  if (flags['user-data-dir']) words.push('--user-data-dir', quoteArg(flags['user-data-dir'], 'linux'));
  if (flags.purge) words.push('--purge');
  return words.join(' ');
}

function personEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { XDG_CONFIG_HOME: _config, XDG_STATE_HOME: _state, ...rest } = env;
  return rest;
}
