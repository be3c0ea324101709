import { parseArgs } from 'node:util';
import { useGivenHome } from '../relay/invocation';
import { expandHome } from '../relay/paths';
import { didYouMean, saidInHelp, spoken, UsageError } from './usage';

/** The flags that name a file or folder: a `~` the shell left is the person's home folder (expandHome). */
const PATH_FLAGS = ['home', 'user-data-dir', 'out', 'policy-dir'];

/** An option's help line and the command's examples, so an error can show the option at work. */
export interface FlagHelp {
  options?: readonly (readonly [flag: string, about: string])[];
  examples?: readonly string[];
}

/**
 * Parses one subcommand's flags. An unknown flag, a flag missing its value or given one it does
 * not take is a usage error (exit 2) that names the nearest known flag and where the list is; so
 * is a stray word, unless the command takes words (`takesWords`): a path with a space pasted
 * unquoted must not run the command on the half before the space. A `--home` parsed is what
 * every hint of this run says (lib/relay/invocation.ts `useGivenHome`).
 */
export function parseFlags<const T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(
  command: string,
  args: string[],
  options: T,
  takesWords = false,
  help: FlagHelp = {},
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
    const missing = /^Option '(-[^ ']+)(?: <value>)?' argument (missing|is ambiguous)/.exec(e.message);
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && missing) {
      const flag = missing[1] as string;
      const next = missing[2] === 'missing' ? undefined : args[args.indexOf(flag) + 1];
      throw new UsageError(missingValue(command, flag, next, help));
    }
    throw new UsageError(`${e.message.replace(/\. To specify.*$/s, '').replace(/\.$/, '')} for ${named}; ${where}.`);
  }
  const values = parsed.values as Record<string, unknown>;
  for (const flag of PATH_FLAGS) if (typeof values[flag] === 'string') values[flag] = expandHome(values[flag] as string);
  if ('home' in options) {
    const home = (parsed.values as { home?: string }).home;
    if (home === '') throw new UsageError('--home needs a folder: --home DIR (it is created when missing).');
    useGivenHome(home);
  }
  if (!takesWords && parsed.positionals.length > 0) {
    const words = parsed.positionals.map((word) => `"${word}"`).join(' ');
    throw new UsageError(
      `\`${spoken(`comet-relay ${command}`)}\` takes no words of its own, but was given ${words}. A value with a space must be quoted (--home '/Users/me/Library/Application Support/comet-relay'); \`${spoken(`comet-relay ${command} --help`)}\` lists its options.`,
    );
  }
  return parsed;
}

/**
 * `--browser needs a value: …`, with what the option takes (its help line) and an example that
 * uses it (one of the command's, else its first with the option's help form added): Node's
 * "argument missing" names neither.
 */
function missingValue(command: string, flag: string, next: string | undefined, help: FlagHelp): string {
  const line = help.options?.find(([form]) => form.split(' ')[0] === flag);
  const example = help.examples?.find((words) => words.split(' ').includes(flag)) ?? `${help.examples?.[0] ?? `comet-relay ${command}`} ${line?.[0] ?? `${flag} VALUE`}`;
  const after = next === undefined ? '' : `, but is followed by the option ${next} (a value that begins with "-" is written ${flag}=-VALUE)`;
  const what = line ? ` ${line[0]}: ${saidInHelp(line[1])}.` : '';
  return `${flag} needs a value${after}.${what} For example: \`${spoken(example)}\`.`;
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
