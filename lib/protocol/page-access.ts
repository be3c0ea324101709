import { z } from 'zod';
import type { ErrorCode } from './errors';
import { cliHint, cliHintCommand, type HostForm } from './identity';

/**
 * Why a Perplexity tab has no comet-relay page script, from what the browser itself says — and the
 * words for it, the ONE place the tools, the side panel, the toolbar icon and `doctor` take them from.
 *
 * The worker asks the browser three things about the tab (lib/worker/calls/page-access.ts): may this
 * extension hold the Perplexity origin the tab is on (`permissions.contains`, per origin), what happens when it runs a trivial
 * script in the tab (`scripting.executeScript`: the error, or the document's readyState and whether
 * our page script's hook is in its world), and the tab's own status. `classifyPageAccess` turns the
 * answers into one state; nothing here is inferred from a silence.
 */

/**
 * What Chromium answers `scripting.executeScript` with, measured 2026-12-02 in Chromium 156.0.8078.114
 * (Debian) with the extension loaded by `--load-extension`:
 * - a managed policy `ExtensionSettings: {"*": {"runtime_blocked_hosts": ["*://*.perplexity.ai"]}}` →
 *   "This page cannot be scripted due to an ExtensionsSettings policy." (Chromium spells the policy
 *   "ExtensionsSettings" here; the policy itself is named ExtensionSettings). It took effect in a
 *   running browser about 8 s after the file was written, and was gone about 1 s after it was removed.
 * - with its site access set to "On click" (chrome://extensions, developerPrivate hostAccess ON_CLICK),
 *   `permissions.contains` for the Perplexity origins turned false and `permissions.getAll` listed no
 *   origin. That answer, not an error's wording, is the evidence for "site access off": Chromium words a
 *   refused host the same for a tab still showing about:blank (`Cannot access contents of url
 *   "about:blank". Extension manifest must request permission to access this host.`).
 */
export const BROWSER_SAYS = {
  policy: /cannot be scripted due to an ExtensionS?Settings policy/i,
} as const;

export type PageAccessState =
  /** An ExtensionSettings policy (Comet's own, or an administrator's) forbids extensions on perplexity.ai. */
  | 'blocked-by-policy'
  /** The extension's site access for perplexity.ai is off ("On click", or "On specific sites" without it). */
  | 'site-access-off'
  /** The document is still loading; the page script arrives when it is done. */
  | 'loading'
  /** The page loaded and may be scripted, but our page script is not in it (not injected, or it failed at start). */
  | 'script-missing'
  /** Our page script is in the page but holds no connection to the worker (it crashed, or its port closed). */
  | 'script-silent'
  /** The browser refused in words this table does not know; they are quoted. */
  | 'unknown';

export interface PageAccessObservation {
  /** The tab's document is on perplexity.ai (`tabs.Tab.url`); a tab still on about:blank is loading. */
  onPerplexity: boolean;
  /** `permissions.contains` for the origin the tab is on (`origin`); undefined when it could not be asked. */
  siteAccess?: boolean;
  /** The match pattern of the tab's origin (one of PERPLEXITY_MATCHES) whose grant `siteAccess` is. */
  origin?: string;
  /** The trivial script's outcome. */
  probe: { ok: true; readyState: string; pageScript: boolean } | { ok: false; error: string };
  /** `tabs.Tab.status`. */
  tabStatus?: string;
}

export interface PageAccessVerdict {
  state: PageAccessState;
  /** What the browser said, verbatim, when it refused. */
  browserSaid?: string;
  /** For `site-access-off`: the origin whose site access is withheld (`https://www.perplexity.ai/*`). */
  withheld?: string;
  /** Nothing will change by waiting: a call fails at once instead of waiting out its timeout. */
  settled: boolean;
}

