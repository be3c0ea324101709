import { captureDom } from './capture';
import { checkProbes, diagnosePage } from './diagnose';
import type { KitHandlers, PageKitHost } from '../kit-registry';

/**
 * The diagnostics kit (lib/protocol/page/page-kits.ts): `page.diagnose` (`comet-relay doctor --page`) and
 * `page.capture` (`comet-relay capture`), what a person runs when the page is not understood;
 * loaded into a tab only when asked.
 */
export function diagnosticsKit({ win, driver, tap }: PageKitHost): KitHandlers {
  return {
    'page.diagnose': async () =>
      driver().run('trying the probes', () => {
        const reading = driver().streams();
        const read = reading?.all()[0]?.reader.name;
        const unknown = reading?.unknownShape;
        const stream = tap ? { stream: { tap: tap.heard, streams: tap.records.length, ...(read ? { reader: read } : {}), ...(unknown ? { unknown } : {}) } } : {};
        const diagnosis = { ...diagnosePage(win.document, driver().activeSet(), driver().selectorSet()), ...stream };
        // A repair in use reads the page with probes of its own: they are tried too (lib/page/kits/repair-kit.ts).
        const repair = driver().repairInUse();
        if (!repair) return diagnosis;
        const replaced = new Set(['turn', 'userBubble', 'queryText', 'answer', 'prose', 'citationInline']);
        const probes = checkProbes(win.document, repair.set).filter((p) => replaced.has(p.probe));
        return { ...diagnosis, repair: { notice: repair.notice, name: repair.set.name, probes } };
      }),
    'page.capture': async () =>
      driver().run('capturing the page', () => {
        const { name, source } = driver().selectorSet();
        const capture = captureDom(win.document, driver().activeSet(), { setName: name, setSource: source, capturedAt: new Date().toISOString() });
        return { ...capture, set: { name, source } };
      }),
  };
}
