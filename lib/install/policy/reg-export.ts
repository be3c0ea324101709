import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecFn } from '../system';

/**
 * Reads one registry value as text without going through a console code page. `reg query` writes
 * to a pipe in the console's OEM code page (850, 437, 932…), so a Node reader decoding UTF-8 turns
 * every non-ASCII character (a company's localised `blocked_install_message`) into U+FFFD, and a
 * rewrite would keep the damage. `reg export KEY FILE /y` writes a .reg file in UTF-16LE with a
 * byte-order mark ("Windows Registry Editor Version 5.00"), whatever the code page: read back from
 * there, the text is exact. Not run on Windows here: tests use a fake reg.exe that writes the same
 * format (docs/reliability.md).
 */

/** Where `reg export` may write its file: a fresh private folder per read, removed after. */
export interface ExportFiles {
  makeTempDir(): string;
  read(file: string): Buffer;
  remove(dir: string): void;
}

const realExportFiles: ExportFiles = {
  makeTempDir: () => fs.mkdtempSync(path.join(os.tmpdir(), 'comet-relay-reg-')),
  read: (file) => fs.readFileSync(file),
  remove: (dir) => fs.rmSync(dir, { recursive: true, force: true }),
};

const regExportArgs = (key: string, file: string) => ['export', key, file, '/y'];

const HIVES: Record<string, string> = { HKLM: 'HKEY_LOCAL_MACHINE', HKCU: 'HKEY_CURRENT_USER' };

/** The value's text (name '' for the key's default value); undefined when the key or the value is not there; throws when it is not a text value. */
export async function exportedValue(exec: ExecFn, key: string, name: string, files: ExportFiles = realExportFiles): Promise<string | undefined> {
  const dir = files.makeTempDir();
  try {
    const file = path.join(dir, 'value.reg');
    const result = await exec('reg', regExportArgs(key, file));
    if (result.code !== 0) return undefined; // no such key
    return valueIn(decodeRegFile(files.read(file)), key, name);
  } finally {
    files.remove(dir);
  }
}

/** A .reg file's text: UTF-16LE after its byte-order mark (what reg export writes), else UTF-8. */
function decodeRegFile(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  const text = bytes.toString('utf8');
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** The text of value `name` in the section of `key` (its own section: subkeys are sections of their own). */
function valueIn(text: string, key: string, name: string): string | undefined {
  const [hive = '', ...rest] = key.split('\\');
  const header = `[${[HIVES[hive.toUpperCase()] ?? hive, ...rest].join('\\')}]`.toLowerCase();
  // Lines ending in a backslash continue (hex values are wrapped at 80 columns).
  const lines = text.replace(/\\\r?\n\s*/g, '').split(/\r?\n/);
  let inSection = false;
  // The key's default value (name '') is written `@=`.
  const prefix = name === '' ? '@=' : `"${name.toLowerCase()}"=`;
  for (const line of lines) {
    if (line.startsWith('[')) {
      inSection = line.trim().toLowerCase() === header;
      continue;
    }
    if (!inSection || !line.toLowerCase().startsWith(prefix)) continue;
    const data = line.slice(prefix.length);
    if (data.startsWith('"')) return unescapeRegString(data);
    const expand = /^hex\(2\):([0-9a-fA-F,]*)$/.exec(data.trim());
    if (expand) {
      const bytes = Buffer.from((expand[1] as string).split(',').filter(Boolean).map((h) => Number.parseInt(h, 16)));
      return bytes.toString('utf16le').replace(/\0+$/, '');
    }
    throw new Error(`${key} holds ${name}, but not as a text (REG_SZ) value; comet-relay will not rewrite it. Fix it by hand (regedit), then run unblock again.`);
  }
  return undefined;
}

/** `"…"` as reg export writes a REG_SZ: backslash and quote escaped with a backslash. */
function unescapeRegString(data: string): string {
  let out = '';
  for (let i = 1; i < data.length; i++) {
    const c = data[i] as string;
    if (c === '\\') {
      out += data[i + 1] ?? '';
      i++;
    } else if (c === '"') return out;
    else out += c;
  }
  throw new Error('a registry text value that never ends');
}
