import { ar } from './ar';
import { en } from './en';
import { fr } from './fr';
import type { SimLabels } from './types';

export type { SimLabels } from './types';

/** The languages the simulated site speaks: one labels table each. */
export const SIM_LANGUAGES = { en, fr, ar } as const satisfies Record<string, SimLabels>;
export type SimLanguage = keyof typeof SIM_LANGUAGES;

export function isSimLanguage(value: string): value is SimLanguage {
  return Object.hasOwn(SIM_LANGUAGES, value);
}
