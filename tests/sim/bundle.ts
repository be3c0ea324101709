/**
 * Page scripts served to the browser (the sim's client/main.ts, the askable capture's script), each with the real
 * Lexical editor from npm, bundled with esbuild on first request and cached.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cache = new Map<string, Promise<string>>();

/** The script at `entry` (a file URL), bundled for the browser; a failed build is tried again on the next request. */
export function browserBundle(entry: URL): Promise<string> {
  const file = fileURLToPath(entry);
  let bundled = cache.get(file);
  if (!bundled) {
    bundled = build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'iife',
      target: 'chrome116',
      platform: 'browser',
      legalComments: 'none',
      // Lexical's production build, as a site serves it (its entry picks dev or prod from NODE_ENV).
      conditions: ['production'],
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    }).then((r) => {
      const out = r.outputFiles[0];
      if (!out) throw new Error(`esbuild produced no output for ${file}`);
      return out.text;
    });
    bundled.catch(() => cache.delete(file));
    cache.set(file, bundled);
  }
  return bundled;
}

/** The sim's own page script. */
export const clientBundle = (): Promise<string> => browserBundle(new URL('./client/main.ts', import.meta.url));
