import type { Browser } from '../browsers';
import { quoteArg } from '../../relay/invocation';

/**
 * The one command that reruns unblock with the privilege it lacks, printed by `unblock` itself and
 * by `uninstall` (which cannot take an unblock back without it). Every word is quoted for the shell
 * it is pasted into: sh/zsh behind sudo (macOS's default state folder is under "Application
 * Support"), PowerShell run as administrator on Windows (node is under "Program Files"; a quoted
 * program needs PowerShell's call operator `&`).
 */
export interface PrivilegedUnblock {
  platform: NodeJS.Platform;
  needs: 'root' | 'admin';
  browser: Browser;
  undo?: boolean;
  allExtensions?: boolean;
  policyDir?: string;
  /** The state folder, passed as --home so the record lands where this user's comet-relay reads it. */
  stateDir: string;
  /** node, and the CLI file it runs (absolute: sudo's PATH may not have node). */
  nodePath: string;
  cliPath: string;
  /** Pass --yes (default): the command is run where nobody may answer. */
  yes?: boolean;
}

export function privilegedUnblockCommand(o: PrivilegedUnblock): string {
  const q = o.platform === 'win32' ? powerShellWord : (value: string) => quoteArg(value, 'linux');
  const words = [q(o.nodePath), q(o.cliPath), 'unblock', '--browser', o.browser];
  if (o.undo) words.push('--undo');
  if (o.allExtensions) words.push('--all-extensions');
  if (o.policyDir) words.push('--policy-dir', q(o.policyDir));
  if (o.yes !== false) words.push('--yes');
  words.push('--home', q(o.stateDir));
  if (o.platform === 'win32') return `${(words[0] as string).startsWith("'") ? '& ' : ''}${words.join(' ')}`;
  return `${o.needs === 'root' ? 'sudo ' : ''}${words.join(' ')}`;
}

/** One PowerShell word: bare when it holds nothing PowerShell reads, else single-quoted (a quote doubled). */
export function powerShellWord(value: string): string {
  // PowerShell ends a single-quoted string at any of its quote marks, the typographic ones too: each is doubled.
  return /^[\w.:\\/-]+$/.test(value) ? value : `'${value.replace(/['\u2018-\u201b]/g, '$&$&')}'`;
}
