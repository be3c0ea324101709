import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * The host lives as long as the browser: what it loads at start stays resident (the budget: at
 * most 45 MB, bare Node 20 being ~40 MB). Built the way `npm run build:cli` builds it (chunks split at
 * every dynamic import), the code `comet-relay host` loads before anything asks for more must hold
 * no zod and no MCP SDK; zod comes in only with a selector set file (lib/relay/pack-feed.ts).
 */
async function staticClosure(entry: string, command: string): Promise<string[]> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-host-weight-'));
  try {
    const out = await build({
      entryPoints: { cli: path.join(import.meta.dirname, '../../lib/cli', entry) },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const outputs: Metafile['outputs'] = out.metafile.outputs;
    const byName = (name: string) => Object.keys(outputs).find((o) => path.basename(o).startsWith(name));
    const root = byName('cli.js');
    // A dynamically imported module is an entry point of its own chunk.
    const commandChunk = Object.keys(outputs).find((o) => outputs[o]?.entryPoint?.endsWith(command));
    if (!root || !commandChunk) throw new Error(`no chunk for ${command}`);
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imported of outputs[file]?.imports ?? []) if (imported.kind === 'import-statement' && outputs[imported.path]) visit(imported.path);
    };
    visit(root);
    visit(commandChunk);
    return [...seen].flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

describe('host weight', () => {
  it('comet-relay host starts without zod or the MCP SDK', async () => {
    const inputs = await staticClosure('main.ts', 'lib/cli/host-command.ts');
    expect(inputs).toContain('lib/relay/host.ts');
    expect(inputs.filter((i) => i.includes('node_modules'))).toEqual([]);
    // Read only when a selector set file is there: a dynamic import, not part of the start.
    expect(inputs).not.toContain('lib/relay/pack-folder.ts');
  });
});
