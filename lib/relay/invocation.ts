import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_FORM_MAX, CLI_FORM_REFUSED, homeSuffix, type HostForm } from '../protocol/identity';
import { expandHome } from './paths';

/**
 * How a person runs this copy of comet-relay, so every hint that names a command says it in a form
 * that works: `comet-relay doctor` after a global install, `npx ./comet-relay-0.1.0.tgz doctor`
 * after `npx ./comet-relay-0.1.0.tgz install` (npx keeps each spec in its own cache folder, so
 * another spec would fetch another copy, or 404 while the package is not on the registry), and
 * `node dist/cli.js doctor` in a clone. Every message of the Node side that names a command gets
 * its words from `cliCommand` here (docs/commands.md, "Hints"); the extension gets the host's
 * lasting form in the host's welcome (`hostForm`) and says its commands with it (`cliHint`,
 * lib/protocol/identity.ts).
 */
export interface InvocationContext {
  /** `process.argv`: [node, the script as started (a bin link, or dist/cli.js), …]. */
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
  /** This copy's `dist/cli.js` (the real file, links resolved). */
  cliPath: string;
  fs: Pick<typeof fs, 'existsSync' | 'readFileSync' | 'realpathSync'>;
  /**
   * For words kept after this process ends (a launcher, a client's config): a relative npx spec is
   * said as the absolute file it names, since it holds only in the folder npx was run from.
   */
  lasting?: boolean;
}

/**
 * The built CLI the launcher and client configs should run. Inside the build that is
 * `dist/cli.js`, beside whichever of its bundles this code landed in; from sources (tsx, vitest)
 * it is `<repo>/dist/cli.js`.
 */
export function defaultCliPath(moduleUrl?: string): string {
  const self = moduleUrl ? fileURLToPath(moduleUrl) : ownFile();
  if (/\.(c|m)?js$/.test(self)) return path.join(path.dirname(self), 'cli.js');
  return path.resolve(path.dirname(self), '..', '..', 'dist', 'cli.js');
}

/** This module's file: the built CLI is CommonJS (`__filename`), the sources are ES modules (`import.meta.url`). */
function ownFile(): string {
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
}

let cached: string | undefined;

/**
 * `sub` (e.g. `doctor --page`) the way this copy is run: `<prefix> <sub>`, with `--home DIR` when
 * this run was given a state folder (`--home`, or COMET_RELAY_HOME) and `sub` takes one: a `token`
 * or `doctor` run as printed must read the same folder, not the default one.
 */
export function cliCommand(sub: string, context?: Partial<InvocationContext>): string {
  return `${commandPrefix(context)} ${sub}${homeWords(sub, context)}`.trimEnd();
}

let givenHome: string | undefined;

/**
 * The state folder this run's `--home` names, for every hint it prints (undefined: none given).
 * The CLI sets it once it has parsed a command's flags; COMET_RELAY_HOME counts as given too, as a
 * process started by a client or the launcher with it is not started from the person's shell.
 */
export function useGivenHome(dir: string | undefined): void {
  givenHome = dir || undefined;
}

/** ` --home DIR` for `sub`, or nothing (no folder given, a command without --home, or one that names it already). */
function homeWords(sub: string, context?: Partial<InvocationContext>): string {
  return homeSuffix(sub, homeWord(context));
}

/** The state folder this run was given (`--home`, else COMET_RELAY_HOME), absolute, as one word of the person's shell. */
function homeWord(context?: Partial<InvocationContext>): string | undefined {
  const home = givenHome ?? ((context?.env ?? process.env).COMET_RELAY_HOME?.trim() || undefined);
  if (!home) return undefined;
  const platform = context?.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;
  // `~` as the state folder is the home folder (expandHome): the hint names the folder the run uses (review 14e, 1).
  return quoteArg(p.resolve(expandHome(home)), platform);
}

/**
 * This run's form for text said without one (a pack's problems, lib/protocol/identity.ts
 * `withCliForm`): its prefix, and its state folder when it was given one.
 */
