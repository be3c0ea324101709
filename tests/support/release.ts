import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package.json a release carries: the repository's, without what only a clone uses (its
 * scripts — `prepare` runs `wxt prepare` after `npm ci`, and an installer must not meet it — its
 * devDependencies and overrides). npm reads the file from disk when it packs, so `prepack` writes
 * this one in place (the repository's kept beside it as `.package.json.dev`) and `postpack` puts
 * the repository's back; a pack that died in between is undone by the next `prepack` or
 * `postpack`. Run by npm: `npm run release` (build, then `npm pack`), `npm pack`, `npm publish`.
 */
const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..', '..');
const MANIFEST = path.join(ROOT, 'package.json');
const KEPT = path.join(ROOT, '.package.json.dev');
const DEV_ONLY = ['scripts', 'devDependencies', 'overrides'] as const;

export function publishedManifest(dev: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(dev).filter(([key]) => !(DEV_ONLY as readonly string[]).includes(key)));
}

function restore(): void {
  if (fs.existsSync(KEPT)) fs.renameSync(KEPT, MANIFEST);
}

function clean(): void {
  restore();
  const missing = ['dist/cli.js', 'dist/extension/manifest.json'].filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (missing.length > 0) {
    process.stderr.write(`comet-relay pack: ${missing.join(' and ')} missing: the package would ship no program. Run \`npm run release\` (it builds, then packs), or \`npm run build\` first.\n`);
    process.exit(1);
  }
  const text = fs.readFileSync(MANIFEST, 'utf8');
  fs.writeFileSync(KEPT, text);
  fs.writeFileSync(MANIFEST, `${JSON.stringify(publishedManifest(JSON.parse(text)), null, 2)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const step = process.argv[2];
  if (step === 'prepack') clean();
  else if (step === 'postpack') restore();
  else {
    process.stderr.write('usage: tsx tests/support/release.ts prepack|postpack\n');
    process.exit(2);
  }
}
