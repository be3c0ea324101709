import type { Browser } from '../install/browsers';
import { type UninstallOptions, uninstall } from '../install/install';
import { processUid } from '../install/policy/owned-write';
import { sudoHomeRefusal, sudoPerson, sudoStateDir } from '../install/policy/sudo-home';
import { resolveSystem } from '../install/system';
import { RelayError } from '../protocol/errors';
import { cliCommand, quoteArg } from '../relay/invocation';
import { expandHome } from '../relay/paths';

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
 * to run it without sudo (policy/sudo-home.ts, as `unblock` does). With --home it takes back only an
 * install whose state folder is root's, and refuses a person's. In every sudo run for a person,
 * nothing is removed through a link in their folders, nor anybody else's file (policy/owned-remove.ts).
 */
export async function runUninstall(flags: UninstallFlags, io: UninstallIo): Promise<number> {
  const system = { platform: io.platform, env: io.env, homedir: io.homedir, fs: io.fs };
  const sys = resolveSystem(system);
  const uid = io.uid ?? processUid();
  const plain = cliCommand(plainWords(flags));
  const person = sudoPerson(sys, uid);
  // A state folder given (--home, or COMET_RELAY_HOME kept by sudo): root's own install only (sudo-home.ts).
  const given = flags.home ? { dir: flags.home, how: '--home' as const } : person && sys.env.COMET_RELAY_HOME ? { dir: sys.env.COMET_RELAY_HOME, how: 'COMET_RELAY_HOME' as const } : undefined;
  const refusal = person && given ? sudoHomeRefusal(sys, person, sys.path.resolve(expandHome(given.dir, sys.homedir)), given.how, plain) : undefined;
  if (refusal) throw new RelayError('CONFIG_ERROR', refusal);
  let sudo: ReturnType<typeof sudoStateDir>;
  try {
    sudo = flags.home ? undefined : sudoStateDir(sys, uid, { command: 'uninstall', plainCommand: plain });
  } catch (error) {
    throw new RelayError('CONFIG_ERROR', (error as Error).message);
  }
  if (sudo) io.out(`${sudo.note}\n`);
  const report = await uninstall({
    ...system,
    // The person's folders, found without root's XDG_* (their browsers' folders are under their home).
    ...(sudo ? { homedir: sudo.home, env: personEnv(sys.env), home: sudo.stateDir } : { home: flags.home }),
    // Root for a person (any sudo run, their HOME kept or not): nothing removed through a link or of another's.
    ...(person ? { asRootFor: { ...person, plain } } : {}),
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
  if (flags.home) words.push('--home', quoteArg(flags.home, 'linux'));
  if (flags.purge) words.push('--purge');
  return words.join(' ');
}

function personEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { XDG_CONFIG_HOME: _config, XDG_STATE_HOME: _state, ...rest } = env;
  return rest;
}