export function cliForm(context?: Partial<InvocationContext>): HostForm {
  const home = homeWord(context);
  return { command: commandPrefix(context), ...(home ? { home } : {}) };
}

/**
 * The words that run this copy: `comet-relay`, `npx <the spec it was started with>`, or
 * `node <its dist/cli.js>` (relative to the working folder when inside it). Computed once per
 * process for the process's own context; the host, started by the browser through the launcher,
 * says what install computed in the person's shell (COMET_RELAY_COMMAND), not what the browser's
 * PATH and folder would make of it.
 */
export function commandPrefix(context?: Partial<InvocationContext>): string {
  if (context === undefined) {
    cached ??= fits(process.env[COMMAND_ENV]?.trim()) ?? computePrefix(processContext());
    return cached;
  }
  return computePrefix({ ...processContext(), ...context });
}

function processContext(): InvocationContext {
  return { argv: process.argv, env: process.env, cwd: process.cwd(), platform: process.platform, cliPath: realPath(fs, defaultCliPath()), fs };
}

function computePrefix(ctx: InvocationContext): string {
  const p = ctx.platform === 'win32' ? path.win32 : path.posix;
  const q = (value: string) => quoteArg(value, ctx.platform);
  const root = p.dirname(p.dirname(ctx.cliPath));
  // npm's variables are inherited by everything npx starts (a browser, its host): only the process
  // npx ran, in the folder it was run from, was started by npx.
  const initCwd = ctx.env.INIT_CWD;
  const startedByNpx = ctx.env.npm_command === 'exec' && (!initCwd || p.resolve(initCwd) === p.resolve(ctx.cwd)) && !ctx.lasting;

  // 1. A copy npx unpacked into its cache: the spec it was fetched with, from the cache folder's
  //    own record (`_npx.packages`, written on every npx run).
  const spec = npxSpec(ctx, root, startedByNpx);
  if (spec) return `npx ${q(spec)}`;
  const script = ctx.argv[1] ?? '';
  const scriptName = p.basename(script).replace(/\.(cmd|ps1|js)$/i, '');
  // 2. npx found a bin already installed (a project's node_modules/.bin, or the global one).
  if (startedByNpx && scriptName === 'comet-relay') return 'npx comet-relay';
  // 3. The global command: a `comet-relay` on PATH that is this very copy.
  if (onPath(ctx, p)) return 'comet-relay';
  // 4. A bin link that is not on PATH (`npm install --prefix DIR`): its absolute path.
  if (scriptName === 'comet-relay' && p.isAbsolute(script)) return q(script);
  // 5. node and the CLI file, as in a clone (`node dist/cli.js`).
  //    Words kept after this process name the absolute file: they are read from any folder.
  const relative = p.relative(ctx.cwd, ctx.cliPath);
  const shown = !ctx.lasting && relative && !relative.startsWith('..') && !p.isAbsolute(relative) ? relative : ctx.cliPath;
  return `node ${q(shown)}`;
}

