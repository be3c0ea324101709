import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCapture } from '../../lib/cli/capture-command';
import type { RelayClient } from '../../lib/relay/client';

/**
 * `comet-relay capture --out FILE` checks where the file goes before it asks the tab (review 14c, F3): a folder that
 * is not there was found after the capture (up to 30 s), which was thrown away with Node's bare ENOENT; a --out
 * naming a folder was said to "already exist".
 */
function fakeClient() {
  const calls: string[] = [];
  const client = {
    async call(method: string) {
      calls.push(method);
      return { html: '<html></html>', url: 'https://www.perplexity.ai/', bytes: 13, truncated: false, set: { name: 'gen-b', source: 'built-in' } };
    },
  } as unknown as RelayClient;
  return { client, calls };
}

describe('capture --out', () => {
  it('is refused before the browser is asked, saying the folder is missing and what to do', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
    const out = path.join(dir, 'no-such-folder', 'page.html');
    const { client, calls } = fakeClient();
    const error = await runCapture(client, out, { out() {} }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeDefined();
    expect(calls).toEqual([]); // nothing captured for nothing
    expect(error?.message).toBe(`The folder ${path.dirname(out)} does not exist; create it, or pass --out FILE in a folder that does.`);
  });

  it('--out naming an existing folder is said as a folder, not as a file that "already exists"', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
    const { client } = fakeClient();
    const error = await runCapture(client, dir, { out() {} }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(`${dir} is a folder; pass a file name inside it with --out FILE.`);
  });

  it('under a file (notes.txt/page.html) is refused in words before the tab is asked, not as Node\'s ENOTDIR (review 14d, 2)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, 'x');
    const { client, calls } = fakeClient();
    const error = await runCapture(client, path.join(notes, 'deeper', 'page.html'), { out() {} }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(calls).toEqual([]);
    expect((error as { code?: string }).code).toBe('CONFIG_ERROR');
    expect(error?.message).toBe(`${notes} is a file, not a folder; pass --out FILE in a folder.`);
  });

  it('a folder that cannot be searched, or a name too long, is said as such before the tab is asked, not as missing (review 14e, 3)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
    const locked = path.join(dir, 'locked');
    fs.mkdirSync(path.join(locked, 'sub'), { recursive: true });
    const real = fs.statSync;
    // What stat says to a user who may not search `locked` (the tests run as root, who may).
    const spy = vi.spyOn(fs, 'statSync').mockImplementation(((p: fs.PathLike, o?: fs.StatSyncOptions) => {
      if (String(p).startsWith(`${locked}${path.sep}`)) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return real(p, o as never);
    }) as typeof fs.statSync);
    const { client, calls } = fakeClient();
    const denied = await runCapture(client, path.join(locked, 'sub', 'page.html'), { out() {} }).catch((e: Error) => e);
    spy.mockRestore();
    expect((denied as Error).message).toBe(`${path.join(locked, 'sub', 'page.html')} cannot be used (EACCES); pass --out FILE in a folder you can write.`);
    const long = path.join(dir, `${'x'.repeat(300)}.html`);
    const tooLong = await runCapture(client, long, { out() {} }).catch((e: Error) => e);
    expect((tooLong as Error).message).toBe(`${long} cannot be used (ENAMETOOLONG); pass --out FILE in a folder you can write.`);
    expect(calls).toEqual([]);
  });

  it('a new file in a folder that is there gets the capture, never over another file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-'));
    const out = path.join(dir, 'page.html');
    const { client, calls } = fakeClient();
    const said: string[] = [];
    await runCapture(client, out, { out: (t) => said.push(t) });
    expect(calls).toEqual(['page.capture']);
    expect(fs.readFileSync(out, 'utf8')).toBe('<html></html>');
    expect(said.join('')).toMatch(/^Saved the Perplexity tab \(https:\/\/www\.perplexity\.ai\/\) to /);
    await expect(runCapture(client, out, { out() {} })).rejects.toThrow(`${out} already exists; pass another name with --out FILE.`);
  });
});
