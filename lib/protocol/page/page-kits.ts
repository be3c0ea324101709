/**
 * The content script's on-demand parts ("kits"). What runs in every Perplexity page is kept small
 * (reading, waiting, stopping); code only some tabs or some calls need
 * lives in scripts of its own (WXT unlisted scripts, `entrypoints/page-*.ts`), which the service worker injects into the
 * isolated world of one page, with `scripting.executeScript`, the first time a call there needs
 * one. The script finds the page script already running in that world (they share its globals)
 * and adds its methods to it.
 *
 * The worker decides from this table alone which kit a method needs; the page reports the kits it
 * holds in `page.ready`, so a restarted worker does not inject twice, and a reloaded page (a new
 * document, a new port) gets them again when asked. Types and constants only: the content script
 * carries no zod.
 */
export const PAGE_KITS = {
  /**
   * comet_ask and the panel's asks: typing, submitting, confirming the page took the prompt
   * (lib/page/kits/ask-kit.ts). The queue and the last ask stay in the page script's driver, so the
   * first ask in a tab loads this and every later one finds it there.
   */
  ask: { file: '/page-ask.js', what: 'ask code', methods: ['page.ask'] },
  /** Computer threads: start, follow up, answer, wait, read (lib/page/threads/thread-handlers.ts), and the panel's answers. */
  threads: {
    file: '/page-threads.js',
    what: 'Computer-thread code',
    methods: [
      'threads.start',
      'threads.send',
      'threads.respond',
      'threads.wait',
      'threads.state',
      'threads.read',
      'threads.assets',
      'threads.assetDownload',
      'threads.locate',
      'threads.submitted',
      'page.respond',
    ],
  },
  /**
   * comet_get_sources: citations, grouped badges opened one by one, the Sources tab (lib/page/kits/source-reader.ts);
   * comet_get_page_content, the page's whole visible text (moved here from the page script on 2026-12-05 for its
   * budget); and a Deep Research turn's report card, which comet_wait names (2026-12-06).
   */
  sources: { file: '/page-sources.js', what: 'page-reading code (sources and text)', methods: ['page.sources', 'page.content', 'page.report'] },
  /**
   * comet_mode and the panel's mode switch: reading the mode (it may open the mode menu or type "/")
   * and switching it (lib/page/kits/mode-kit.ts). A page that polls, waits and asks never needs it.
   */
  mode: { file: '/page-mode.js', what: 'mode code', methods: ['page.mode'] },
  /** The side panel's live view of the driven tab, the sidebar's conversations and the library's list (lib/page/kits/panel-kit.ts). */
  panel: { file: '/page-panel.js', what: 'side-panel code', methods: ['page.watch', 'page.conversations', 'library.post'] },
  /** `comet-relay doctor --page` (every probe tried) and `comet-relay capture` (the page as a sanitized fixture). */
  /**
   * Finding the answer again from the thread JSON when the reader misses on a conversation page
   * (lib/page/kits/repair-kit.ts, issue 24): loaded only into a tab whose reader missed, and by the
   * side panel and `doctor --page` to show the repair in use.
   */
  repair: { file: '/page-repair.js', what: 'repair code', methods: ['page.repair', 'page.repairState', 'page.repairUndo'] },
  diagnostics: { file: '/page-diagnostics.js', what: 'page-diagnostics code', methods: ['page.diagnose', 'page.capture'] },
} as const satisfies Record<string, { file: string; what: string; methods: readonly string[] }>;

export type PageKitName = keyof typeof PAGE_KITS;
export type PageKit = (typeof PAGE_KITS)[PageKitName] & { name: PageKitName };

/** The kit a page method needs, or undefined when the always-loaded script answers it. */
export function kitOf(method: string): PageKit | undefined {
  for (const [name, kit] of Object.entries(PAGE_KITS)) {
    if ((kit.methods as readonly string[]).includes(method)) return { ...kit, name: name as PageKitName };
  }
  return undefined;
}

/**
 * The property of the isolated world's global object where the page script offers its kit hook.
 * Page scripts (the site's own) live in another world and cannot see or set it.
 */
export const PAGE_KIT_HOOK = '__cometRelayPageKits';

/**
 * Goes up when what a kit is handed changes shape: a kit from one build never registers with the
 * page script of another (an extension updated while a tab stayed open). 2: the ask queue moved from
 * the driver into the ask kit (driver.ask's `queued`). 3: the page's text read moved into the sources kit
 * (driver.content gone, driver.readKept new; 2026-12-05).
 */
export const PAGE_KIT_API = 3;

/** What injecting a kit's script reports (the script's completion value, returned by executeScript). */
export interface KitLoad {
  kit: string;
  /**
   * `registered` (now), `already` (was), `no-page-script` (the world has no page script: the page is
   * not ours or went away), `version-mismatch` (the page script is of another build).
   */
  status: 'registered' | 'already' | 'no-page-script' | 'version-mismatch';
}
