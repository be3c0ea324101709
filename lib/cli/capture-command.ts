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
  const stat = look(file);
  if (typeof stat === 'string') return stat;
  if (stat?.isDirectory()) return `${file} is a folder; pass a file name inside it with --out FILE.`;
  if (stat) return `${file} already exists; pass another name with --out FILE.`;
  // The nearest folder on the way that is there: a file there (notes.txt/page.html) is no folder (review 14d, 2).
  const folder = path.dirname(file);
  for (let at = folder; ; at = path.dirname(at)) {
    const there = look(at);
    if (typeof there === 'string') return there;
    if (there && !there.isDirectory()) return `${at} is a file, not a folder; pass --out FILE in a folder.`;
    if (there) return at === folder ? unwritable(folder) : `The folder ${folder} does not exist; create it, or pass --out FILE in a folder that does.`;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * What is at `at`: its stats, nothing (undefined: not there, or a file on the way), or why it cannot be looked at, in
 * words: a folder that cannot be searched, a name too long (review 14e, 3: both read as "nothing there").
 */
function look(at: string): fs.Stats | string | undefined {
  try {
    return fs.statSync(at);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return `${at} cannot be used (${code ?? (error as Error).message}); pass --out FILE in a folder you can write.`;
  }
}

function unwritable(folder: string): string | undefined {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    return `You cannot write in ${folder} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass --out FILE in a folder you can write.`;
  }
}
