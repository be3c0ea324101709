/** Bundles the page script (client/main.ts, with the real Lexical editor from npm) with esbuild on first request and caches it. */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

let cached: Promise<string> | null = null;

export function clientBundle(): Promise<string> {
  if (!cached) {
    cached = build({
      entryPoints: [fileURLToPath(new URL('./client/main.ts', import.meta.url))],
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
      if (!out) throw new Error('esbuild produced no output for the sim client');
      return out.text;
    });
    cached.catch(() => {
      cached = null;
    });
  }
  return cached;
}
