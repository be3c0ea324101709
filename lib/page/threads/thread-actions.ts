import { RelayError } from '../../protocol/error/relay-error';
import type { AttachmentPayload } from '../../protocol/threads/threads';
import type { ThreadPageReader } from '../../selectors/thread-schema';
import { ask } from '../composer/actions';
import type { PageContext } from '../dom/context';
import { all, cleanText, first, pointerClick } from '../dom/dom';
import type { PageWatcher } from '../answer/observer';
import { stopButton } from '../answer/reader';
import { turnCountOf, turnsOf } from '../dom/turns';
import { readerMiss } from '../checkpoints/thread-boxes';
import { refusalNotices, refusalOf } from './thread-dom-reader';
import type { ThreadSession } from './thread-session';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';

/**
 * What the thread methods do in the page: start a Computer task (settings, project visibility, files, prompt; the
 * worker has set Computer mode through the mode kit first) and send a follow-up (answering what a task waits on is in
 * thread-answers.ts). Every element comes from the selector set or the page reader; every failure
 * names what was missing and where.
 */

export interface TurnSettings {
  mode?: string;
  model?: string;
  effort?: string;
}

/**
 * Throws CANCELLED once the caller is gone. Checked before every step that changes the page (a
 * click, a file, the prompt): a cancelled call never goes on to start, continue or answer a task.
 */
export function stopIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled; nothing more was done in the page after the cancel.');
}

