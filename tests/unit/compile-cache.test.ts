import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asciiOnly, cacheKey, requireWithCodeCache } from '../../lib/cli/compile-cache';
import { CODE_CACHE_FILE, OWN_STATE_FILES } from '../../lib/relay/paths';

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-compile-cache-'));
  cacheDir = path.join(dir, 'state', 'cache');
  fs.mkdirSync(path.dirname(cacheDir), { mode: 0o700 }); // a state folder as install makes it
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const bundle = (name: string, body: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/usr/bin/env node\n${body}`);
  return file;
};
const settle = () => new Promise((r) => setTimeout(r, 50));
const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

describe('the commands bundle with V8 code cache', () => {
  it('runs the bundle, writes a cache, and compiles from it the next time', async () => {
    const file = bundle('commands.js', 'const helper = () => 41; module.exports = { answer: helper() + 1, dir: __dirname, req: typeof require };');
    const first = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    expect(first.exports).toEqual({ answer: 42, dir, req: 'function' });
    expect(first.cache).toBe('scheduled');
    await settle();
    expect(cacheFiles()).toEqual([cacheKey(file, fs.statSync(file), '1.0.0')]);
    expect(cacheFiles()[0]).toMatch(CODE_CACHE_FILE);
    expect((fs.statSync(cacheDir).mode & 0o777).toString(8)).toBe('700');

    const second = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    expect(second).toEqual({ exports: first.exports, cache: 'used' });
  });

  it('keys the cache by the source, our version and Node, and drops the caches of older sources', async () => {
    const file = bundle('commands.js', 'module.exports = 1;');
    requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    await settle();
    const old = cacheFiles();
    // A rebuild (another size and mtime) or another version: another key, the old cache goes.
    fs.writeFileSync(file, 'module.exports = 22;');
    const rebuilt = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    expect(rebuilt).toEqual({ exports: 22, cache: 'scheduled' });
    await settle();
    expect(cacheFiles()).toHaveLength(1);
    expect(cacheFiles()).not.toEqual(old);
    expect(cacheKey(file, fs.statSync(file), '1.0.1')).not.toBe(cacheFiles()[0]);
  });

  it('a damaged cache is rejected by V8 and written again; the bundle still runs', async () => {
    const file = bundle('commands.js', 'module.exports = "ok";');
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const key = cacheKey(file, fs.statSync(file), '1.0.0');
    fs.writeFileSync(path.join(cacheDir, key), Buffer.from('not a code cache at all, just bytes'));
    const loaded = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    expect(loaded).toEqual({ exports: 'ok', cache: 'scheduled' });
    await settle();
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0' }).cache).toBe('used');
  });

  it('without a cache folder, or with one it cannot write, it only runs slower', async () => {
    const file = bundle('commands.js', 'module.exports = 3;');
    expect(requireWithCodeCache(file, { dir: undefined, version: '1.0.0' })).toEqual({ exports: 3, cache: 'off' });
    fs.rmSync(path.join(dir, 'state'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'state'), 'a file where the folder would be');
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 }).exports).toBe(3);
    await settle();
    expect(fs.readFileSync(path.join(dir, 'state'), 'utf8')).toBe('a file where the folder would be');
  });

  it("a state folder others may open, or a cache/ someone already has there, is left as it was (day-6 review F8)", async () => {
    const file = bundle('commands.js', 'module.exports = 4;');
    // A --home shared with other things (755), with a cache/ of its own: no cache, no chmod.
    const shared = path.join(dir, 'project');
    fs.mkdirSync(path.join(shared, 'cache'), { recursive: true, mode: 0o755 });
    fs.chmodSync(shared, 0o755);
    fs.chmodSync(path.join(shared, 'cache'), 0o755);
    fs.writeFileSync(path.join(shared, 'cache', 'build.dat'), 'theirs');
    expect(requireWithCodeCache(file, { dir: path.join(shared, 'cache'), version: '1.0.0', writeAfterMs: 0 }).exports).toBe(4);
    // An owner-only state folder whose cache/ is open to others: left open, nothing written into it.
    const own = path.join(dir, 'state');
    fs.mkdirSync(cacheDir, { mode: 0o755 });
    fs.chmodSync(cacheDir, 0o755);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 }).exports).toBe(4);
    // A shared folder without a cache/: none is made in it.
    const bare = path.join(dir, 'bare');
    fs.mkdirSync(bare, { mode: 0o755 });
    fs.chmodSync(bare, 0o755);
    expect(requireWithCodeCache(file, { dir: path.join(bare, 'cache'), version: '1.0.0', writeAfterMs: 0 }).exports).toBe(4);
    await settle();
    expect((fs.statSync(path.join(shared, 'cache')).mode & 0o777).toString(8)).toBe('755');
    expect(fs.readdirSync(path.join(shared, 'cache'))).toEqual(['build.dat']);
    expect((fs.statSync(own).mode & 0o777).toString(8)).toBe('700');
    expect((fs.statSync(cacheDir).mode & 0o777).toString(8)).toBe('755');
    expect(cacheFiles()).toEqual([]);
    expect(fs.existsSync(path.join(bare, 'cache'))).toBe(false);
  });

  it('uninstall --purge knows the cache files by name', () => {
    const own = OWN_STATE_FILES.find((f) => f.dir === 'cache');
    expect(own?.name.test('commands-0123456789abcdef.v8cache')).toBe(true);
    expect(own?.name.test('commands-0123456789abcdef.v8cache.123.tmp')).toBe(true);
    expect(own?.name.test('notes.txt')).toBe(false);
  });

  it('a bundle with characters past ASCII in its comments and strings runs the same, its source kept one byte a character', () => {
    // The escapes below are this test's way of writing the characters: the bundle file holds the characters themselves.
    const plain = '// Aug\u2013Oct \u2014 caf\u00e9\nmodule.exports = { dash: "\u2014", face: "\u{1F600}", match: /[\u2014]/.test("a\u2014b"), raw: "caf\u00e9".length };';
    expect(plain).toMatch(/[^\x00-\x7f]/);
    const loaded = requireWithCodeCache(bundle('commands.js', plain), { dir: undefined, version: '1.0.0' });
    expect(loaded.exports).toEqual({ dash: '\u2014', face: '\u{1F600}', match: true, raw: 4 });
    // v8.serialize tags a one-byte string '"' and a two-byte one 'c' (after padding bytes, 0): what V8 keeps of the source.
    const tag = (text: string) => String.fromCharCode(v8.serialize(text).subarray(2).find((byte) => byte !== 0) ?? 0);
    expect(tag(plain)).toBe('c');
    expect(tag(asciiOnly(plain))).toBe('"');
  });
});
