import { createHash } from 'node:crypto';
import { EXTENSION_ID } from '../protocol/identity';
import { cliCommand, commandPrefix } from '../relay/invocation';
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

/**
 * What brings a missing or broken CLI back, for this kind of copy. It is said where this copy may
 * be gone (the launcher's log line), so never in words that run this copy: npx fetches its spec
 * again, a clone builds, an installed package is installed again from where it came.
 */
export function rebuildHint(copy: PackageCopy, sys: ResolvedSystem = resolveSystem()): string {
  if (copy.kind === 'checkout') return `run: npm run build (in ${tildify(sys, copy.root)})`;
  if (copy.kind === 'npx-cache') {
    return `remove npx's copy (${tildify(sys, copy.root)}), then run: ${cliCommand('install', { cliPath: copy.cliPath, platform: sys.platform, lasting: true })}`;
  }
  return (
    `reinstall the package: npm install -g ./comet-relay-${VERSION}.tgz from the release file (or, once it is on the npm registry, npm install -g comet-relay@${VERSION}), ` +
    'then run: comet-relay install'
  );
}

/** A note for copies that can vanish under the browser: npx's cache is npm's to clear. */
export function volatileCopyNote(copy: PackageCopy, sys: ResolvedSystem = resolveSystem()): string | undefined {
  if (copy.kind !== 'npx-cache') return undefined;
  // The spec this copy was fetched with: what `npm install -g` takes to make the same copy stay put.
  const prefix = commandPrefix({ cliPath: copy.cliPath, platform: sys.platform });
  const spec = prefix.startsWith('npx ') ? prefix.slice(4) : `comet-relay@${VERSION}`;
  return (
    `Note: this copy runs from npx's cache (${tildify(sys, copy.root)}), which npm may clear; the browser would then lose the host and the extension folder. ` +
    `For a copy that stays put: npm install -g ${spec}, then run \`comet-relay install\` and \`comet-relay extension\` from it.`
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
