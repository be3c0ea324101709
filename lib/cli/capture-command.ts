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
  if (fs.existsSync(file)) throw new RelayError('CONFIG_ERROR', `${file} already exists; pass another name with --out FILE.`);
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
