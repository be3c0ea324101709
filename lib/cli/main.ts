import fs from 'node:fs';
import path from 'node:path';
import { EXTENSION_ORIGIN } from '../protocol/identity';
import { codeCacheDirFor } from '../relay/paths';
import { VERSION } from '../relay/version';
import { exitCodeOf, formatCliError } from './usage';

/**
 * Entry point of the `comet-relay` command. The browser starts us with our extension's origin as
 * the first argument; everything else is a subcommand. Every failure prints what was wrong and
 * what to do, and exits non-zero; it never prints a stack trace at the user.
 *
 * The build (package.json `build:cli`) makes CommonJS bundles side by side in dist/: this file
 * (cli.js), host-command.js, commands.js and pack-folder.js, each loading the next by file when
 * needed. The host, which runs for as long as the browser does, never reads the MCP SDK, zod or
 * the HTTP server; commands.js is loaded with V8's code cache (compile-cache.ts), so an MCP
 * client's `comet-relay mcp` starts without compiling them again.
 */
async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const asksHelp = rest.includes('--help') || rest.includes('-h');
  if (first?.startsWith('chrome-extension://') || (first === 'host' && !asksHelp)) {
    const { runHostCommand } = await import('./host-command');
    const origin = first === 'host' ? rest.find((a) => a.startsWith('chrome-extension://')) : first;
    return runHostCommand(origin ?? EXTENSION_ORIGIN);
  }
  quietWhenReaderLeaves(first === 'mcp');
  if (first === '--version' || (first === 'version' && rest.length === 0)) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Before the commands bundle loads: loading it is what would first grow the young generation (serve-heap.ts).
  // Imported here, like compile-cache below: the host, started through this file too, has no use for node:v8.
  if (first === 'serve' && !asksHelp) (await import('./serve-heap')).sizeHeapForServe();
  const { runCommand } = await loadCommands(argv);
  return runCommand(first, rest);
}

/**
 * `comet-relay selectors list | head -1`: once the reader has what it wanted and closes the pipe,
 * the next write fails with EPIPE, which Node would throw as an unhandled 'error' event with a stack
 * trace. Nothing is wrong then: the rest of the output goes nowhere, quietly, and the command ends
 * with its own exit code (a `doctor` that found a fault still exits 1; an export still saves its
 * manifest and lets go of its folder: day-5 review F3). Any other error writing stdout (a full disk
 * behind a redirect) is still said, in the CLI's format, exit 1. Not for the host, whose stdout is
 * the browser's pipe and which handles its end itself. `comet-relay mcp` is the one that ends: its
 * stdout is the MCP channel, and a client that stopped reading has nothing more coming from it
 * (day-6 review F4: it answered into nothing while its stdin stayed open).
 */
function quietWhenReaderLeaves(endWithIt: boolean): void {
  let gone = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || (gone && error.code === 'ERR_STREAM_DESTROYED')) {
      gone = true;
      if (endWithIt) process.exit(0);
      return;
    }
    process.stderr.write(formatCliError(new Error(`Could not write the output: ${error.message}. Check where it goes (a file on a full disk, a closed terminal).`)));
    process.exit(1);
  });
}

/** The commands bundle beside this file, through the code cache; from sources (tsx), the module. */
async function loadCommands(argv: readonly string[]): Promise<typeof import('./commands')> {
  const bundle = typeof __filename === 'string' && __filename.endsWith('.js') ? path.join(path.dirname(__filename), 'commands.js') : undefined;
  if (!bundle || !fs.existsSync(bundle)) return import('./commands');
  let dir: string | undefined;
  try {
    // Under the command's own --home (everything in one folder), and none for `uninstall --purge`, which would write it back.
    dir = codeCacheDirFor(argv);
  } catch {
    dir = undefined; // no state folder to be found: run without a cache
  }
  // Imported here, not at the top: the host, started through this file too, has no use for node:vm.
  const { requireWithCodeCache } = await import('./compile-cache');
  return requireWithCodeCache(bundle, { dir, version: VERSION }).exports as typeof import('./commands');
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // runCommand prints its own failures; this is what fails before it (loading a bundle), in the same format.
    process.stderr.write(formatCliError(error));
    process.exitCode = exitCodeOf(error);
  },
);
