import { accessOf } from '../protocol/access';
import { RelayError } from '../protocol/errors';
import type { PAGE_MODES } from '../protocol/page-methods';
import type { ControlSettings } from '../protocol/panel';

/**
 * What the person's settings (read-only, require approval) make of a call. Whether a method reads or
 * acts is decided once, in lib/protocol/access.ts, for the worker and the MCP tools alike. The worker
 * applies this to every request from the host before it runs; the side panel only displays it.
 */
type Params = Record<string, unknown>;

const MODE_LABELS: Record<(typeof PAGE_MODES)[number], string> = {
  standard: 'Standard',
  'deep-research': 'Deep research',
  'model-council': 'Model council',
  create: 'Create',
  learn: 'Learn',
  review: 'Review',
  computer: 'Computer',
};

export function modeLabel(mode: string): string {
  return (MODE_LABELS as Record<string, string | undefined>)[mode] ?? mode;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The calls that wait for the person's click when "Require approval" is on, and what they do. */
export function approvalSubject(method: string, params: Params): string | undefined {
  if (method === 'page.ask') {
    const fresh = params.newChat ? ' in a new thread' : '';
    return `send the prompt “${clip(String(params.prompt ?? ''), 160)}”${fresh}`;
  }
  if (method === 'page.mode' && params.mode) return `switch the mode to ${modeLabel(String(params.mode))}`;
  return undefined;
}

/** What a refused acting call says it tried to do. */
function describeAct(method: string, params: Params): string {
  const subject = approvalSubject(method, params);
  if (subject) return subject;
  switch (method) {
    case 'tabs.switch':
      return 'switch tabs';
    case 'tabs.navigate':
      return `open ${clip(String(params.url ?? ''), 120)}`;
    case 'tabs.ensurePerplexity':
      return 'choose or open the Perplexity tab';
    case 'page.stop':
      return 'stop the answer';
    default:
      return `run ${method}`;
  }
}

export type Decision = { kind: 'allow' } | { kind: 'deny'; error: RelayError } | { kind: 'approve'; what: string };

export function decide(method: string, params: Params, settings: ControlSettings): Decision {
  if (accessOf(method, params) === 'read') return { kind: 'allow' };
  if (settings.readOnly) {
    return {
      kind: 'deny',
      error: new RelayError(
        'PERMISSION_DENIED',
        `comet-relay is read-only, so the request to ${describeAct(method, params)} (${method}) was refused. ` +
          'To allow it, turn off "Read-only" under Control in the comet-relay side panel.',
      ),
    };
  }
  const what = settings.requireApproval ? approvalSubject(method, params) : undefined;
  return what ? { kind: 'approve', what } : { kind: 'allow' };
}

/**
 * Reading or capturing a tab that is not Perplexity (once the person has allowed it at all): an
 * arbitrary web page is the person's, so Read-only refuses it and Require approval holds it.
 */
export function decideOtherTab(what: string, settings: ControlSettings): Decision {
  if (settings.readOnly) {
    return {
      kind: 'deny',
      error: new RelayError(
        'PERMISSION_DENIED',
        `comet-relay is read-only, which lets agents read only Perplexity, so the request to ${what} was refused. ` +
          'To allow it, turn off "Read-only" under Control in the comet-relay side panel.',
      ),
    };
  }
  return settings.requireApproval ? { kind: 'approve', what } : { kind: 'allow' };
}

export function deniedError(what: string): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `The person at the browser denied the request to ${what}. ("Require approval" is on under Control in the comet-relay side panel.)`,
  );
}

export function approvalTimeoutError(what: string, seconds: number): RelayError {
  return new RelayError(
    'TIMEOUT',
    `Nobody approved the request to ${what} within ${seconds} s. "Require approval" is on under Control in the comet-relay side panel: approve the call there, or turn the setting off.`,
  );
}
