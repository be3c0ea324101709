import { RelayError } from '../protocol/errors';
import { EXTENSION_ORIGIN } from '../protocol/identity';
import { VERSION } from '../relay/version';

/**
 * Entry point of the `comet-relay` command. The browser starts us with our extension's origin as
 * the first argument; everything else is a subcommand. Every failure prints what was wrong and
 * what to do, and exits non-zero; it never prints a stack trace at the user.
 *
 * Commands are loaded on demand (the build splits them into chunks): the host, which runs for as
 * long as the browser does, never loads the MCP SDK or the HTTP server.
 */
async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first?.startsWith('chrome-extension://') || first === 'host') {
    const { runHostCommand } = await import('./host-command');
    const origin = first === 'host' ? rest.find((a) => a.startsWith('chrome-extension://')) : first;
    return runHostCommand(origin ?? EXTENSION_ORIGIN);
  }
  const { COMMANDS, usage } = await import('./commands');
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(usage());
    return first === undefined ? 1 : 0;
  }
  if (first === '--version' || first === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[first];
  if (!command) {
    process.stderr.write(`comet-relay: unknown command "${first}".\n\n${usage()}`);
    return 2;
  }
  const { readSettings } = await import('../config/settings');
  return command.run(rest, readSettings());
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof RelayError ? `[${error.code}] ${error.message}` : `Error: ${(error as Error)?.message ?? String(error)}`;
    process.stderr.write(`comet-relay: ${message}\n`);
    process.exitCode = 1;
  },
);
