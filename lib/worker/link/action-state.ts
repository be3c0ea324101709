import { isPageAccessFault, type PageAccessWords } from '../../protocol/page-access';
import { cut } from '../../protocol/text/clip';
import type { LinkStatus } from './native-link';

/**
 * The toolbar icon tells the connection to the native host at a glance: a status dot on the
 * icon (green connected, amber connecting, red not connected), a red "!" badge when something
 * needs the person, and a tooltip that says what is going on in words. Calls waiting for the person's
 * approval put their number on the badge (amber) instead, and say so first in the tooltip.
 *
 * This is the toolbar's one writer: the link, the page's access and the approval queue are its inputs,
 * so none of them can wipe what another one showed.
 */
export type ActionState = 'connected' | 'connecting' | 'disconnected';

export interface ActionLook {
  state: ActionState;
  /** Icon paths per size, inside the extension (files drawn into public/action/). */
  icon: Record<'16' | '32', string>;
  title: string;
  badgeText: string;
  badgeColor: string;
}

const ERROR_RED = '#D93025';
const WAITING_AMBER = '#B7791F';
const TITLE_DETAIL_MAX = 300;

function iconFor(state: ActionState): ActionLook['icon'] {
  return { '16': `/action/${state}-16.png`, '32': `/action/${state}-32.png` };
}

/**
 * `access`: why the Perplexity tab has no page script. Connected to the host with nothing working
 * in the page is never shown as connected: the icon turns red with the "!" and the cause's words.
 * `waiting`: calls waiting for approval; their count takes the badge, the link's words stay in the tooltip.
 */
export function actionLook(status: LinkStatus, access: PageAccessWords | null = null, waiting = 0): ActionLook {
  const { state, words, fault } = linkLook(status, access);
  const calls = waiting > 0 ? `${waiting} call${waiting === 1 ? '' : 's'} waiting for your approval; ` : '';
  return {
    state,
    icon: iconFor(state),
    title: `comet-relay — ${calls}${words}`,
    badgeText: waiting > 0 ? String(waiting) : fault ? '!' : '',
    badgeColor: waiting > 0 ? WAITING_AMBER : ERROR_RED,
  };
}

/** The link's state, its words for the tooltip, and whether it is a fault the person must see ("!"). */
function linkLook(status: LinkStatus, access: PageAccessWords | null): { state: ActionState; words: string; fault: boolean } {
  const look = (state: ActionState, words: string, fault = false) => ({ state, words, fault });
  switch (status.state) {
    case 'connected':
      if (access && isPageAccessFault(access)) return look('disconnected', cut(`${access.title}. To fix it, ${access.fix}.`, TITLE_DETAIL_MAX), true);
      return look('connected', `connected to the host${status.hostVersion ? ` ${status.hostVersion}` : ''}. Click to open the side panel.`);
    case 'connecting':
      // A retry after a failure is still "not connected": the icon must not blink amber each attempt.
      return status.failures > 0
        ? look('disconnected', `not connected; retrying (attempt ${status.failures + 1}). Click for details.`, true)
        : look('connecting', 'connecting to the host…');
    case 'incompatible':
      return look('disconnected', cut(status.detail ?? 'the host speaks another protocol version.', TITLE_DETAIL_MAX), true);
    case 'disconnected':
      return look('disconnected', `not connected: ${cut(status.detail ?? 'the host is not running.', TITLE_DETAIL_MAX)}`, true);
  }
}

/** The part of chrome.action we use; `browser.action` satisfies it. */
export interface ActionApi {
  setIcon(details: { path: Record<string, string> }): Promise<void>;
  setTitle(details: { title: string }): Promise<void>;
  setBadgeText(details: { text: string }): Promise<void>;
  setBadgeBackgroundColor(details: { color: string }): Promise<void>;
}

/** Applies the look for each link status, skipping calls when nothing visible changed. */
export class ActionIndicator {
  private shown?: ActionLook;
  private link?: LinkStatus;
  private access: PageAccessWords | null = null;
  private waiting = 0;

  constructor(private readonly api: ActionApi) {}

  /** The page script's problem changed (null: none). */
  showAccess(access: PageAccessWords | null): void {
    this.access = access;
    if (this.link) this.show(this.link);
  }

  /** How many calls wait for the person's approval (0: none). */
  showWaiting(waiting: number): void {
    this.waiting = waiting;
    if (this.link) this.show(this.link);
  }

  show(status: LinkStatus): void {
    this.link = status;
    const next = actionLook(status, this.access, this.waiting);
    const prev = this.shown;
    this.shown = next;
    // The toolbar is cosmetic: a failed update (sync or async) must never break the link.
    const apply = (update: () => Promise<void>) => void Promise.resolve().then(update).catch(() => {});
    if (prev?.state !== next.state) apply(() => this.api.setIcon({ path: next.icon }));
    if (prev?.title !== next.title) apply(() => this.api.setTitle({ title: next.title }));
    if (prev?.badgeColor !== next.badgeColor) apply(() => this.api.setBadgeBackgroundColor({ color: next.badgeColor }));
    if (prev?.badgeText !== next.badgeText) apply(() => this.api.setBadgeText({ text: next.badgeText }));
  }
}
