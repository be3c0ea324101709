import { type SpawnSyncOptions, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from './chromium';

/**
 * A machine policy for one Chromium only, with Chromium's own policy engine.
 *
 * Chromium on Linux reads its mandatory policies from `/etc/chromium/policies/managed/*.json`. Writing
 * there for real would reach every Chromium on the machine — other test runs going on at the same time,
 * and whatever comes after a run that was killed before it cleaned up. So the policy lives in a temporary
 * folder, and the Chromium under test (or a command such as `comet-relay unblock`) runs in a private mount
 * namespace (`unshare -m`, propagation private, so no mount leaks out) where that folder is bind-mounted
 * over `/etc/chromium/policies/managed`. Inside it the real path holds our files; outside it nothing changed.
 *
 * The one trace on the real machine: `mkdir -p /etc/chromium/policies/managed` runs before the bind mount
 * (a mount needs a folder to sit on), so that folder exists afterwards, empty. An empty managed folder holds
 * no policy, so this is harmless; it is left because another run may be sitting on it at the same moment.
 *
 * Needs root (mounting) and util-linux `unshare`; `managedPolicySupport()` says why not when it cannot,
 * so a test can skip with that reason rather than fail on a developer's machine.
 */

/** Where Debian's (and most Linux distributions') Chromium reads mandatory policy. */
export const CHROMIUM_MANAGED_POLICY_DIR = '/etc/chromium/policies/managed';

/** The policy the issue's browsers ship with, in Chromium's own words: no extension may script perplexity.ai. */
export const BLOCK_PERPLEXITY_FOR_ALL_EXTENSIONS = {
  ExtensionSettings: { '*': { runtime_blocked_hosts: ['*://*.perplexity.ai'] } },
} as const;

export type PolicySupport = { ok: true } | { ok: false; reason: string };

let cachedSupport: PolicySupport | undefined;

/**
 * Whether this machine can run a Chromium under a private managed policy, proven by doing it once:
 * a probe file written into a temporary folder must be readable at the managed path inside a namespace.
 */
export function managedPolicySupport(target = CHROMIUM_MANAGED_POLICY_DIR): PolicySupport {
  if (cachedSupport) return cachedSupport;
  cachedSupport = probeSupport(target);
  return cachedSupport;
}

function probeSupport(target: string): PolicySupport {
  if (process.platform !== 'linux') return { ok: false, reason: `a private managed policy needs Linux mount namespaces; this is ${process.platform}` };
  if (process.getuid?.() !== 0) {
    return { ok: false, reason: 'a private managed policy needs root (unshare -m and mount --bind); run this suite as root, as CI does' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-policy-probe-'));
  try {
    fs.writeFileSync(path.join(dir, 'probe.json'), '{}');
    const probe = spawnSync('unshare', ['-m', 'sh', '-c', `${mountScript(target)} && test -f ${shQuote(path.join(target, 'probe.json'))}`, dir], {
      encoding: 'utf8',
    });
    if (probe.error) return { ok: false, reason: `unshare could not run (${probe.error.message}); install util-linux` };
    if (probe.status !== 0) {
      return { ok: false, reason: `unshare -m with mount --bind onto ${target} failed (exit ${probe.status}): ${probe.stderr.trim()}` };
    }
    return { ok: true };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The shell that, inside the new namespace, mounts the folder given as $0 over `target`, then runs "$@".
 * `mkdir -p` creates the target on the real filesystem when it is missing (see the file comment).
 */
function mountScript(target: string): string {
  return `mkdir -p ${shQuote(target)} && mount --bind "$0" ${shQuote(target)}`;
}

function shQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export interface ManagedPolicyOptions {
  /** The path Chromium reads (default /etc/chromium/policies/managed). */
  target?: string;
  /** The Chromium the wrapper starts (default findChromium()). */
  chromium?: string;
}

export class ManagedPolicy {
  /** The temporary folder seen at `target` inside the namespace. */
  readonly dir: string;
  /** An executable that starts the real Chromium inside the namespace with every argument it is given. */
  readonly executablePath: string;
  readonly target: string;
  private readonly root: string;

  constructor(options: ManagedPolicyOptions = {}) {
    this.target = options.target ?? CHROMIUM_MANAGED_POLICY_DIR;
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-managed-policy-'));
    this.dir = path.join(this.root, 'managed');
    fs.mkdirSync(this.dir, { mode: 0o755 });
    this.executablePath = path.join(this.root, 'chromium-with-policy');
    const chromium = options.chromium ?? findChromium();
    // unshare (without --fork) execs sh, which execs Chromium: the pid Playwright started stays Chromium's,
    // and the pipes Playwright hands it (fds 3 and 4 for --remote-debugging-pipe) pass through untouched.
    fs.writeFileSync(
      this.executablePath,
      [
        '#!/bin/sh',
        '# Written by tests/support/managed-policy.ts: this Chromium sees its own managed policy folder.',
        `exec unshare -m sh -c ${shQuote(`${mountScript(this.target)} && exec "$@"`)} ${shQuote(this.dir)} ${shQuote(chromium)} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
  }

  /** Writes one policy file (name without or with `.json`); Chromium reads every `*.json` in the folder. */
  write(name: string, policy: unknown): string {
    const file = path.join(this.dir, name.endsWith('.json') ? name : `${name}.json`);
    fs.writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`, { mode: 0o644 });
    return file;
  }

  remove(name: string): void {
    fs.rmSync(path.join(this.dir, name.endsWith('.json') ? name : `${name}.json`), { force: true });
  }

  /** The files in the folder now, name → parsed JSON (what a command run inside the namespace wrote). */
  files(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of fs.readdirSync(this.dir).sort()) {
      const text = fs.readFileSync(path.join(this.dir, name), 'utf8');
      try {
        out[name] = JSON.parse(text);
      } catch {
        out[name] = text;
      }
    }
    return out;
  }

  /** Runs any command inside a namespace of its own where `target` is this folder, so it writes through the real path. */
  run(command: string, args: string[], options: SpawnSyncOptions = {}): SpawnSyncReturns<string> {
    return spawnSync('unshare', ['-m', 'sh', '-c', `${mountScript(this.target)} && exec "$@"`, this.dir, command, ...args], {
      encoding: 'utf8',
      ...options,
    }) as SpawnSyncReturns<string>;
  }

  /** Removes the temporary folder and the wrapper; the namespaces died with their processes. */
  cleanup(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
