import type { ExecFn } from './system';

/**
 * Windows: Chromium-family browsers find a native host through the default value of
 * `HKCU\Software\<vendor>\<browser>\NativeMessagingHosts\<host>`, which holds the manifest's path.
 * We drive `reg.exe` (present on every Windows) rather than a native module.
 */

export const REG = 'reg';

export const regAddArgs = (key: string, manifestPath: string) => ['add', key, '/ve', '/t', 'REG_SZ', '/d', manifestPath, '/f'];
export const regQueryArgs = (key: string) => ['query', key, '/ve'];
export const regDeleteArgs = (key: string) => ['delete', key, '/f'];

/** Sets the key's default value to the manifest path; throws with reg's own message on failure. */
export async function registerManifest(exec: ExecFn, key: string, manifestPath: string): Promise<void> {
  const result = await exec(REG, regAddArgs(key, manifestPath));
  if (result.code !== 0) {
    throw new Error(`reg add ${key} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim() || 'no message'}`);
  }
}

/**
 * The key's default value, or undefined when the key or value does not exist. `reg query` prints
 * `    (Default)    REG_SZ    C:\…\x.json`; the "(Default)" label is localized, so we read the
 * text after the type.
 */
export async function queryRegistry(exec: ExecFn, key: string): Promise<string | undefined> {
  const result = await exec(REG, regQueryArgs(key));
  if (result.code !== 0) return undefined;
  const match = /\sREG_(?:EXPAND_)?SZ[ \t]+(.*?)\s*$/m.exec(result.stdout);
  return match?.[1] || undefined;
}

/** Deletes the key; true when it existed and is now gone, false when it was not there. */
export async function deleteRegistryKey(exec: ExecFn, key: string): Promise<boolean> {
  if ((await queryRegistry(exec, key)) === undefined) {
    const probe = await exec(REG, ['query', key]);
    if (probe.code !== 0) return false;
  }
  const result = await exec(REG, regDeleteArgs(key));
  if (result.code !== 0) {
    throw new Error(`reg delete ${key} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim() || 'no message'}`);
  }
  return true;
}
