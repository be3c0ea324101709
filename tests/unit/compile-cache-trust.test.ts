import fs from 'node:fs';
import { wrap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cacheKey, requireWithCodeCache } from '../../lib/cli/compile-cache';

/**
 * A V8 code cache is code: V8 checks it only against the source's length, so a cache made from
 * another source of the same length runs that source's functions instead of ours. The CLI must
 * therefore never compile from a cache that another user could have written, nor from one made for
 * an earlier file at the same path with the same size and modification time.
 */
let dir: string;
let cacheDir: string;
let exitListeners: Set<unknown>;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-cache-trust-'));
  cacheDir = path.join(dir, 'state', 'cache');
  fs.mkdirSync(path.dirname(cacheDir), { mode: 0o700 }); // a state folder as install makes it
  // A scheduled cache write fires after its timer or at the process's exit, whichever is first:
  // long after this test's folder is gone, which it would make again in the system temp folder.
  vi.useFakeTimers({ toFake: ['setTimeout'] });
  exitListeners = new Set(process.listeners('exit'));
});
afterEach(() => {
  vi.clearAllTimers();
  vi.useRealTimers();
  for (const listener of process.listeners('exit')) if (!exitListeners.has(listener)) process.off('exit', listener);
  fs.rmSync(dir, { recursive: true, force: true });
});

const HONEST = 'module.exports = { who: "honest bundle" };';
const EVIL__ = 'module.exports = { who: "someone else!" };';

function bundle(body: string): string {
  const file = path.join(dir, 'commands.js');
  fs.writeFileSync(file, body);
  return file;
}

/** What an attacker would plant: a valid cache of their own source, named for our file. */
function plantCache(file: string, source: string, mode = 0o600): string {
  fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const script = new vm.Script(wrap(source), { filename: file });
  (script.runInThisContext() as (e: unknown, r: unknown, m: { exports: unknown }) => void)({}, require, { exports: {} });
  const planted = path.join(cacheDir, cacheKey(file, fs.statSync(file), '1.0.0'));
  fs.writeFileSync(planted, script.createCachedData());
  fs.chmodSync(planted, mode);
  return planted;
}

describe('the code cache is trusted only when it is ours alone', () => {
  it('the premise: V8 runs a same-length cache of another source (which is why the checks below exist)', () => {
    expect(HONEST.length).toBe(EVIL__.length);
    const file = bundle(HONEST);
    plantCache(file, EVIL__);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 }).exports).toEqual({ who: 'someone else!' });
  });

  it('a cache file others may write is not used: our own code runs', () => {
    const file = bundle(HONEST);
    plantCache(file, EVIL__, 0o666);
    const loaded = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 });
    expect(loaded.exports).toEqual({ who: 'honest bundle' });
    expect(loaded.cache).toBe('scheduled');
  });

  it('a cache file that belongs to another user is not used', () => {
    const file = bundle(HONEST);
    plantCache(file, EVIL__);
    const owner = fs.statSync(cacheDir).uid;
    const loaded = requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000, uid: owner + 1, platform: 'linux' });
    expect(loaded.exports).toEqual({ who: 'honest bundle' });
  });

  it('a cache folder others may write, or a cache that is a symbolic link, is not used', () => {
    const file = bundle(HONEST);
    const planted = plantCache(file, EVIL__);
    fs.chmodSync(cacheDir, 0o777);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 }).exports).toEqual({ who: 'honest bundle' });
    // Open to others only to read: not used either, as none would be written there (one rule, day-7b review G6).
    fs.chmodSync(cacheDir, 0o755);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 }).exports).toEqual({ who: 'honest bundle' });
    fs.chmodSync(cacheDir, 0o700);
    const elsewhere = path.join(dir, 'elsewhere.v8cache');
    fs.renameSync(planted, elsewhere);
    fs.symlinkSync(elsewhere, planted);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 }).exports).toEqual({ who: 'honest bundle' });
  });

  it('a link planted where the cache is written through leads nowhere: the file it names is left as it was (day-7b review G1)', () => {
    const file = bundle(HONEST);
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'root’s own');
    fs.mkdirSync(cacheDir, { mode: 0o700 });
    const temp = `${path.join(cacheDir, cacheKey(file, fs.statSync(file), '1.0.0'))}.${process.pid}.tmp`;
    fs.symlinkSync(victim, temp);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 }).exports).toEqual({ who: 'honest bundle' });
    vi.runAllTimers(); // the write is tried
    expect(fs.readFileSync(victim, 'utf8')).toBe('root’s own');
  });

  it('a file rewritten in place with the same size and modification time does not run its old cache', () => {
    const released = new Date('1985-10-26T08:15:00Z'); // npm gives every file of a package this mtime
    const file = bundle(EVIL__); // an earlier build at this path
    fs.utimesSync(file, released, released);
    requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 0 });
    vi.runAllTimers(); // the cache is written
    expect(fs.readdirSync(cacheDir)).toHaveLength(1);
    fs.writeFileSync(file, HONEST); // same length, same version: a rebuild or reinstall without a version bump
    fs.utimesSync(file, released, released);
    expect(requireWithCodeCache(file, { dir: cacheDir, version: '1.0.0', writeAfterMs: 60_000 }).exports).toEqual({ who: 'honest bundle' });
  });
});
