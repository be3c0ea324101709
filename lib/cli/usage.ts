import { RelayError } from '../protocol/errors';
import { commandPrefix } from '../relay/invocation';

/**
 * The CLI's one error format and its exit codes (docs/commands.md, "Exit codes"): every failure is
 * printed as `comet-relay: [CODE] message` on stderr; what was typed that the CLI cannot take (an
 * unknown command or option, a missing or unknown argument, a malformed value) exits 2, as usage
 * errors conventionally do, and anything that failed while running exits 1.
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** What was typed cannot be taken: exits 2. A CONFIG_ERROR, so anything catching RelayError sees one. */
export class UsageError extends RelayError {
  readonly exitCode = EXIT_USAGE;
  constructor(message: string) {
    super('CONFIG_ERROR', message);
  }
}

/** An error recognised by its shape (a UsageError from another bundle is another class). */
export function exitCodeOf(error: unknown): number {
  return (error as { exitCode?: unknown })?.exitCode === EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
}

/** The one line every CLI failure is printed as. */
export function formatCliError(error: unknown): string {
  const e = RelayError.from(error);
  return `comet-relay: [${e.code}] ${e.message}\n`;
}

/** A command line in the words this copy is run with: `comet-relay doctor` → `npx ./comet-relay-0.1.0.tgz doctor`. */
export function spoken(line: string, prefix: string = commandPrefix()): string {
  return line.replace(/^comet-relay\b/, prefix);
}

/** Help text as printed: each command it names in backticks (`comet-relay token`) said the way this copy is run. */
export function saidInHelp(text: string): string {
  return text.replace(/`comet-relay /g, `\`${spoken('comet-relay')} `);
}

/** The known name nearest to `typed`: within two edits (a third of its length for long names), or one it begins. */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.startsWith(typed) && typed.length >= 2 ? 0.5 : editDistance(typed, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(typed.length / 3)) && best.distance < typed.length ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** ` Did you mean X?` when one known name is near `typed`, else nothing. */
export function didYouMean(typed: string, known: readonly string[], show: (name: string) => string = (n) => n): string {
  const near = nearest(typed, known);
  return near ? ` Did you mean ${show(near)}?` : '';
}
