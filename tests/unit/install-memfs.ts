import nodeFs from 'node:fs';
import path from 'node:path';
import type { ExecFn, ExecResult, FsLike } from '../../lib/install/system';

/**
 * An in-memory file system for running the Windows code paths on Linux (paths like
 * `C:\Users\me\…`). Case-insensitive, like NTFS. Only what lib/install uses.
 */
export interface MemoryFs extends FsLike {
  files: Map<string, { data: string; mode: number }>;
  dirs: Set<string>;
}

export function memoryFs(p: typeof path.win32 = path.win32): MemoryFs {
  const files = new Map<string, { data: string; mode: number }>();
  const dirs = new Set<string>();
  const key = (f: string) => p.resolve(f).toLowerCase();
  const enoent = (f: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${f}'`), { code: 'ENOENT' });
  const mkdirs = (d: string) => {
    let dir = p.resolve(d);
    while (!dirs.has(dir.toLowerCase())) {
      dirs.add(dir.toLowerCase());
      const parent = p.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  };
  const fs: MemoryFs = {
    files,
    dirs,
    existsSync: (f) => files.has(key(f)) || dirs.has(key(f)),
    readFileSync: (f) => {
      const entry = files.get(key(f));
      if (!entry) throw enoent(f);
      return entry.data;
    },
    writeFileSync: (f, data, options) => {
      if (!dirs.has(key(p.dirname(f)))) throw enoent(f);
      if (options?.flag === 'wx' && files.has(key(f))) throw Object.assign(new Error('EEXIST'), { code: 'EEXIST' });
      files.set(key(f), { data, mode: files.get(key(f))?.mode ?? options?.mode ?? 0o644 });
    },
    mkdirSync: (d) => {
      mkdirs(d);
      return undefined;
    },
    chmodSync: (f, mode) => {
      const entry = files.get(key(f));
      if (!entry && dirs.has(key(f))) return;
      if (!entry) throw enoent(f);
      entry.mode = mode;
    },
    statSync: (f) => {
      const entry = files.get(key(f));
      if (entry) return { isFile: () => true, isDirectory: () => false, mode: 0o100000 | entry.mode };
      if (dirs.has(key(f))) return { isFile: () => false, isDirectory: () => true, mode: 0o40755 };
      throw enoent(f);
    },
    rmSync: (f, options) => {
      const k = key(f);
      if (files.delete(k)) return;
      if (dirs.has(k)) {
        for (const other of [...files.keys()]) if (other.startsWith(`${k}\\`)) files.delete(other);
        for (const other of [...dirs]) if (other === k || other.startsWith(`${k}\\`)) dirs.delete(other);
        return;
      }
      if (!options?.force) throw enoent(f);
    },
    readdirSync: (d) => {
      const k = key(d);
      if (!dirs.has(k)) throw enoent(d);
      const children = new Set<string>();
      for (const entry of [...files.keys(), ...dirs]) {
        if (entry !== k && p.dirname(entry) === k) children.add(p.basename(entry));
      }
      return [...children];
    },
    rmdirSync: (d) => {
      dirs.delete(key(d));
    },
  };
  return fs;
}

/**
 * A fake `reg.exe` over an in-memory registry of default values; records every call. As the real one:
 * `query` answers a pipe in the console's OEM code page (850: every non-ASCII character becomes 0x82,
 * which Node's UTF-8 decoding turns into U+FFFD), and `export KEY FILE /y` writes a .reg file in
 * UTF-16LE with a byte-order mark, the default value as `@="…"`.
 */
export function fakeReg(): { exec: ExecFn; calls: string[][]; values: Map<string, string> } {
  const values = new Map<string, string>();
  const calls: string[][] = [];
  const ok = (stdout = ''): ExecResult => ({ code: 0, stdout, stderr: '' });
  const missing: ExecResult = { code: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' };
  const exec: ExecFn = async (file, args) => {
    calls.push([file, ...args]);
    const [verb, keyName] = args;
    const k = (keyName ?? '').toLowerCase();
    if (verb === 'add') {
      values.set(k, args[args.indexOf('/d') + 1] as string);
      return ok('The operation completed successfully.');
    }
    if (verb === 'query') {
      const value = values.get(k);
      if (value === undefined) return missing;
      return ok(Buffer.from(`\r\n${keyName}\r\n    (Default)    REG_SZ    ${value}\r\n\r\n`.replace(/[^\x00-\x7f]/g, '\x82'), 'latin1').toString('utf8'));
    }
    if (verb === 'export') {
      const value = values.get(k);
      if (value === undefined) return missing;
      const [hive = '', ...rest] = (keyName ?? '').split('\\');
      const header = `[${[hive.toUpperCase() === 'HKCU' ? 'HKEY_CURRENT_USER' : hive, ...rest].join('\\')}]`;
      const text = `Windows Registry Editor Version 5.00\r\n\r\n${header}\r\n@="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"\r\n\r\n`;
      nodeFs.writeFileSync(args[2] as string, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      return ok('The operation completed successfully.\r\n');
    }
    if (verb === 'delete') return values.delete(k) ? ok('The operation completed successfully.') : missing;
    return { code: 1, stdout: '', stderr: `unexpected reg ${verb}` };
  };
  return { exec, calls, values };
}

/**
 * A Windows machine in memory for install/doctor tests: Node at C:\nodejs, a built CLI, the fake reg.exe, and the
 * person's profile folder `homedir` (LOCALAPPDATA under it).
 */
export function windowsMachine(homedir = 'C:\\Users\\ann') {
  const mem = memoryFs();
  mem.mkdirSync('C:\\nodejs', { recursive: true });
  mem.writeFileSync('C:\\nodejs\\node.exe', 'MZ');
  mem.mkdirSync('C:\\src\\dist', { recursive: true });
  mem.writeFileSync('C:\\src\\dist\\cli.js', '//');
  const reg = fakeReg();
  const options = {
    platform: 'win32' as const,
    homedir,
    env: { LOCALAPPDATA: `${homedir}\\AppData\\Local` },
    fs: mem,
    exec: reg.exec,
    nodePath: 'C:\\nodejs\\node.exe',
    cliPath: 'C:\\src\\dist\\cli.js',
  };
  return { mem, reg, options };
}

/** Code page 850's characters for the bytes 0x80-0xFF: the OEM code page of a Western European Windows console. */
const CP850_HIGH = 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0';

/**
 * The lines of a batch file as cmd.exe reads them: one at a time, each decoded in the console's code page
 * at the moment it is read, the OEM one (850) until a `chcp` line has run (65001: UTF-8). A line read
 * before that is not read again, so only the lines after `chcp 65001` keep their non-ASCII characters.
 */
export function cmdReadsBatch(bytes: Buffer): string[] {
  let utf8 = false;
  const lines: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf('\r\n', start);
    if (end < 0) end = bytes.length;
    const raw = bytes.subarray(start, end);
    const line = utf8 ? raw.toString('utf8') : [...raw].map((b) => (b < 0x80 ? String.fromCharCode(b) : ([...CP850_HIGH][b - 0x80] as string))).join('');
    lines.push(line);
    const chcp = /^\s*chcp\s+(\d+)/i.exec(line);
    if (chcp) utf8 = chcp[1] === '65001';
    start = end + 2;
  }
  return lines;
}
