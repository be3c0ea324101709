import { z } from 'zod';
import type { HostForm } from '../../protocol/identity';
import { type BrowserInfo, CliForm, type ProfileInfo } from '../../protocol/messages';
import { browser } from './ext';

/**
 * The browser never tells a native host which profile started it, so the extension keeps its own
 * stable profile id (random, made on first run) and a human label, and sends both in the handshake.
 */
const PROFILE_KEY = 'profile';

export async function loadProfile(browserName: string): Promise<ProfileInfo> {
  const stored = (await browser.storage.local.get(PROFILE_KEY))[PROFILE_KEY] as ProfileInfo | undefined;
  if (stored?.id) return stored;
  const id = crypto.randomUUID().replace(/-/g, '').slice(0, 16);
  const profile = { id, label: `${browserName} profile ${id.slice(0, 4)}` };
  await browser.storage.local.set({ [PROFILE_KEY]: profile });
  return profile;
}

interface UserAgentData {
  brands?: { brand: string; version: string }[];
  getHighEntropyValues?(hints: string[]): Promise<{ fullVersionList?: { brand: string; version: string }[] }>;
}

const KNOWN_BRANDS = ['Comet', 'Perplexity', 'Microsoft Edge', 'Brave', 'Google Chrome', 'Opera', 'Vivaldi', 'Chromium'];

/** Name and full version of the browser, from UA client hints with the UA string as fallback. */
export async function detectBrowser(): Promise<BrowserInfo> {
  const userAgent = navigator.userAgent;
  const data = (navigator as Navigator & { userAgentData?: UserAgentData }).userAgentData;
  const list = (await data?.getHighEntropyValues?.(['fullVersionList']).catch(() => undefined))?.fullVersionList ?? data?.brands ?? [];
  const known = KNOWN_BRANDS.map((name) => list.find((b) => b.brand.includes(name))).find(Boolean);
  const fromUa = /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? '0';
  const chromium = list.find((b) => b.brand === 'Chromium')?.version ?? fromUa;
  const name = known?.brand === 'Perplexity' ? 'Comet' : (known?.brand ?? 'Chromium');
  return { name, version: chromium.includes('.') ? chromium : fromUa, userAgent };
}

/**
 * The host's command form (its welcome's `command` and `home`), kept in browser.storage.local so the
 * words the extension shows while no host is connected — after a browser restart too — still name
 * the command the way it runs on this machine. A damaged value reads as none; a form kept by a
 * version before `home` (a bare string) reads as a form without one.
 */
const HOST_FORM_KEY = 'hostCommand';
const StoredForm = z.union([CliForm.transform((command): HostForm => ({ command })), z.object({ command: CliForm, home: CliForm.optional() })]);

export async function loadHostForm(): Promise<HostForm | undefined> {
  return storedForm(await browser.storage.local.get(HOST_FORM_KEY).then((all) => all[HOST_FORM_KEY], () => undefined));
}

/** A stored form as it reads (undefined when damaged). */
export function storedForm(stored: unknown): HostForm | undefined {
  const parsed = StoredForm.safeParse(stored);
  return parsed.success ? parsed.data : undefined;
}

export async function saveHostForm(form: HostForm): Promise<void> {
  await browser.storage.local.set({ [HOST_FORM_KEY]: form });
}
