import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { doctor } from '../../lib/install/doctor';
import { checkExtensionFolder, extensionIdFromKey, packageCopy, rebuildHint, volatileCopyNote } from '../../lib/install/package-copy';
import { EXTENSION_ID, EXTENSION_PUBLIC_KEY } from '../../lib/protocol/identity';
import { VERSION } from '../../lib/relay/version';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A package folder laid out like the tarball: dist/cli.js and dist/extension/manifest.json. */
function packageAt(...segments: string[]): { homedir: string; root: string; cliPath: string } {
  const homedir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-copy-'));
  temps.push(homedir);
  const root = path.join(homedir, ...segments);
  fs.mkdirSync(path.join(root, 'dist', 'extension'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist', 'cli.js'), '// built\n');
  fs.writeFileSync(path.join(root, 'dist', 'extension', 'manifest.json'), JSON.stringify({ version: VERSION, key: EXTENSION_PUBLIC_KEY }));
  return { homedir, root, cliPath: path.join(root, 'dist', 'cli.js') };
}

describe('which copy of comet-relay is running', () => {
  it('derives the pinned ID from the manifest key', () => {
    expect(extensionIdFromKey(EXTENSION_PUBLIC_KEY)).toBe(EXTENSION_ID);
  });

  it('a package installed with npm: the extension folder is dist/extension beside the CLI', () => {
    const p = packageAt('prefix', 'node_modules', 'comet-relay');
    const copy = packageCopy({ cliPath: p.cliPath });
    expect(copy).toEqual({ kind: 'installed', root: p.root, cliPath: p.cliPath, extensionDir: path.join(p.root, 'dist', 'extension') });
    expect(checkExtensionFolder(copy)).toEqual({ ok: true, dir: copy.extensionDir, id: EXTENSION_ID, version: VERSION });
    // Installed from a release file today, from the registry once it is published: never an npx spec that 404s.
    expect(rebuildHint(copy)).toBe(
      `reinstall the package: npm install -g ./comet-relay-${VERSION}.tgz from the release file (or, once it is on the npm registry, npm install -g comet-relay@${VERSION}), then run: comet-relay install`,
    );
    expect(volatileCopyNote(copy)).toBeUndefined();
  });

  it("npx's cache is recognised by a whole path segment, and gets a note that it may be cleared", () => {
    const cached = packageCopy({ cliPath: packageAt('.npm', '_npx', 'ab12', 'node_modules', 'comet-relay').cliPath });
    expect(cached.kind).toBe('npx-cache');
    expect(volatileCopyNote(cached)).toMatch(/npx's cache .*npm install -g comet-relay@/);
    expect(packageCopy({ cliPath: packageAt('my_npx_things', 'comet-relay').cliPath }).kind).toBe('installed');
  });

  it('a repository checkout is told to build, not to reinstall', () => {
    const p = packageAt('src', 'comet-relay');
    fs.mkdirSync(path.join(p.root, 'lib', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(p.root, 'lib', 'cli', 'main.ts'), '');
    const copy = packageCopy({ cliPath: p.cliPath });
    expect(copy.kind).toBe('checkout');
    expect(rebuildHint(copy)).toBe(`run: npm run build (in ${p.root})`);
  });

  it('an extension folder that is missing, keyless or keyed to another ID is refused with the reason', () => {
    const p = packageAt('x', 'comet-relay');
    const copy = packageCopy({ cliPath: p.cliPath });
    const manifest = path.join(copy.extensionDir, 'manifest.json');
    fs.writeFileSync(manifest, JSON.stringify({ version: '1.0.0' }));
    expect(checkExtensionFolder(copy)).toMatchObject({ ok: false, problem: expect.stringContaining('has no "key"') });
    const otherKey = Buffer.from('not our key').toString('base64');
    fs.writeFileSync(manifest, JSON.stringify({ key: otherKey }));
    expect(checkExtensionFolder(copy)).toMatchObject({ ok: false, id: extensionIdFromKey(otherKey), problem: expect.stringContaining(`admits only ${EXTENSION_ID}`) });
    fs.writeFileSync(manifest, '{');
    expect(checkExtensionFolder(copy)).toMatchObject({ ok: false, problem: expect.stringContaining('not valid JSON') });
    fs.rmSync(copy.extensionDir, { recursive: true });
    expect(checkExtensionFolder(copy)).toMatchObject({ ok: false, problem: expect.stringContaining('there is no built extension at'), fix: expect.stringContaining('reinstall') });
  });

  it('doctor names the installed copy and the folder to load', async () => {
    const p = packageAt('prefix', 'lib', 'node_modules', 'comet-relay');
    const report = await doctor({ homedir: p.homedir, env: {}, platform: 'linux', cliPath: p.cliPath, listHosts: () => [] });
    expect(report.checks.find((c) => c.name === 'CLI built')).toMatchObject({ ok: true, detail: `~/prefix/lib/node_modules/comet-relay/dist/cli.js (installed package ${VERSION})` });
    expect(report.checks.find((c) => c.name === 'extension folder')).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`load it unpacked from ~/prefix/lib/node_modules/comet-relay/dist/extension (ID ${EXTENSION_ID}`),
    });
    fs.rmSync(p.cliPath);
    const broken = await doctor({ homedir: p.homedir, env: {}, platform: 'linux', cliPath: p.cliPath, listHosts: () => [] });
    expect(broken.checks.find((c) => c.name === 'CLI built')).toMatchObject({ ok: false, fix: expect.stringContaining(`npm install -g ./comet-relay-${VERSION}.tgz`) });
  });
});
