import { parseArgs } from 'node:util';
import { didYouMean, spoken, UsageError } from './usage';

/**
 * Parses one subcommand's flags. An unknown flag, a flag missing its value or given one it does
 * not take is a usage error (exit 2) that names the nearest known flag and where the list is; so
 * is a stray word, unless the command takes words (`takesWords`): a path with a space pasted
 * unquoted must not run the command on the half before the space.
 */
export function parseFlags<const T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(
  command: string,
  args: string[],
  options: T,
  takesWords = false,
) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const known = [...Object.keys(options), 'help'].map((name) => `--${name}`);
    const e = error as Error & { code?: string };
    const named = `\`${spoken(`comet-relay ${command}`)}\``;
    const where = `\`${spoken(`comet-relay ${command} --help`)}\` lists its options`;
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const typed = /'(-[^']*)'/.exec(e.message)?.[1] ?? e.message;
      const flag = typed.split('=')[0] as string;
      throw new UsageError(`Unknown option ${flag} for ${named}.${didYouMean(flag.replace(/^-+/, ''), known.map((k) => k.slice(2)), (n) => `--${n}`)} ${where}.`);
    }
    throw new UsageError(`${e.message.replace(/\. To specify.*$/s, '').replace(/\.$/, '')} for ${named}; ${where}.`);
  }
  if (!takesWords && parsed.positionals.length > 0) {
    const words = parsed.positionals.map((word) => `"${word}"`).join(' ');
    throw new UsageError(
      `\`${spoken(`comet-relay ${command}`)}\` takes no words of its own, but was given ${words}. A value with a space must be quoted (--home '/Users/me/Library/Application Support/comet-relay'); \`${spoken(`comet-relay ${command} --help`)}\` lists its options.`,
    );
  }
  return parsed;
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
  if (!value.trim() || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port ${value} is not a port number (0–65535).`);
  }
  return port;
}
