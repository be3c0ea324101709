import type { ProfileInfo } from '../../protocol/messages';
import { type ControlSettings, ControlSettings as ControlSettingsSchema, DEFAULT_SETTINGS } from '../../protocol/panel';
import { browser } from './ext';

/**
 * The person's control settings in browser.storage.local (key `settings`). Any change to that key,
 * from the panel or elsewhere, applies at once; what is stored is validated field by field so a
 * damaged value falls back to the default instead of disabling the guard.
 */
export const SETTINGS_KEY = 'settings';

export function normalizeSettings(raw: unknown): ControlSettings {
  const value = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const result = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof ControlSettings)[]) {
    const field = ControlSettingsSchema.shape[key].safeParse(value[key]);
    if (field.success) (result as Record<string, unknown>)[key] = field.data;
  }
  return result;
}

export class SettingsStore {
  private value: ControlSettings = { ...DEFAULT_SETTINGS };
  readonly ready: Promise<void>;

  constructor(private readonly onChange: (settings: ControlSettings) => void) {
    this.ready = browser.storage.local
      .get(SETTINGS_KEY)
      .then((stored) => {
        this.value = normalizeSettings(stored[SETTINGS_KEY]);
      })
      .catch(() => {});
    browser.storage.onChanged.addListener((changes, area) => {
      if (area !== 'local' || !(SETTINGS_KEY in changes)) return;
      this.value = normalizeSettings(changes[SETTINGS_KEY]?.newValue);
      this.onChange(this.value);
    });
  }

  get current(): ControlSettings {
    return this.value;
  }

  /** Settings as stored once `ready`; callers that decide on them await this. */
  async load(): Promise<ControlSettings> {
    await this.ready;
    return this.value;
  }

  async update(patch: Partial<ControlSettings>): Promise<ControlSettings> {
    await this.ready;
    this.value = normalizeSettings({ ...this.value, ...patch });
    await browser.storage.local.set({ [SETTINGS_KEY]: this.value });
    this.onChange(this.value);
    return this.value;
  }
}

/** Renames this profile (browser.storage.local key `profile`, the one identity.ts reads). */
export async function saveProfileLabel(profile: ProfileInfo, label: string): Promise<ProfileInfo> {
  const renamed = { ...profile, label: label.trim().slice(0, 200) };
  await browser.storage.local.set({ profile: renamed });
  return renamed;
}

/**
 * The guard's settings (and the profile's name) are for the extension's own pages and worker only: content scripts
 * run in web pages' renderers, and a compromised renderer must not turn Read-only or approvals off behind the panel's
 * port check (review 2026-12-05, panel #7). Chromium gives storage.local to content scripts unless told otherwise;
 * none of ours reads it. A browser whose storage.local has no setAccessLevel keeps its default (false).
 */
export async function keepStorageTrusted(): Promise<boolean> {
  const local = (globalThis as { chrome?: { storage?: { local?: { setAccessLevel?(options: { accessLevel: string }): Promise<void> } } } }).chrome?.storage?.local;
  if (!local?.setAccessLevel) return false;
  try {
    await local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' });
    return true;
  } catch {
    return false;
  }
}