export function classifyPageAccess(seen: PageAccessObservation): PageAccessVerdict {
  const error = seen.probe.ok ? undefined : seen.probe.error;
  const said = error ? { browserSaid: error } : {};
  // Judged only for a document on perplexity.ai, and for the origin it is on: a tab still on its old
  // document or on about:blank is on its way, and www granted alone lets the script into a tab on www
  // (review of 2026-12-04, #5). The script's answer, too, speaks only of the document it ran in.
  if (!seen.onPerplexity) return { state: 'loading', settled: false };
  if (seen.siteAccess === false) return { state: 'site-access-off', settled: true, ...said, ...(seen.origin ? { withheld: seen.origin } : {}) };
  if (error && BROWSER_SAYS.policy.test(error)) return { state: 'blocked-by-policy', settled: true, ...said };
  if (!seen.probe.ok) return { state: 'unknown', settled: false, ...said };
  if (seen.probe.pageScript) return { state: 'script-silent', settled: false };
  if (seen.probe.readyState !== 'complete' || seen.tabStatus === 'loading') return { state: 'loading', settled: false };
  // Content scripts run at document_idle, which can trail readyState "complete" by a moment: the
  // caller settles this one only once it has seen it twice, a grace apart (PAGE_SCRIPT_GRACE_MS).
  return { state: 'script-missing', settled: false };
}

/** How long a loaded page may lack our page script before that is taken as final. */
export const PAGE_SCRIPT_GRACE_MS = 2000;

/** The flag `comet-relay unblock --browser` takes for a browser, by the name the extension detects. */
const UNBLOCK_BROWSER: Record<string, string> = {
  Comet: 'comet',
  'Google Chrome': 'chrome',
  Chromium: 'chromium',
  Brave: 'brave',
  'Microsoft Edge': 'edge',
};

/** `unblock` with the browser's flag, as a subcommand for cliHint / cliHintCommand. */
function unblockSub(browserName: string): string {
  const flag = UNBLOCK_BROWSER[browserName];
  return flag ? `unblock --browser ${flag}` : 'unblock';
}

/** The unblock command to copy, in the host's form (`form`, lib/protocol/identity.ts). */
export function unblockCommand(browserName: string, form?: HostForm): string {
  return cliHintCommand(unblockSub(browserName), form);
}

export function extensionsPage(browserName: string): string {
  if (browserName === 'Comet') return 'comet://extensions';
  if (browserName === 'Brave') return 'brave://extensions';
  if (browserName === 'Microsoft Edge') return 'edge://extensions';
  return 'chrome://extensions';
}

/** The words for one state: what is wrong, what to do, and the command to copy when one fixes it. */
export const PageAccessWords = z.object({
  state: z.enum(['blocked-by-policy', 'site-access-off', 'loading', 'script-missing', 'script-silent', 'unknown']),
  code: z.enum(['BROWSER_POLICY', 'SITE_ACCESS_OFF', 'NO_PERPLEXITY_TAB']),
  /** A few words for a heading or the toolbar badge's tooltip. */
  title: z.string(),
  /** The whole sentence a tool error, the panel and doctor print: what is wrong, then what to do. */
  message: z.string(),
  /** What to do alone (doctor's `fix:` line). */
  fix: z.string(),
  /** A command that fixes it, to copy. */
  command: z.string().optional(),
  /** Nothing changes by waiting. */
  settled: z.boolean(),
  tabId: z.string().optional(),
});
export type PageAccessWords = z.infer<typeof PageAccessWords>;

export interface PageAccessContext {
  /** The browser's name as the extension detects it (`Comet`, `Chromium`, `Google Chrome`, …). */
  browserName: string;
  tabId?: number | string;
  /** How long the caller waited, for the states that a wait did not cure. */
  waitedMs?: number;
  /** The words that run comet-relay where its host was installed (the host's welcome); undefined until a host said them. */
  form?: HostForm | undefined;
}

