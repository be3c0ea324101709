import { RelayError } from '../protocol/errors';
import type { MethodName } from '../protocol/methods';
import type { PAGE_MODES } from '../protocol/page-methods';
import type { ControlSettings } from '../protocol/panel';

/**
 * Which browser methods only read and which act, in one place, and what the person's settings
 * (read-only, require approval) make of a call. The worker applies this to every request from the
 * host before it runs; the side panel only displays it.
 */
export type Access = 'read' | 'act';
type Params = Record<string, unknown>;
type Rule = Access | ((params: Params) => Access);

/**
 * Every method of the host's table must be classified here: `satisfies` makes a new method a
 * type error until someone decides whether it acts. A name not in the table counts as acting.
 */
export const METHOD_ACCESS = {
  'browser.status': 'read',
  'tabs.list': 'read',
  'tabs.capture': 'read',
  'tabs.switch': 'act',
  'tabs.ensurePerplexity': 'act',
  'tabs.navigate': 'act',
  'page.content': 'read',
  'page.probe': 'read',
  /** Diagnostics only query the page (doctor --page, capture). */
  'page.diagnose': 'read',
  'page.capture': 'read',
  'page.poll': 'read',
  'page.wait': 'read',
  'page.sources': 'read',
  'page.conversations': 'read',
  'page.ask': 'act',
  'page.stop': 'act',
  /** Reading the mode is a read; passing a mode switches it. */
  'page.mode': (params) => (params.mode ? 'act' : 'read'),
  /** Thread reads may open the thread's tab in the background, but never change the thread. */
  'threads.start': 'act',
  'threads.send': 'act',
  'threads.respond': 'act',
  'threads.wait': 'read',
  'threads.state': 'read',
  'threads.read': 'read',
  'threads.assets': 'read',
  'threads.assetDownload': 'read',
  'account.models': 'read',
  'account.projects': 'read',
} satisfies Record<MethodName, Rule>;

export function accessOf(method: string, params: Params = {}): Access {
  const rule = (METHOD_ACCESS as Record<string, Rule | undefined>)[method];
  if (rule === undefined) return 'act';
  return typeof rule === 'function' ? rule(params) : rule;
}

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
