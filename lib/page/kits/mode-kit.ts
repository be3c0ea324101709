import { RelayError } from '../../protocol/error/relay-error';
import type { Mode } from '../../selectors';
import type { PageDriver } from '../driver';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { getMode, type ModeRead, type ModeSwitch, setMode } from '../composer/mode';

/**
 * comet_mode's page side, loaded on demand (lib/protocol/page/page-kits.ts): reading the mode may open
 * the mode menu or type "/" into the composer, switching clicks through it, and a page that only
 * polls, waits and asks needs neither. Kept out of the page script, it is 1.7 kB gzip less in every
 * Perplexity page (measured 2026-12-01). The side panel names the mode from its own watch (panel
 * kit) and sends `page.mode` only to switch, or once per load when that watch could not name it.
 */
export interface ModeControl {
  getMode(passive?: boolean): Promise<ModeRead>;
  setMode(mode: Mode): Promise<ModeSwitch>;
}

/** The seven modes, here rather than from the selector schema, which would bring zod into the kit. */
const MODES: readonly Mode[] = ['standard', 'deep-research', 'model-council', 'create', 'learn', 'review', 'computer'];

/** Reading and switching the mode through the page's driver (its selector set, its error shaping). */
export function modeControl(driver: PageDriver): ModeControl {
  return {
    getMode: (passive) => driver.run('reading the mode', () => getMode(driver.context(), passive)),
    setMode: (mode) =>
      driver.run('switching the mode', () => {
        if (!MODES.includes(mode)) throw new RelayError('INVALID_PARAMS', `unknown mode "${mode}"; one of ${MODES.join(', ')}`);
        return setMode(driver.context(), mode);
      }),
  };
}

/** The mode kit: `page.mode`, a read without `mode`, a switch with it. */
export function modeKit({ driver }: PageKitHost): KitHandlers {
  return {
    'page.mode': async ({ mode, passive }: { mode?: Mode | null; passive?: boolean }) => {
      const control = modeControl(driver());
      return mode ? control.setMode(mode) : control.getMode(passive);
    },
  };
}
