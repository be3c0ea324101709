import { createHash } from 'node:crypto';
import { EXTENSION_ID } from '../protocol/identity';
import { VERSION } from '../relay/version';
import { defaultCliPath, errorMessage, isFile, type ResolvedSystem, resolveSystem, type SystemOptions, tildify } from './system';

/**
 * Which copy of comet-relay this is, and where its parts are: a repository checkout someone
 * built, a package installed with npm, or one npx unpacked into its cache. The built extension
 * ships inside the package at `dist/extension/` (beside `dist/cli.js`), so "the folder to load
 * unpacked" is always found relative to the CLI that is running.
 */
export type CopyKind = 'checkout' | 'installed' | 'npx-cache';

export interface PackageCopy {
  kind: CopyKind;
  /** The package folder (the one holding package.json and dist/). */
  root: string;
  cliPath: string;
  /** The built extension to load unpacked: `<root>/dist/extension`. */
  extensionDir: string;
}

export function packageCopy(options: SystemOptions & { cliPath?: string } = {}): PackageCopy {
  const sys = resolveSystem(options);
  const cliPath = sys.path.resolve(options.cliPath ?? defaultCliPath());
  const dist = sys.path.dirname(cliPath);
  const root = sys.path.dirname(dist);
  // Compared by whole path segment: a folder merely named like "my_npx_stuff" is not npx's cache.
  const segments = root.split(/[\\/]+/);
  const kind: CopyKind = sys.fs.existsSync(sys.path.join(root, 'lib', 'cli', 'main.ts'))
    ? 'checkout'
    : segments.includes('_npx')
      ? 'npx-cache'
      : 'installed';
  return { kind, root, cliPath, extensionDir: sys.path.join(dist, 'extension') };
}

/** What brings a missing or broken CLI back, for this kind of copy. */
export function rebuildHint(copy: PackageCopy, sys: ResolvedSystem = resolveSystem()): string {
  if (copy.kind === 'checkout') return `run: npm run build (in ${tildify(sys, copy.root)})`;
  return `reinstall the package: npx comet-relay@${VERSION} install (or npm install -g comet-relay@${VERSION})`;
}

/** A note for copies that can vanish under the browser: npx's cache is npm's to clear. */
export function volatileCopyNote(copy: PackageCopy, sys: ResolvedSystem = resolveSystem()): string | undefined {
  if (copy.kind !== 'npx-cache') return undefined;
  return (
    `Note: this copy runs from npx's cache (${tildify(sys, copy.root)}), which npm may clear; the browser would then lose the host and the extension folder. ` +
    `For a copy that stays put: npm install -g comet-relay@${VERSION}, then run \`comet-relay install\` and \`comet-relay extension\` from it.`
  );
}

/** The extension ID Chromium derives from a manifest `key`: sha256 of the DER, first 32 hex digits mapped to a–p. */
export function extensionIdFromKey(key: string): string {
  const hex = createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');
}

export interface ExtensionFolder {
  ok: boolean;
  dir: string;
  /** The ID the folder's manifest key pins, when it could be read. */
  id?: string;
  version?: string;
  problem?: string;
  fix?: string;
}

/** Checks that `dir` holds a built extension whose key pins our ID (what the host manifest admits). */
export function checkExtensionFolder(copy: PackageCopy, sys: ResolvedSystem = resolveSystem()): ExtensionFolder {
  const dir = copy.extensionDir;
  const manifestPath = sys.path.join(dir, 'manifest.json');
  const fail = (problem: string, extra: Partial<ExtensionFolder> = {}): ExtensionFolder => ({ ok: false, dir, problem, fix: rebuildHint(copy, sys), ...extra });
  if (!isFile(sys, manifestPath)) return fail(`there is no built extension at ${tildify(sys, dir)}`);
  let manifest: { key?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(sys.fs.readFileSync(manifestPath, 'utf8')) as typeof manifest;
  } catch (error) {
    return fail(`${tildify(sys, manifestPath)} is not valid JSON (${errorMessage(error)})`);
  }
  const version = typeof manifest.version === 'string' ? manifest.version : undefined;
  if (typeof manifest.key !== 'string') return fail(`${tildify(sys, manifestPath)} has no "key", so its ID would depend on the folder it is loaded from`, { version });
  const id = extensionIdFromKey(manifest.key);
  if (id !== EXTENSION_ID) return fail(`the extension at ${tildify(sys, dir)} has ID ${id}, but the host admits only ${EXTENSION_ID}`, { id, version });
  return { ok: true, dir, id, version };
}