/** Picks one item of the Computer settings menu (opened afresh each time: items close it). */
async function pickSetting(ctx: PageContext, r: ThreadPageReader, template: string, value: string, signal?: AbortSignal): Promise<void> {
  stopIfCancelled(signal);
  const url = ctx.doc.location.href;
  const button = first(ctx.doc, r.settingsButton);
  if (!button) throw readerMiss(r, 'settingsButton', url, { hint: 'Computer settings show in the composer once Computer mode is on' });
  const selector = template.replace('{value}', value.replace(/["\\]/g, ''));
  pointerClick(button);
  const item = await ctx.waitFor(() => ctx.doc.querySelector(selector), 1500, signal).catch((error: unknown) => {
    pointerClick(button); // cancelled with the menu open: close it again
    throw error;
  });
  if (!item) {
    pointerClick(button);
    throw new RelayError('INVALID_PARAMS', `Computer settings on ${url} offer no "${value}" (looked for ${selector}); use a value from models_list.`);
  }
  pointerClick(item);
  await ctx.waitFor(() => !ctx.doc.querySelector(selector), 1500, signal);
}

export async function applySettings(ctx: PageContext, r: ThreadPageReader, settings: TurnSettings, signal?: AbortSignal): Promise<void> {
  if (settings.mode) await pickSetting(ctx, r, r.settingsMode, settings.mode, signal);
  if (settings.model) await pickSetting(ctx, r, r.settingsModel, settings.model, signal);
  if (settings.effort) await pickSetting(ctx, r, r.settingsEffort, settings.effort, signal);
}

function bytesOf(win: Window, base64: string): Uint8Array<ArrayBuffer> {
  let binary: string;
  try {
    binary = win.atob(base64);
  } catch {
    throw new RelayError('INVALID_PARAMS', 'an attachment is not valid base64');
  }
  const out = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Puts files into the composer's file input, the way a person's file picker does, and waits for their chips. */
export async function attachFiles(ctx: PageContext, r: ThreadPageReader, files: AttachmentPayload[], timeoutMs = 30_000, signal?: AbortSignal): Promise<void> {
  if (files.length === 0) return;
  stopIfCancelled(signal);
  const url = ctx.doc.location.href;
  const input = first(ctx.doc, r.fileInput) as HTMLInputElement | null;
  if (!input) throw readerMiss(r, 'fileInput', url, { hint: "the composer's file input, where attachments go" });
  const view = ctx.win as Window & typeof globalThis;
  const transfer = new view.DataTransfer();
  for (const f of files) transfer.items.add(new view.File([bytesOf(ctx.win, f.data)], f.filename, { type: f.mimeType }));
  input.files = transfer.files;
  input.dispatchEvent(new view.Event('change', { bubbles: true }));
  const state = r.attachmentState;
  const chips = () => all(ctx.doc, r.attachmentChip);
  const settled = await ctx.waitFor(() => {
    const list = chips();
    const named = files.map((f) => list.find((c) => c.getAttribute('data-filename') === f.filename || cleanText(c).includes(f.filename)));
    if (named.some((c) => !c)) return null;
    const states = named.map((c) => c?.getAttribute(state.attribute));
    return states.every((s) => s === state.ready || s === state.failed) ? states : null;
  }, timeoutMs, signal);
  if (!settled) throw new RelayError('TIMEOUT', `the page did not show ${files.length} attached file(s) as uploaded within ${timeoutMs / 1000} s on ${url}`);
  const failed = files.filter((_, i) => settled[i] === state.failed).map((f) => f.filename);
  if (failed.length) throw new RelayError('AGENT_ERROR', `Perplexity did not take the attachment(s) ${failed.join(', ')} on ${url}`);
}

/** The page has no turn yet: the home page or a Project's page, where a new thread starts. */
function onStartPage(ctx: PageContext): boolean {
  return turnsOf(ctx.doc, ctx.set).length === 0 && threadIdOfUrl(ctx.doc.location.href) === undefined;
}

export interface StartParams {
  message: string;
  attachments: AttachmentPayload[];
  settings: TurnSettings;
  projectVisibility?: 'private' | 'project';
}

/** The caller's signal (a cancel stops the call before its next step in the page), and how long to wait for the page. */
export interface TurnOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface Submitted {
  threadId: string;
  url: string;
  turn: number;
}

/** Nothing was sent: the page refused at once (the contract's TurnNotSent). */
export type NotSent = NonNullable<ReturnType<typeof refusalOf>> & { notSent: true };

/**
 * This submit's refusal, read fresh: a notice already showing before the submit is an earlier refusal, and taking it
 * for this one told the caller "nothing was sent" about a prompt that was typed and submitted, so the agent sent it
 * twice. Known by its words, not its element (a page may draw the same notice anew on submit, 2026-12-06): words shown
 * before stay an earlier refusal until a look finds the page without them.
 */
function refusalWatch(ctx: PageContext, r: ThreadPageReader): (noTurn?: boolean) => NotSent | undefined {
  const earlier = new Set(refusalNotices(ctx, r).values());
  // `noTurn`: the page kept the prompt and showed no turn for it, so a notice is this refusal whatever it said before.
  return (noTurn = false) => {
    const now = refusalNotices(ctx, r);
    const shown = new Set(now.values());
    for (const words of earlier) if (!shown.has(words)) earlier.delete(words);
    const refusal = refusalOf(ctx, r, (el) => !noTurn && earlier.has(now.get(el) ?? ''));
    return refusal ? { notSent: true, ...refusal } : undefined;
  };
}

/** The ask's options for a watched submit: a new refusal ends it at once; one the page shows when no turn came, at its end. */
function askWatching(refused: ReturnType<typeof refusalWatch>, signal: AbortSignal | undefined) {
  return { answeredOtherwise: () => refused() !== undefined, refusedAtEnd: () => refused(true) !== undefined, ...(signal ? { signal } : {}) };
}

/**
 * Whether this document submitted a new task's prompt, and where: the worker asks it when a start
 * failed, so a tab whose prompt went out (credits spent) is never closed as if nothing started.
 */
let submitted: { at: number; url: string } | undefined;
export function lastSubmission(): { submitted: boolean; url: string } {
  return { submitted: submitted !== undefined, url: submitted?.url ?? '' };
}

/**
 * A Project's visible-to-members toggle, set as asked: on for "project"; off for "private" (the
 * seed's default) and when nothing was asked, so a page that remembers "visible" never shares a
 * private task. Off the Project pages there is no toggle, and nothing to share with.
 */
export function setProjectVisibility(ctx: PageContext, r: ThreadPageReader, wanted: 'private' | 'project' | undefined): void {
  const toggle = first(ctx.doc, r.projectVisibility);
  if (!toggle) {
    if (wanted === 'project') throw readerMiss(r, 'projectVisibility', ctx.doc.location.href, { hint: "the Project page's visible-to-members toggle" });
    return;
  }
  const on = () => toggle.getAttribute('aria-pressed') === 'true';
  if (on() !== (wanted === 'project')) pointerClick(toggle);
  if (on() !== (wanted === 'project')) {
    throw new RelayError('AGENT_ERROR', `the Project's visible-to-members toggle stayed ${on() ? 'on' : 'off'} on ${ctx.doc.location.href}, so nothing was sent (project_visibility "${wanted ?? 'private'}").`);
  }
}

/** Starts a Computer task from the page this tab shows (home, or a Project's page). */
export async function startThread(ctx: PageContext, watcher: PageWatcher, r: ThreadPageReader, params: StartParams, options: TurnOptions = {}): Promise<Submitted | NotSent> {
  const { signal, timeoutMs = 20_000 } = options;
  stopIfCancelled(signal);
  if (!onStartPage(ctx)) {
    throw new RelayError('AGENT_ERROR', `a new thread starts on the Perplexity home page or a Project's page, and this tab shows ${ctx.doc.location.href}`);
  }
  if (!params.message.trim()) throw new RelayError('INVALID_PARAMS', 'message is empty: say what Computer should do');
  // Computer mode is set before this, by the worker through the mode kit (lib/worker/threads/thread-calls.ts start).
  await applySettings(ctx, r, params.settings, signal);
  stopIfCancelled(signal);
  setProjectVisibility(ctx, r, params.projectVisibility);
  await attachFiles(ctx, r, params.attachments, undefined, signal);
  const refused = refusalWatch(ctx, r);
  const handle = await ask(ctx, watcher, { prompt: params.message }, askWatching(refused, signal));
  submitted = { at: Date.now(), url: ctx.doc.location.href };
  const refusedAtEnd = handle.turnIndex === -1 && !threadIdOfUrl(ctx.doc.location.href) ? refused(true) : undefined;
  if (refusedAtEnd) return refusedAtEnd;
  // A thread in the URL means the prompt went out, whatever notice the new page shows (a task can
  // stop on credits in its first second): only a page that stayed put was refused.
  const outcome = await ctx.waitFor(() => (threadIdOfUrl(ctx.doc.location.href) ? ctx.doc.location.href : refused()), timeoutMs, signal);
  if (outcome && typeof outcome === 'object') return outcome;
  const url = outcome || undefined;
  const threadId = url ? threadIdOfUrl(url) : undefined;
  if (!url || !threadId) {
    throw new RelayError('AGENT_ERROR', `the prompt was sent but Perplexity did not open a thread within ${timeoutMs / 1000} s (the tab shows ${ctx.doc.location.href})`);
  }
  return { threadId, url, turn: 0 };
}

/** A follow-up in the thread this tab shows; refused while its latest turn still works. */
export async function sendFollowUp(
  ctx: PageContext,
  watcher: PageWatcher,
  session: ThreadSession,
  r: ThreadPageReader,
  params: Omit<StartParams, 'projectVisibility'>,
  options: TurnOptions = {},
): Promise<Submitted | NotSent> {
  const { signal, timeoutMs = 20_000 } = options;
  stopIfCancelled(signal);
  const threadId = session.threadId;
  if (!threadId) throw new RelayError('AGENT_ERROR', `this tab shows no thread (${ctx.doc.location.href})`);
  if (!params.message.trim()) throw new RelayError('INVALID_PARAMS', 'message is empty: say what Computer should do next');
  const turns = turnsOf(ctx.doc, ctx.set);
  if (stopButton(ctx.doc, ctx.set, turns.at(-1) ?? null)) {
    const waiting = session.latestFromPage(true).turn?.interactions.length;
    throw new RelayError(
      'AGENT_ERROR',
      waiting
        ? `thread "${threadId}" is waiting for an answer: use answer_question, confirm_action_approve/deny or notify_connected (read_thread lists what waits), not a new message`
        : `thread "${threadId}" is still working on its latest turn; wait for it (read_thread shows its progress) before sending a new message`,
      // Said before anything was typed: the MCP side may then show the thread as it stands.
      { notSent: true },
    );
  }
  await applySettings(ctx, r, params.settings, signal);
  await attachFiles(ctx, r, params.attachments, undefined, signal);
  const refused = refusalWatch(ctx, r);
  const handle = await ask(ctx, watcher, { prompt: params.message }, askWatching(refused, signal));
  const refusedAtEnd = handle.turnIndex === -1 && turnCountOf(turnsOf(ctx.doc, ctx.set)) <= handle.afterTurn ? refused(true) : undefined;
  if (refusedAtEnd) return refusedAtEnd;
  session.acted();
  // The new turn, or the page saying it did not send: either shows after the server's answer. Counted
  // by the page's own index: a long thread unmounts its oldest turn as the new one mounts.
  const outcome = await ctx.waitFor(() => (turnCountOf(turnsOf(ctx.doc, ctx.set)) > handle.afterTurn ? 'sent' : refused()), timeoutMs, signal);
  if (outcome && typeof outcome === 'object') return outcome;
  return { threadId, url: ctx.doc.location.href, turn: handle.afterTurn };
}
