import { parseArgs } from 'node:util';
import { RelayError } from '../protocol/errors';

/** Parses one subcommand's flags; an unknown flag is a CONFIG_ERROR that lists the known ones. */
export function parseFlags<const T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(
  command: string,
  args: string[],
  options: T,
) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const known = Object.keys(options)
      .map((name) => `--${name}`)
      .join(', ');
    throw new RelayError('CONFIG_ERROR', `${(error as Error).message.replace(/\. To specify.*$/, '')} for \`comet-relay ${command}\`. Known options: ${known || 'none'}.`);
  }
}

export function parseToolList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RelayError('CONFIG_ERROR', `--port ${value} is not a port number (0–65535).`);
  }
  return port;
}
