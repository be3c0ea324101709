import { createInterface } from 'node:readline/promises';
import { BROWSERS, type Browser, isBrowser } from '../install/browsers';
import { resolveState } from '../install/install';
import { defaultCliPath } from '../install/system';
import { processUid } from '../install/policy/owned-write';
import { privilegedUnblockCommand } from '../install/policy/privileged-command';
import { sudoStateDir } from '../install/policy/sudo-home';
import { cliCommand } from '../relay/invocation';
import { undoUnblock, unblock } from '../install/unblock';
import { RelayError } from '../protocol/errors';
import { didYouMean, UsageError } from './usage';

export interface UnblockFlags {
  browser?: string;
  'dry-run'?: boolean;
  undo?: boolean;
  yes?: boolean;
  'all-extensions'?: boolean;
  home?: string;
  'policy-dir'?: string;
}

export interface UnblockIo {
  out(text: string): void;
  /** Whether a person can answer on stdin. Default: process.stdin.isTTY. */
  interactive?: boolean;
  /** Asks one question on the terminal. Default: readline on stdin/stderr. */
  ask?: (question: string) => Promise<string>;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  homedir?: string;
  fs?: Parameters<typeof unblock>[0]['fs'];
  exec?: Parameters<typeof unblock>[0]['exec'];
  /** The uid this runs as. Default: the process's. */
  uid?: number;
}

/**
 * `comet-relay unblock`: one browser at a time (default Comet), asking before it writes unless
 * --yes, and refusing to guess when nobody can answer. A write the person lacks the right for
 * ends with the exact privileged command to run, with --home so the record lands in the same place.
 */
export async function runUnblock(flags: UnblockFlags, io: UnblockIo): Promise<number> {
  const browser = unblockBrowser(flags.browser);
  if (flags.undo && flags['all-extensions']) throw new UsageError('--undo takes back whatever unblock wrote (with or without --all-extensions): pass --undo alone.');
  const system = { platform: io.platform, env: io.env, homedir: io.homedir, fs: io.fs };
  const resolved = resolveState({ ...system, home: flags.home });
  const { sys } = resolved;
  const uid = io.uid ?? processUid();
  // Typed by hand as `sudo comet-relay unblock`: the record goes where the person's own undo looks, or nowhere (policy/sudo-home.ts).
  let sudo: ReturnType<typeof sudoStateDir>;
  try {
    sudo = flags.home ? undefined : sudoStateDir(sys, uid, { command: 'unblock', plainCommand: cliCommand(`unblock --browser ${browser}${flags.undo ? ' --undo' : ''}`) });
  } catch (error) {
    throw new RelayError('CONFIG_ERROR', (error as Error).message);
  }
  const stateDir = sudo?.stateDir ?? resolved.stateDir;
  const interactive = io.interactive ?? Boolean(process.stdin.isTTY);
  if (!flags.yes && !flags['dry-run'] && !interactive) {
    throw new RelayError(
      'CONFIG_ERROR',
      `unblock changes ${browser}'s machine policy and asks first, but nobody can answer here (stdin is not a terminal). See the change with --dry-run, then run it again with --yes.`,
    );
  }
  const ask =
    io.ask ??
    (async (question: string) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    });
  const privilegedCommand = (needs: 'root' | 'admin') =>
    privilegedUnblockCommand({
      platform: sys.platform,
      needs,
      browser,
      undo: flags.undo,
      allExtensions: flags['all-extensions'],
      policyDir: flags['policy-dir'],
      stateDir,
      nodePath: process.execPath,
      cliPath: defaultCliPath(),
    });
  const options = {
    ...system,
    browser,
    stateDir,
    allExtensions: flags['all-extensions'],
    dryRun: flags['dry-run'],
    policyDir: flags['policy-dir'],
    exec: io.exec,
    uid,
    privilegedCommand,
    confirm: flags.yes ? undefined : async (question: string) => /^y(es)?$/i.test((await ask(question)).trim()),
  };
  if (sudo) io.out(`${sudo.note}\n`);
  try {
    const report = flags.undo ? await undoUnblock(options) : await unblock(options);
    io.out(`${report.lines.join('\n')}\n`);
    return report.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError('CONFIG_ERROR', (error as Error).message);
  }
}

/** The browsers unblock takes, in the order its help names them (Comet, the default, first). */
const UNBLOCK_BROWSERS: readonly Browser[] = ['comet', ...BROWSERS.filter((b) => b !== 'comet')];

/**
 * `--browser` as typed, for unblock: exactly one browser whose policy it knows. What it cannot take is a usage error
 * (exit 2, as for install's `--browser firefox`) naming only what it takes: not `all`, nor a list, which install takes.
 */
export function unblockBrowser(value: string | undefined): Browser {
  const name = (value ?? 'comet').trim().toLowerCase();
  if (isBrowser(name)) return name;
  const takes = `pass --browser ${UNBLOCK_BROWSERS.slice(0, -1).join(', ')} or ${UNBLOCK_BROWSERS.at(-1)}`;
  if (name === 'all' || name.includes(',')) throw new UsageError(`unblock writes one browser's policy at a time, not "${value}": ${takes}, and run it again for another.`);
  throw new UsageError(`Unknown browser "${value}" for unblock: ${takes}.${didYouMean(name, UNBLOCK_BROWSERS)}`);
}
