import { effectOf, type Need } from '../../protocol/access';
import { clip } from '../../protocol/text/clip';
import { promptInUrl } from '../../protocol/urls';
import { publicLibraryRefused, publicScreenshotsRefused } from '../calls/other-tabs';
import { RelayError } from '../../protocol/errors';
import type { PAGE_MODES } from '../../protocol/page/page-methods';
import type { ControlSettings } from '../../protocol/panel';

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

function quote(text: unknown, max = 160): string {
  return `“${clip(String(text ?? ''), max)}”`;
}

/** The files a held message sends, each by name, type and size: what the person approves (review 2026-12-05, panel #2). */
function filesOf(params: Params): string {
  const files = Array.isArray(params.attachments) ? (params.attachments as { filename?: unknown; mimeType?: unknown; data?: unknown }[]) : [];
  if (files.length === 0) return '';
  const size = (data: unknown) => {
    const bytes = typeof data === 'string' ? Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) : 0;
    return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} kB`;
  };
  const named = files.map((f) => `${quote(f.filename, 80)} (${clip(String(f.mimeType ?? ''), 60)}, ${size(f.data)})`).join(', ');
  return ` and ${files.length} file${files.length === 1 ? '' : 's'}: ${named}`;
}

/** A Computer turn's settings as the agent chose them (its mode, model and effort), in words: none when it chose none. */
function settingsOf(params: Params): string {
  const settings = (params.settings ?? {}) as { mode?: unknown; model?: unknown; effort?: unknown };
  const named = [
    settings.mode ? `mode ${clip(String(settings.mode), 40)}` : '',
    settings.model ? `model ${clip(String(settings.model), 80)}` : '',
    settings.effort ? `effort ${clip(String(settings.effort), 40)}` : '',
  ].filter(Boolean);
  return named.length ? `, with ${named.join(', ')}` : '';
}

/**
 * What a thread reply does, in words: which prompt (its words when the caller passed them as
 * `about`, else its followup_uuid) and what the reply says.
 */
function replySubject(params: Params): string {
  const thread = `thread ${clip(String(params.threadId ?? ''), 80)}`;
  const about = typeof params.about === 'string' && params.about.trim() ? quote(params.about) : params.followupUuid ? `prompt ${clip(String(params.followupUuid), 80)}` : 'what it waits on';
  const reply = (params.reply ?? {}) as { kind?: string; reason?: unknown; message?: unknown; answers?: Record<string, unknown> };
  const reason = typeof reply.reason === 'string' && reply.reason.trim() ? ` (reason: ${quote(reply.reason, 120)})` : '';
  switch (reply.kind) {
    case 'answers':
      return `answer ${about} in ${thread} with ${Object.values(reply.answers ?? {}).map((a) => quote(a, 80)).join(', ')}`;
    case 'deny':
      return `deny ${about} in ${thread}${reason}`;
    case 'connected': {
      const note = typeof reply.message === 'string' && reply.message.trim() ? ` (${quote(reply.message, 120)})` : '';
      return `tell ${thread} the sign-in to ${about} is done${note}`;
    }
    default:
      return `approve ${about} in ${thread}${reason}`;
  }
}

/**
 * What a call that sends something to Perplexity would do, in words (the approval card's sentence and
 * a refusal's). Which calls those are is the access table's (`effectOf` … `send`, lib/protocol/access.ts),
 * not this switch's: a call it has no words for is held all the same, described by its method.
 */
export function approvalSubject(method: string, params: Params): string | undefined {
  switch (method) {
    case 'tabs.navigate': {
      const prompt = promptInUrl(String(params.url ?? ''));
      return prompt === undefined ? undefined : `send the prompt ${quote(prompt)} by opening ${clip(String(params.url ?? ''), 120)}`;
    }
    case 'page.ask':
      // The mode the session chose with comet_mode is set on the page right before the prompt (router.ts): a Computer
      // task acts with the account's connectors and spends credits, so the card says so (review 13b, R13b-3).
      return `send the prompt ${quote(params.prompt)}${params.newChat ? ' in a new thread' : ''}${params.keepMode ? ` in ${modeLabel(String(params.keepMode))} mode, which this session chose` : ''}`;
    case 'page.mode':
      return params.mode ? `switch the mode to ${modeLabel(String(params.mode))}` : undefined;
    case 'threads.start': {
      const project = params.projectUuid
        ? `, in Project ${clip(String(params.projectUuid), 80)}${params.projectVisibility === 'project' ? ' (visible to its members)' : ''}`
        : '';
      return `start a Computer task with the prompt ${quote(params.message)}${filesOf(params)}${project}${settingsOf(params)}`;
    }
    case 'threads.send':
      return `send the follow-up ${quote(params.message)}${filesOf(params)} to thread ${clip(String(params.threadId ?? ''), 80)}${settingsOf(params)}`;
    case 'threads.respond':
      return replySubject(params);
    default:
      return undefined;
  }
}

/**
 * What the person sees in full beside the approval sentence: the whole text the call would send
 * (the sentence quotes only its head), and whether it opens a new chat. Nothing here is clipped:
 * Require approval is the one human check before a prompt or a Computer task, and an injected
 * agent would put the harmless part first.
 */
export function approvalDetail(method: string, params: Params): { text?: { label: string; body: string }; newChat?: boolean } {
  const text = (label: string, body: unknown) => (typeof body === 'string' && body.length > 0 ? { text: { label, body } } : {});
  switch (method) {
    case 'page.ask':
      return { ...text('Prompt', params.prompt), newChat: Boolean(params.newChat) };
    case 'tabs.navigate': {
      // The address's prompt in full (the sentence names the address); opening it leaves the conversation the tab shows.
      const prompt = promptInUrl(String(params.url ?? ''));
      return prompt === undefined ? {} : { ...text('Prompt', prompt), newChat: true };
    }
    case 'threads.start':
      return { ...text('Computer task', params.message), newChat: true };
    case 'threads.send':
      return { ...text('Follow-up', params.message), newChat: false };
    case 'threads.respond': {
      const reply = (params.reply ?? {}) as { kind?: string; reason?: unknown; message?: unknown; answers?: Record<string, unknown> };
      const said =
        reply.kind === 'answers'
          ? Object.entries(reply.answers ?? {})
              .map(([question, answer]) => `${question}: ${String(answer)}`)
              .join('\n\n')
          : typeof reply.reason === 'string'
            ? reply.reason
            : typeof reply.message === 'string'
              ? reply.message
              : '';
      // What is approved, answered or denied, whole: the sentence quotes only its head, and an injected task puts the
      // harmless part first (review 13b, R13b-2).
      const about = typeof params.about === 'string' && params.about.trim() ? `What it waits on:\n${params.about}` : '';
      const body = [about, said && `${reply.kind === 'answers' ? 'Answers' : 'Reply'}:\n${said}`].filter(Boolean).join('\n\n');
      const label = { answers: 'Question and answers', deny: 'What is refused', connected: 'The sign-in' }[String(reply.kind)] ?? 'What is approved';
      return { ...text(label, body), newChat: false };
    }
    default:
      return {};
  }
}

/**
 * A need of the access table (lib/protocol/access.ts) that depends on the person's settings, once
 * the browser grant is in place: other tabs under Read-only and Require approval; screenshots
 * through the public door only when the person turned them on for that door.
 */
export function decideNeed(need: Need, what: string, settings: ControlSettings): Decision {
  switch (need) {
    case 'other-tabs':
      return decideOtherTab(what, settings);
    case 'public-screenshots':
      return settings.publicScreenshots ? { kind: 'allow' } : { kind: 'deny', error: publicScreenshotsRefused() };
    case 'public-library':
      return settings.publicLibrary ? { kind: 'allow' } : { kind: 'deny', error: publicLibraryRefused(what) };
    case 'never':
      return { kind: 'deny', error: new RelayError('PERMISSION_DENIED', `The request to ${what} was refused: its door never allows it.`) };
    default:
      return { kind: 'allow' };
  }
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
    case 'attachments.admit':
      return `store the file ${clip(String(params.filename ?? ''), 120)} (${Number(params.sizeBytes ?? 0)} bytes) for an upload`;
    default:
      return `run ${method}`;
  }
}

export type Decision = { kind: 'allow' } | { kind: 'deny'; error: RelayError } | { kind: 'approve'; what: string };

/**
 * The person's policy for one call, from the access table alone: a read is allowed; Read-only refuses
 * every act; Require approval holds every call that sends something to Perplexity.
 */
export function decide(method: string, params: Params, settings: ControlSettings): Decision {
  const effect = effectOf(method, params);
  if (effect === 'read') return { kind: 'allow' };
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
  return settings.requireApproval && effect === 'send' ? { kind: 'approve', what: describeAct(method, params) } : { kind: 'allow' };
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

/**
 * Held before anything reached the page, so nothing was done (`notSent`: a follow-up is not said to have maybe gone),
 * and the call is over: it can only be made again (review 8, errors #1).
 */
export function approvalTimeoutError(what: string, seconds: number): RelayError {
  return new RelayError(
    'TIMEOUT',
    `Nobody approved the request to ${what} within ${seconds} s, so it was not carried out. "Require approval" is on under Control in the comet-relay side panel: call again and approve it there, or turn the setting off.`,
    { notSent: true },
  );
}
