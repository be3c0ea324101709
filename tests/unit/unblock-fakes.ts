import fs from 'node:fs';
import type { ExecFn, ExecResult } from '../../lib/install/system';

const HIVES: Record<string, string> = { hklm: 'HKEY_LOCAL_MACHINE', hkcu: 'HKEY_CURRENT_USER' };

/**
 * A fake reg.exe holding named REG_SZ values per key, as the real one answers a pipe:
 * - `query` writes in the console's OEM code page (here 850, é = 0x82), which Node's UTF-8
 *   decoding of a child's output turns into U+FFFD, as it would on Windows;
 * - `export KEY FILE /y` writes a .reg file in UTF-16LE with a byte-order mark (the format of
 *   "Windows Registry Editor Version 5.00"), backslash and quote escaped, and fails for a missing key.
 * `denyHklm` answers writes under HKLM as a non-administrator.
 */
export function fakeRegistry(options: { denyHklm?: boolean } = {}) {
  const values = new Map<string, string>();
  const subkeys = new Set<string>();
  const calls: string[][] = [];
  const ok = (stdout = ''): ExecResult => ({ code: 0, stdout, stderr: '' });
  const missing: ExecResult = { code: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' };
  const throughOemPipe = (text: string) => Buffer.from(text.replace(/[^\x00-\x7f]/g, '\x82'), 'latin1').toString('utf8');
  const exec: ExecFn = async (file, args) => {
    calls.push([file, ...args]);
    const [verb, key = ''] = args;
    const name = args[args.indexOf('/v') + 1] ?? '';
    const id = `${key.toLowerCase()}|${name.toLowerCase()}`;
    if (verb === 'query') {
      if (!args.includes('/v')) return subkeys.has(key.toLowerCase()) ? ok(`\r\n${key}\r\n`) : missing;
      const value = values.get(id);
      return value === undefined ? missing : ok(throughOemPipe(`\r\n${key}\r\n    ${name}    REG_SZ    ${value}\r\n\r\n`));
    }
    if (verb === 'export') {
      const target = args[2] as string;
      const own = [...values].filter(([k]) => k.startsWith(`${key.toLowerCase()}|`));
      if (own.length === 0) return missing;
      const [hive = '', ...rest] = key.split('\\');
      const header = `[${[HIVES[hive.toLowerCase()] ?? hive, ...rest].join('\\')}]`;
      const lines = own.map(([k, v]) => `"${k.split('|')[1] === 'extensionsettings' ? 'ExtensionSettings' : k.split('|')[1]}"="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
      const text = `Windows Registry Editor Version 5.00\r\n\r\n${header}\r\n${lines.join('\r\n')}\r\n\r\n`;
      fs.writeFileSync(target, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
      return ok('The operation completed successfully.\r\n');
    }
    if ((verb === 'add' || verb === 'delete') && options.denyHklm && key.startsWith('HKLM')) return { code: 1, stdout: '', stderr: 'ERROR: Access is denied.' };
    if (verb === 'add') {
      values.set(id, args[args.indexOf('/d') + 1] as string);
      return ok('The operation completed successfully.');
    }
    if (verb === 'delete') return values.delete(id) ? ok('The operation completed successfully.') : missing;
    return { code: 1, stdout: '', stderr: `unexpected reg ${verb}` };
  };
  return { exec, calls, values, subkeys };
}
