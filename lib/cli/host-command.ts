import { createFileLogger } from '../relay/logger';
import { NativeHost } from '../relay/host';
import { logsDir, stateDir } from '../relay/paths';

/**
 * `comet-relay host`: what the browser starts through native messaging. stdout carries frames to
 * the extension, so nothing else may write there; errors go to the log file.
 */
export async function runHostCommand(callerOrigin?: string): Promise<number> {
  const home = stateDir();
  const logger = createFileLogger({ dir: logsDir(home), name: 'host' });
  // Anything printed by accident would corrupt the native messaging stream.
  console.log = console.info = console.warn = console.error = console.debug = () => {};
  process.on('uncaughtException', (error) => logger.error('uncaught exception (host keeps running)', { error: error.stack }));
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection (host keeps running)', { error: String(error) }));
  const host = new NativeHost({ home, input: process.stdin, output: process.stdout, logger, callerOrigin });
  const stop = (signal: string) => void host.stop(signal);
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await host.done;
  // A client that never hangs up, or a server left open because a newer host owns the socket
  // path, must not keep a retired host alive: give pending writes a moment, then leave.
  setTimeout(() => process.exit(0), 300).unref();
  return 0;
}
