import { captureDom } from './capture';
import { diagnosePage } from './diagnose';
import type { KitHandlers, PageKitHost } from '../kit-registry';

/**
 * The diagnostics kit (lib/protocol/page/page-kits.ts): `page.diagnose` (`comet-relay doctor --page`) and
 * `page.capture` (`comet-relay capture`), what a person runs when the page is not understood;
 * loaded into a tab only when asked.
 */
export function diagnosticsKit({ win, driver }: PageKitHost): KitHandlers {
  return {
    'page.diagnose': async () => driver().run('trying the probes', () => diagnosePage(win.document, driver().activeSet(), driver().selectorSet())),
    'page.capture': async () =>
      driver().run('capturing the page', () => {
        const { name, source } = driver().selectorSet();
        const capture = captureDom(win.document, driver().activeSet(), { setName: name, setSource: source, capturedAt: new Date().toISOString() });
        return { ...capture, set: { name, source } };
      }),
  };
}
