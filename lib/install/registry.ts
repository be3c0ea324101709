import { exportedValue } from './policy/reg-export';
import type { ExecFn } from './system';

/**
 * Windows: Chromium-family browsers find a native host through the default value of
 * `HKCU\Software\<vendor>\<browser>\NativeMessagingHosts\<host>`, which holds the manifest's path.
 * We drive `reg.exe` (present on every Windows) rather than a native module.
 */

export const REG = 'reg';

export const regAddArgs = (key: string, manifestPath: string) => ['add', key, '/ve', '/t', 'REG_SZ', '/d', manifestPath, '/f'];
export const regDeleteArgs = (key: string) => ['delete', key, '/f'];

/** Sets the key's default value to the manifest path; throws with reg's own message on failure. */
export async function registerManifest(exec: ExecFn, key: string, manifestPath: string): Promise<void> {
  const result = await exec(REG, regAddArgs(key, manifestPath));
  if (result.code !== 0) {
    throw new Error(`reg add ${key} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim() || 'no message'}`);
  }
}

/**
 * The key's default value, or undefined when the key or value does not exist (or is not text). Read
 * through `reg export`, as the policy value is (policy/reg-export.ts): `reg query` writes to its
 * pipe in the console's OEM code page, so a profile such as `C:\Users\José` would read back as
 * `Jos�`, and install would fail its own check, doctor would call the key broken, and uninstall
 * would not know the key as its own (review 2026-12-05 #3).
 */
export async function queryRegistry(exec: ExecFn, key: string): Promise<string | undefined> {
  try {
    return (await exportedValue(exec, key, '')) || undefined;
  } catch {
    return undefined; // not a text value: no manifest path of ours
  }
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