export function pageAccessWords(verdict: PageAccessVerdict, context: PageAccessContext): PageAccessWords {
  const { browserName, form } = context;
  const tab = context.tabId !== undefined ? `tab ${context.tabId}` : 'the Perplexity tab';
  const said = verdict.browserSaid ? ` (the browser said: “${verdict.browserSaid}”)` : '';
  const waited = context.waitedMs !== undefined ? ` after ${context.waitedMs} ms` : '';
  const base = { state: verdict.state, settled: verdict.settled, ...(context.tabId !== undefined ? { tabId: String(context.tabId) } : {}) };
  switch (verdict.state) {
    case 'blocked-by-policy': {
      const command = unblockCommand(browserName, form);
      const who =
        browserName === 'Comet'
          ? 'Comet blocks extensions on perplexity.ai (its ExtensionSettings policy)'
          : `An ExtensionSettings policy of this browser (${browserName}) blocks extensions on perplexity.ai`;
      const restart = browserName === 'Comet' ? 'Comet' : 'the browser';
      const fix = `run ${cliHint(unblockSub(browserName), form)}, which lets comet-relay's extension alone in, and restart ${restart}${browserName === 'Comet' ? '' : '; if your organisation manages this browser, ask its administrator'}`;
      return {
        ...base,
        code: 'BROWSER_POLICY',
        title: 'Blocked on perplexity.ai by a browser policy',
        message: `${who}, so comet-relay cannot run in ${tab}${said}. To fix it, ${fix}.`,
        fix,
        command,
      };
    }
    case 'site-access-off': {
      // The origin the tab is on, whose grant is missing (another origin granted already is not asked for again).
      const site = verdict.withheld ? verdict.withheld.replace(/\/\*$/, '') : 'https://www.perplexity.ai';
      const host = verdict.withheld ? site.replace(/^https:\/\//, '') : 'perplexity.ai';
      const fix = `open ${extensionsPage(browserName)}, comet-relay → Details → Site access, choose “On all sites” (or add ${site} under “On specific sites”), or right-click comet-relay's toolbar icon and allow it on ${host}; then reload ${tab}`;
      return {
        ...base,
        code: 'SITE_ACCESS_OFF',
        title: `Site access to ${host} is off`,
        message: `comet-relay's site access to ${host} is turned off in this browser (“On click” or “On specific sites”), so its script does not run in ${tab}${said}. To fix it, ${fix}.`,
        fix,
      };
    }
    case 'loading': {
      const fix = `wait for ${tab} to finish loading, or reload it if it is stuck`;
      return { ...base, code: 'NO_PERPLEXITY_TAB', title: 'The Perplexity page is still loading', message: `The Perplexity page in ${tab} is still loading${waited}. ${capital(fix)}.`, fix };
    }
    case 'script-missing': {
      const fix = `reload ${tab}; if it persists, reload comet-relay in ${extensionsPage(browserName)} and then the tab`;
      return {
        ...base,
        code: 'NO_PERPLEXITY_TAB',
        title: 'comet-relay is not running in the Perplexity page',
        message: `The Perplexity page in ${tab} has loaded and the browser lets comet-relay script it, but comet-relay's page script is not in it (a tab opened before the extension was installed or reloaded has none, or the script failed at start). ${capital(fix)}.`,
        fix,
      };
    }
    case 'script-silent': {
      const fix = `reload ${tab}`;
      return {
        ...base,
        code: 'NO_PERPLEXITY_TAB',
        title: 'comet-relay lost the Perplexity page',
        message: `comet-relay's page script is in ${tab} but is not connected to the extension${waited} (it crashed, or lost its connection when the extension restarted). ${capital(fix)}.`,
        fix,
      };
    }
    case 'unknown': {
      const fix = `reload ${tab}; if it persists, run ${cliHint('doctor', form)}`;
      return {
        ...base,
        code: 'NO_PERPLEXITY_TAB',
        title: 'The browser does not let comet-relay into the Perplexity page',
        message: `comet-relay's page script did not start in ${tab}${waited}${said}. ${capital(fix)}.`,
        fix,
      };
    }
  }
}

/** The tab the words are about, as a list of tabs names it: open, and why comet-relay is not in it (review 15f, F1). */
export function pageAccessTabLine(words: Pick<PageAccessWords, 'tabId' | 'title'>): string {
  return `${words.tabId !== undefined ? `tab ${words.tabId}` : 'open'} · ${words.title}`;
}

/** Why something that needs comet-relay in the tab (`doing`: "switch the mode") cannot be done there yet, and what to do. */
export function pageAccessBlocks(words: Pick<PageAccessWords, 'tabId' | 'title' | 'fix'>, doing: string): string {
  const tab = words.tabId !== undefined ? `tab ${words.tabId}` : 'the Perplexity tab';
  return `${words.title} (${tab}), so comet-relay cannot ${doing} there yet. ${capital(words.fix)}.`;
}

/**
 * Whether the words describe a fault worth the person's attention (the panel's own state, the red
 * toolbar badge), not a page that is merely on its way.
 */
export function isPageAccessFault(words: Pick<PageAccessWords, 'state' | 'settled'>): boolean {
  return words.settled || words.state === 'script-missing';
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The codes a page-access problem travels under (also in ERROR_CODES). */
export const PAGE_ACCESS_CODES = ['BROWSER_POLICY', 'SITE_ACCESS_OFF'] as const satisfies readonly ErrorCode[];
