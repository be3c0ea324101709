import type { Tabs } from 'webextension-polyfill';
import { PUBLIC_SCREENSHOTS_SETTING } from '../../protocol/access';
import { clip } from '../../protocol/text/clip';
import { PUBLIC_LIBRARY_SETTING } from '../../protocol/library/library';
import { RelayError } from '../../protocol/errors';
import { OTHER_TABS_ORIGINS, TAB_ACCESS_GRANT } from '../../protocol/urls';
import { browser } from '../browser/ext';

/**
 * Tabs that are not Perplexity belong to the person: the extension reads or captures them only
 * with the optional host permission the person grants from the side panel, and each such call is
 * also subject to Read-only and Require approval (lib/worker/panel/policy.ts, decideOtherTab). Chromium
 * lets an extension capture any tab, Perplexity's included, only with that same permission.
 */

export async function otherTabsAllowed(): Promise<boolean> {
  return browser.permissions.contains({ origins: [...OTHER_TABS_ORIGINS] }).catch(() => false);
}

const HOW_TO_ALLOW = `To allow it, open the comet-relay side panel and click “${TAB_ACCESS_GRANT}” under Control.`;

/** "read the tab “Title” (url)": what a call wants, for refusals and the approval prompt. */
export function describeTabUse(verb: 'read' | 'capture', tab: Tabs.Tab): string {
  return `${verb} the tab “${clip(tab.title ?? '', 80)}” (${clip(tab.url ?? '', 160)})`;
}

export function otherTabsRefused(what: string): RelayError {
  return new RelayError('PERMISSION_DENIED', `Reading tabs other than Perplexity is off, so the request to ${what} was refused. ${HOW_TO_ALLOW}`);
}

export function screenshotsRefused(): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `Screenshots, the Perplexity tab's too, need the grant “${TAB_ACCESS_GRANT}”: the browser lets an extension capture a tab only once it may read every site. ${HOW_TO_ALLOW}`,
  );
}


export function publicScreenshotsRefused(): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `Screenshots through the public door (the Agent API, \`serve --public-url\`) are off, so this one was refused. To allow them, turn on “${PUBLIC_SCREENSHOTS_SETTING}” under Control in the comet-relay side panel.`,
  );
}

/** `what`: the request refused, as the access check words it (lib/protocol/access.ts `opensLibrary`). */
export function publicLibraryRefused(what?: string): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `The Perplexity library (the thread list, other threads, the Projects) is closed to the public door (the Agent API, \`serve --public-url\`), so ${what ? `the request to ${what}` : 'this call'} was refused. To open it, turn on “${PUBLIC_LIBRARY_SETTING}” under Control in the comet-relay side panel.`,
  );
}
