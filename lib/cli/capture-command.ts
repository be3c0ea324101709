import fs from 'node:fs';
import path from 'node:path';
import { RelayError } from '../protocol/errors';
import type { RelayClient } from '../relay/client';
import { cliCommand } from '../relay/invocation';

/**
 * `comet-relay capture [--out FILE]`: asks the Perplexity tab for a sanitized copy of its page
 * (lib/page/kits/capture.ts says what is kept and what is replaced) and writes it to a new file. It
 * never overwrites a file: a report must not cost the person another file.
 */
export async function runCapture(client: RelayClient, out: string | undefined, io: { out(text: string): void }): Promise<number> {
  const file = path.resolve(out ?? `perplexity-capture-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.html`);
  // Where it goes is checked before the tab is asked: a capture made for a folder that is not there was thrown away (review 14c, F3).
  const problem = outProblem(file);
  if (problem) throw new RelayError('CONFIG_ERROR', problem);
  const capture = await client.call('page.capture', {}, { timeoutMs: 30_000 });
  try {
    fs.writeFileSync(file, capture.html, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    throw new RelayError('CONFIG_ERROR', `Cannot write ${file}: ${(error as Error).message}.`);
  }
  const origin = capture.set.source === 'built-in' ? 'built-in' : `from ${capture.set.source}`;
  io.out(
    `Saved the Perplexity tab (${capture.url}) to ${file}, ${Math.ceil(capture.bytes / 1024)} kB${capture.truncated ? ' (cut at the size limit)' : ''}.\n` +
      `Selector set in use: ${capture.set.name} (${origin}).\n` +
      'Texts are replaced by placeholders of the same length and URLs are cut to their host; scripts, form values and cookies are never included.\n' +
      `Look it over, then attach it to a bug report together with the output of \`${cliCommand('doctor --page')}\`.\n`,
  );
  return 0;
}

/** Why `file` cannot be the new file a capture is written to, in words with what to do; undefined when it can. */
function outProblem(file: string): string | undefined {
  const stat = statOf(file);
  if (stat?.isDirectory()) return `${file} is a folder; pass a file name inside it with --out FILE.`;
  if (stat) return `${file} already exists; pass another name with --out FILE.`;
  // The nearest folder on the way that is there: a file there (notes.txt/page.html) is no folder (review 14d, 2).
  for (let at = path.dirname(file); ; at = path.dirname(at)) {
    const there = statOf(at);
    if (there) return there.isDirectory() ? (at === path.dirname(file) ? undefined : `The folder ${path.dirname(file)} does not exist; create it, or pass --out FILE in a folder that does.`) : `${at} is a file, not a folder; pass --out FILE in a folder.`;
    if (path.dirname(at) === at) return undefined;
  }
}

/** What is at `at`, or undefined when nothing is (or a file on the way makes it nothing). */
function statOf(at: string): fs.Stats | undefined {
  try {
    return fs.statSync(at);
  } catch {
    return undefined;
  }
}
