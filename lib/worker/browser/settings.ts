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
