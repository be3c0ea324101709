import { isPageAccessFault, pageAccessBlocks } from '../protocol/page-access';
import type { ActivityEntry, PanelState, PendingApproval, ThreadStatus } from '../protocol/panel';
import type { PAGE_MODES } from '../protocol/page/page-methods';

/** Pure helpers the panel's components share: labels, times, derived states. No DOM, no timers. */

export type PageModeName = (typeof PAGE_MODES)[number];

export const MODE_OPTIONS: readonly { value: PageModeName; label: string }[] = [
  { value: 'standard', label: 'Standard' },
  { value: 'deep-research', label: 'Deep research' },
  { value: 'model-council', label: 'Model council' },
  { value: 'create', label: 'Create' },
  { value: 'learn', label: 'Learn' },
  { value: 'review', label: 'Review' },
  { value: 'computer', label: 'Computer' },
];

export function modeName(mode: string | null | undefined): string {
  return MODE_OPTIONS.find((m) => m.value === mode)?.label ?? 'Unknown';
}

const LINK_LABEL: Record<PanelState['link']['state'], string> = {
  connected: 'Connected to comet-relay',
  connecting: 'Connecting…',
  disconnected: 'Not connected',
  incompatible: 'Version mismatch',
};

/**
 * The connection line: the link to the host, unless the host is there and the browser keeps
 * comet-relay out of the Perplexity page — never "Connected" with nothing working. `look` is the
 * dot's colour class.
 */
export function connectionHeadline(state: Pick<PanelState, 'link' | 'pageAccess'>): { state: string; look: string; label: string } {
  const access = state.pageAccess;
  if (state.link.state === 'connected' && access && isPageAccessFault(access)) return { state: access.state, look: 'disconnected', label: access.title };
  return { state: state.link.state, look: state.link.state, label: LINK_LABEL[state.link.state] };
}

/**
 * Why the mode control is disabled, or undefined when it can be used. A Perplexity tab the browser keeps comet-relay
 * out of, or one still loading, is open: said so with its fix, never "open one", which a new tab would not cure
 * (review 15f, F1).
 */
export function modeDisabledReason(state: Pick<PanelState, 'perplexityTab'> & Partial<Pick<PanelState, 'pageAccess'>>): string | undefined {
  if (state.perplexityTab) return undefined;
  if (state.pageAccess) return pageAccessBlocks(state.pageAccess, 'switch the mode');
  return 'No Perplexity tab is open. Open perplexity.ai in a tab to switch modes.';
}

export const THREAD_STATUS_LABEL: Record<ThreadStatus, string> = {
  working: 'Working',
  waiting: 'Waiting for you',
  done: 'Done',
  error: 'Error',
  unknown: '',
};

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatClock(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export type ActivityPhase = 'running' | 'approval' | 'ok' | 'error';

export function activityPhase(entry: ActivityEntry, approvals: readonly PendingApproval[]): ActivityPhase {
  if (entry.endedAt !== undefined) return entry.ok ? 'ok' : 'error';
  return approvals.some((a) => a.id === entry.id) ? 'approval' : 'running';
}

/** The outcome line of a feed entry. */
export function activityOutcome(entry: ActivityEntry, phase: ActivityPhase): string {
  switch (phase) {
    case 'running':
      return `running since ${formatClock(entry.startedAt)}`;
    case 'approval':
      return 'waiting for your approval';
    case 'ok':
      return [formatDuration((entry.endedAt ?? entry.startedAt) - entry.startedAt), entry.result].filter(Boolean).join(' · ');
    case 'error':
      return [formatDuration((entry.endedAt ?? entry.startedAt) - entry.startedAt), entry.error ?? 'failed'].join(' · ');
  }
}

/** "claude-code wants to send the prompt …", every invisible character in it shown (the sentence quotes the prompt's head). */
export function approvalSentence(approval: PendingApproval): string {
  return visibleText(`${approval.clientName} wants to ${approval.what}`);
}

/** "283 characters" (code points, as a person counts them; an emoji is one). */
export function characterCount(text: string): string {
  const n = [...text].length;
  return `${n.toLocaleString('en-US')} character${n === 1 ? '' : 's'}`;
}

/**
 * Characters that take no room on screen but go out with the text: format controls (zero-width, bidi, tags) and every
 * other default-ignorable one (variation selectors, which carry a byte each, the combining grapheme joiner, Hangul
 * fillers, Mongolian selectors; review 13b, R13b-7).
 */
const IGNORABLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** What a presentation selector right after it draws (an emoji, a keycap's base): that one selector is seen. */
const TAKES_SELECTOR = /[\p{Extended_Pictographic}#*0-9]/u;

/** The code points of `text`, each with whether it is invisible there. */
function invisibles(text: string): [string, boolean][] {
  const chars = [...text];
  return chars.map((c, i) => {
    if (!IGNORABLE.test(c)) return [c, false];
    const selector = c === '\uFE0E' || c === '\uFE0F';
    return [c, !(selector && i > 0 && TAKES_SELECTOR.test(chars[i - 1] ?? ''))];
  });
}

/**
 * The text as the approval card shows it: every invisible character as a visible mark (⟨U+200B⟩), so what is read is
 * what is sent (review 2026-12-05, panel #3: tag characters can carry a whole second prompt no one sees).
 */
export function visibleText(text: string): string {
  return invisibles(text)
    .map(([c, hidden]) => (hidden ? `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩` : c))
    .join('');
}

/** The approval card's facts under the sentence: where the call acts, whether it opens a new chat, what it hides. */
export function approvalFacts(approval: PendingApproval): string[] {
  const facts: string[] = [];
  const hidden = approval.text ? invisibles(approval.text.body).filter(([, h]) => h).length : 0;
  if (hidden > 0) facts.push(`Holds ${hidden} invisible character${hidden === 1 ? '' : 's'}, shown as ⟨U+…⟩ above: they are sent too`);
  if (approval.target) facts.push(`Acts on: ${visibleText(approval.target)}`);
  if (approval.newChat !== undefined) {
    facts.push(
      approval.newChat
        ? approval.method === 'page.ask'
          ? 'Opens a new chat: yes — the tab leaves the conversation it shows for the Perplexity home page, once you approve'
          : 'Opens a new chat: yes'
        : 'Opens a new chat: no — it goes into the conversation shown',
    );
  }
  return facts;
}

/** Path of a perplexity.ai URL, for a thread without a title. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}