/** What the person typed after `npx` for this copy, when it lives in npx's cache; else undefined. */
function npxSpec(ctx: InvocationContext, root: string, startedByNpx: boolean): string | undefined {
  const p = ctx.platform === 'win32' ? path.win32 : path.posix;
  const hashDir = p.dirname(p.dirname(root));
  if (p.basename(p.dirname(root)) !== 'node_modules' || p.basename(p.dirname(hashDir)) !== '_npx') return undefined;
  let record: { _npx?: { packages?: unknown }; dependencies?: Record<string, unknown> };
  try {
    record = JSON.parse(ctx.fs.readFileSync(p.join(hashDir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const packages = Array.isArray(record._npx?.packages) ? record._npx.packages.filter((s): s is string => typeof s === 'string') : [];
  const named = packages.length === 1 ? packages[0] : packages.find((s) => s === 'comet-relay' || s.startsWith('comet-relay@') || isPathSpec(s));
  if (!named) return undefined;
  if (!isPathSpec(named) || p.isAbsolute(named)) return named;
  // A relative file spec holds only in the folder npx was run from: in that very run it is what
  // the person typed; any later process (the host, an MCP client's server) gets the absolute file
  // npm resolved it to.
  if (startedByNpx) return named;
  const resolved = record.dependencies?.['comet-relay'];
  if (typeof resolved !== 'string' || !resolved.startsWith('file:')) return undefined;
  return p.resolve(hashDir, resolved.slice('file:'.length));
}

/** A spec npm reads as a file or folder, not a registry name. */
function isPathSpec(spec: string): boolean {
  return /^(\.{1,2}[\\/]|[\\/]|~[\\/]|[a-zA-Z]:[\\/]|file:)/.test(spec) || /\.(tgz|tar\.gz|tar)$/i.test(spec);
}

/** Whether `comet-relay` on PATH starts this very copy (a link to it, or npm's Windows shim beside it). */
function onPath(ctx: InvocationContext, p: typeof path.posix): boolean {
  const dirs = (ctx.env.PATH ?? ctx.env.Path ?? '').split(ctx.platform === 'win32' ? ';' : ':').filter(Boolean);
  const same = (a: string, b: string) => (ctx.platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b);
  for (const dir of dirs) {
    if (ctx.platform === 'win32') {
      if (ctx.fs.existsSync(p.join(dir, 'comet-relay.cmd')) && same(p.join(dir, 'node_modules', 'comet-relay', 'dist', 'cli.js'), ctx.cliPath)) return true;
      continue;
    }
    const bin = p.join(dir, 'comet-relay');
    if (ctx.fs.existsSync(bin)) return same(realPath(ctx.fs, bin), ctx.cliPath); // the first one on PATH is the one that runs
  }
  return false;
}

function realPath(files: Pick<typeof fs, 'realpathSync'>, file: string): string {
  try {
    return files.realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * Quotes one argument for the person's shell: every command printed, the client configs' included. On Windows,
 * double quotes, the one form cmd and PowerShell both take for a path with spaces. PowerShell expands `$name` and a
 * backtick inside them, cmd a `%NAME%`; no form holds in both shells (single quotes are literal in PowerShell but
 * kept as characters by cmd, and a quoted program needs `& ` there), so such rare paths are left to the person
 * (day-5 review F6; day-7e E2 showed single quotes breaking the cmd lines of the client configs).
 */
export function quoteArg(value: string, platform: NodeJS.Platform = process.platform): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  if (platform === 'win32') return /^[\w@%+=:,./\\-]+$/.test(value) ? value : `"${value.replace(/"/g, '\\"')}"`;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The launcher's variable for the command form `install` computed in the person's shell (lib/install/host-manifest.ts). */
export const COMMAND_ENV = 'COMET_RELAY_COMMAND';

/**
 * The form the host tells the extension (its welcome's `command` and `home`): what `install` wrote
 * into the launcher — said in the person's shell, where `comet-relay` may be on a PATH the browser's
 * is not — else the host's own lasting form, and the state folder the launcher gave it
 * (COMET_RELAY_HOME); undefined when the form cannot travel (too long, a control character). A folder
 * that cannot travel is said as what to put there, never left out: a command without it would act on
 * the default folder, and the extension would keep an earlier install's form (day-7 reviews F5, G5).
 */
export function hostForm(env: NodeJS.ProcessEnv = process.env, context?: Partial<InvocationContext>): HostForm | undefined {
  const command = fits(env[COMMAND_ENV]?.trim()) ?? fits(commandPrefix({ ...context, lasting: true }));
  if (command === undefined) return undefined;
  const home = homeWord({ ...context, env });
  return { command, ...(home ? { home: fits(home) ?? UNSAID_HOME } : {}) };
}

/** What a hint says for a state folder the host cannot send: the person knows the one they installed with. */
export const UNSAID_HOME = '<the folder you installed with>';

/** A form that can travel to the extension and be shown on one line: not too long, no control character. */
function fits(form: string | undefined): string | undefined {
  return form && form.length <= CLI_FORM_MAX && !CLI_FORM_REFUSED.test(form) ? form : undefined;
}
