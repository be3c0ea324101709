import { RelayError } from '../protocol/errors';
import type { AttachmentPayload, ThreadReply } from '../protocol/threads';
import type { ThreadPageReader } from '../selectors/thread-schema';
import { ask } from './actions';
import { typeInto } from './composer';
import type { PageContext } from './context';
import { all, cleanText, first, isDisabled, isHidden, pointerClick } from './dom';
import { setMode } from './mode';
import type { PageWatcher } from './observer';
import { stopButton, turnsOf } from './reader';
import { type Box, boxesOf, refusalOf } from './thread-dom-reader';
import type { Interaction } from './thread-model';
import { threadIdOf, type ThreadSession } from './thread-session';

/**
 * What the thread methods do in the page: start a Computer task (mode, settings, project
 * visibility, files, prompt), send a follow-up, and answer what a task waits on. Every element
 * comes from the selector set or the page reader; every failure names what was missing and where.
 */

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function clickable(el: Element | null): el is HTMLElement {
  return !!el && !isDisabled(el) && !isHidden(el);
}

export interface TurnSettings {
  mode?: string;
  model?: string;
  effort?: string;
}

/** Picks one item of the Computer settings menu (opened afresh each time: items close it). */
async function pickSetting(ctx: PageContext, r: ThreadPageReader, template: string, value: string): Promise<void> {
  const url = ctx.doc.location.href;
  const button = first(ctx.doc, r.settingsButton);
  if (!button) throw new RelayError('SELECTOR_NOT_FOUND', `the Computer settings control (${r.settingsButton[0]}) was not found on ${url} (page reader ${r.name})`);
  const selector = template.replace('{value}', value.replace(/["\\]/g, ''));
  pointerClick(button);
  const item = await ctx.waitFor(() => ctx.doc.querySelector(selector), 1500);
  if (!item) {
    pointerClick(button);
    throw new RelayError('INVALID_PARAMS', `Computer settings on ${url} offer no "${value}" (looked for ${selector}); use a value from models_list.`);
  }
  pointerClick(item);
  await ctx.waitFor(() => !ctx.doc.querySelector(selector), 1500);
}

export async function applySettings(ctx: PageContext, r: ThreadPageReader, settings: TurnSettings): Promise<void> {
  if (settings.mode) await pickSetting(ctx, r, r.settingsMode, settings.mode);
  if (settings.model) await pickSetting(ctx, r, r.settingsModel, settings.model);
  if (settings.effort) await pickSetting(ctx, r, r.settingsEffort, settings.effort);
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
export async function attachFiles(ctx: PageContext, r: ThreadPageReader, files: AttachmentPayload[], timeoutMs = 30_000): Promise<void> {
  if (files.length === 0) return;
  const url = ctx.doc.location.href;
  const input = first(ctx.doc, r.fileInput) as HTMLInputElement | null;
  if (!input) throw new RelayError('SELECTOR_NOT_FOUND', `the composer's file input (${r.fileInput[0]}) was not found on ${url} (page reader ${r.name})`);
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
  }, timeoutMs);
  if (!settled) throw new RelayError('TIMEOUT', `the page did not show ${files.length} attached file(s) as uploaded within ${timeoutMs / 1000} s on ${url}`);
  const failed = files.filter((_, i) => settled[i] === state.failed).map((f) => f.filename);
  if (failed.length) throw new RelayError('AGENT_ERROR', `Perplexity did not take the attachment(s) ${failed.join(', ')} on ${url}`);
}

/** The page has no turn yet: the home page or a Project's page, where a new thread starts. */
function onStartPage(ctx: PageContext): boolean {
  return turnsOf(ctx.doc, ctx.set).length === 0 && threadIdOf(ctx.doc.location.href) === undefined;
}

export interface StartParams {
  message: string;
  attachments: AttachmentPayload[];
  settings: TurnSettings;
  projectVisibility?: 'private' | 'project';
}

export interface Submitted {
  threadId: string;
  url: string;
  turn: number;
}

/** Nothing was sent: the page refused at once (the contract's TurnNotSent). */
export type NotSent = NonNullable<ReturnType<typeof refusalOf>> & { notSent: true };

function refused(ctx: PageContext, r: ThreadPageReader): NotSent | undefined {
  const refusal = refusalOf(ctx, r);
  return refusal ? { notSent: true, ...refusal } : undefined;
}

/** Starts a Computer task from the page this tab shows (home, or a Project's page). */
export async function startThread(ctx: PageContext, watcher: PageWatcher, r: ThreadPageReader, params: StartParams, timeoutMs = 20_000): Promise<Submitted | NotSent> {
  if (!onStartPage(ctx)) {
    throw new RelayError('AGENT_ERROR', `a new thread starts on the Perplexity home page or a Project's page, and this tab shows ${ctx.doc.location.href}`);
  }
  if (!params.message.trim()) throw new RelayError('INVALID_PARAMS', 'message is empty: say what Computer should do');
  await setMode(ctx, 'computer');
  await applySettings(ctx, r, params.settings);
  if (params.projectVisibility === 'project') {
    const toggle = first(ctx.doc, r.projectVisibility);
    if (!toggle) throw new RelayError('SELECTOR_NOT_FOUND', `the project visibility toggle (${r.projectVisibility[0]}) was not found on ${ctx.doc.location.href}`);
    if (toggle.getAttribute('aria-pressed') !== 'true') pointerClick(toggle);
  }
  await attachFiles(ctx, r, params.attachments);
  await ask(ctx, watcher, { prompt: params.message }, { answeredOtherwise: () => refused(ctx, r) !== undefined });
  const outcome = await ctx.waitFor(() => refused(ctx, r) ?? (threadIdOf(ctx.doc.location.href) ? ctx.doc.location.href : null), timeoutMs);
  if (outcome && typeof outcome === 'object') return outcome;
  const url = outcome || undefined;
  const threadId = url ? threadIdOf(url) : undefined;
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
  timeoutMs = 20_000,
): Promise<Submitted | NotSent> {
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
    );
  }
  await applySettings(ctx, r, params.settings);
  await attachFiles(ctx, r, params.attachments);
  const handle = await ask(ctx, watcher, { prompt: params.message }, { answeredOtherwise: () => refused(ctx, r) !== undefined });
  session.acted();
  // The new turn, or the page saying it did not send: either shows after the server's answer.
  const outcome = await ctx.waitFor(() => refused(ctx, r) ?? (turnsOf(ctx.doc, ctx.set).length > handle.afterTurn ? 'sent' : null), timeoutMs);
  if (outcome && typeof outcome === 'object') return outcome;
  return { threadId, url: ctx.doc.location.href, turn: handle.afterTurn };
}

// ── answering ────────────────────────────────────────────────────────────────

const KIND_FOR: Record<ThreadReply['kind'], Interaction['type']> = {
  answers: 'ask_user_question',
  approve: 'confirm_action',
  deny: 'confirm_action',
  connected: 'auth_required',
};

const TOOL_FOR: Record<Interaction['type'], string> = {
  ask_user_question: 'answer_question',
  confirm_action: 'confirm_action_approve or confirm_action_deny',
  auth_required: 'notify_connected (after signing in)',
  interaction_required: 'nothing here: complete it in Perplexity, then continue the thread with a new message',
  two_factor_required: 'nothing here: follow its instructions and continue the thread with a new message',
};

function listWaiting(boxes: Box[]): string {
  return boxes.map((b) => `${b.interaction.type} "${b.interaction.followupUuid}"`).join(', ');
}

/** The boxes a reply is for: by followup_uuid (page id, else the JSON's id matched by text), else by kind. */
export function targetsOf(boxes: Box[], reply: ThreadReply, followupUuid: string | undefined, threadId: string, jsonText?: string): Box[] {
  if (boxes.length === 0) throw new RelayError('INVALID_PARAMS', `thread "${threadId}" has nothing waiting for an answer now (read_thread shows its state).`);
  if (followupUuid) {
    const hit =
      boxes.find((b) => b.interaction.followupUuid === followupUuid) ??
      (jsonText !== undefined ? boxes.find((b) => norm(b.interaction.text) === norm(jsonText)) : undefined);
    if (!hit) throw new RelayError('INVALID_PARAMS', `followup_uuid "${followupUuid}" matches nothing waiting in thread "${threadId}"; waiting: ${listWaiting(boxes)}.`);
    if (hit.interaction.type !== KIND_FOR[reply.kind]) {
      throw new RelayError('INVALID_PARAMS', `followup_uuid "${followupUuid}" is a ${hit.interaction.type}: answer it with ${TOOL_FOR[hit.interaction.type]}.`);
    }
    return [hit];
  }
  const kind = KIND_FOR[reply.kind];
  const fitting = boxes.filter((b) => b.interaction.type === kind);
  if (fitting.length === 0) {
    const [first] = boxes as [Box];
    throw new RelayError('INVALID_PARAMS', `thread "${threadId}" waits on ${listWaiting(boxes)}, not on a ${kind}: use ${TOOL_FOR[first.interaction.type]}.`);
  }
  if (fitting.length > 1 && reply.kind !== 'answers') {
    throw new RelayError('INVALID_PARAMS', `thread "${threadId}" has ${fitting.length} of those waiting (${listWaiting(fitting)}): pass followup_uuid to say which.`);
  }
  return fitting;
}

interface QuestionSlot {
  box: Box;
  id: string;
  text: string;
  options: string[];
}

/** Which question each answer is for (keys: question ids or texts; one question takes one answer under any key). */
export function assignAnswers(targets: Box[], answers: Record<string, string>): Map<QuestionSlot, string> {
  const slots: QuestionSlot[] = targets.flatMap((box) =>
    (box.interaction.questions ?? [{ id: box.interaction.followupUuid, text: box.interaction.text }]).map((q) => ({
      box,
      id: q.id,
      text: q.text,
      options: 'options' in q && q.options ? q.options : [],
    })),
  );
  const entries = Object.entries(answers).filter(([, v]) => v.trim() !== '');
  if (entries.length === 0) throw new RelayError('INVALID_PARAMS', 'answers is empty: give an answer for each question.');
  const out = new Map<QuestionSlot, string>();
  if (slots.length === 1 && entries.length === 1) {
    out.set(slots[0] as QuestionSlot, (entries[0] as [string, string])[1]);
    return out;
  }
  const unknown: string[] = [];
  for (const [key, value] of entries) {
    const slot = slots.find((s) => s.id === key || s.box.interaction.followupUuid === key || norm(s.text) === norm(key));
    if (slot) out.set(slot, value);
    else unknown.push(key);
  }
  if (unknown.length) {
    const known = slots.map((s) => `"${s.id}" (${s.text})`).join(', ');
    throw new RelayError('INVALID_PARAMS', `answers has key(s) ${unknown.map((k) => `"${k}"`).join(', ')} that match no waiting question; the questions are ${known}.`);
  }
  return out;
}

async function answerQuestionBox(ctx: PageContext, r: ThreadPageReader, box: Box, values: Map<QuestionSlot, string>): Promise<void> {
  const url = ctx.doc.location.href;
  const slots = [...values.keys()].filter((s) => s.box === box);
  const questionCount = box.interaction.questions?.length ?? 1;
  const groups = all(box.box, r.question).filter((q) => first(q, r.questionText));
  if (groups.length > 1 || questionCount > 1) {
    const missing = (box.interaction.questions ?? []).filter((q) => !slots.some((s) => s.id === q.id));
    if (missing.length) throw new RelayError('INVALID_PARAMS', `these questions need an answer too (they are answered together): ${missing.map((q) => `"${q.id}" (${q.text})`).join(', ')}.`);
    for (const slot of slots) {
      const value = values.get(slot) as string;
      const group = groups.find((g) => r.questionId.some((a) => g.getAttribute(a) === slot.id)) ?? groups.find((g) => norm(cleanText(first(g, r.questionText))) === norm(slot.text));
      const choice = group ? all(group, r.questionChoice).find((c) => norm(cleanText(c)) === norm(value)) : undefined;
      if (!clickable(choice ?? null)) {
        throw new RelayError('INVALID_PARAMS', `"${value}" is not one of the choices for "${slot.text}": ${slot.options.join(', ') || 'none shown'}.`);
      }
      pointerClick(choice as HTMLElement);
    }
    const submit = await ctx.waitFor(() => {
      const b = first(box.box, r.questionsSubmit);
      return clickable(b) ? b : null;
    }, 1500);
    if (!submit) throw new RelayError('SELECTOR_NOT_FOUND', `the questions' Submit button (${r.questionsSubmit[0]}) was not found or stayed disabled on ${url}`);
    pointerClick(submit);
    return;
  }
  const value = values.get(slots[0] as QuestionSlot) as string;
  const option = all(box.box, r.questionChoice).find((o) => norm(cleanText(o)) === norm(value));
  if (clickable(option ?? null)) {
    pointerClick(option as HTMLElement);
    return;
  }
  const field = first(box.box, ctx.set.interactionField) as HTMLElement | null;
  if (!field) throw new RelayError('SELECTOR_NOT_FOUND', `the answer field of the question was not found on ${url} (selector set ${ctx.set.name})`);
  typeInto(ctx, field, value);
  const send = await ctx.waitFor(() => {
    const b = first(box.box, ctx.set.interactionSend);
    return clickable(b) ? b : null;
  }, 1000);
  if (!send) throw new RelayError('SELECTOR_NOT_FOUND', `the question's Send button was not found or stayed disabled on ${url} (selector set ${ctx.set.name})`);
  pointerClick(send);
}

/**
 * Answers the boxes a reply is for, then waits until the page took it (the boxes are gone).
 * The page has no place for an approval's reason or a sign-in message: those are not typed.
 */
export async function answerBoxes(ctx: PageContext, r: ThreadPageReader, targets: Box[], reply: ThreadReply, timeoutMs = 8000): Promise<void> {
  const url = ctx.doc.location.href;
  if (reply.kind === 'answers') {
    const values = assignAnswers(targets, reply.answers);
    const boxes = targets.filter((b) => [...values.keys()].some((s) => s.box === b));
    for (const box of boxes) await answerQuestionBox(ctx, r, box, values);
    targets = boxes;
  } else {
    const [box] = targets as [Box];
    const candidates = reply.kind === 'connected' ? r.authDone : reply.kind === 'approve' ? ctx.set.interactionApprove : ctx.set.interactionDeny;
    const button = first(box.box, candidates);
    if (!clickable(button)) {
      throw new RelayError('SELECTOR_NOT_FOUND', `the ${reply.kind === 'connected' ? "I've connected" : reply.kind === 'approve' ? 'Approve' : 'Deny'} button (${candidates[0]}) was not found or is disabled on ${url}`);
    }
    pointerClick(button);
  }
  // By id, not by element: the page may redraw the box (disabled while the reply travels).
  const ids = new Set(targets.map((t) => t.interaction.followupUuid));
  const waitingNow = () => {
    const turns = turnsOf(ctx.doc, ctx.set);
    const last = turns.at(-1);
    return last ? boxesOf(last, turns.length - 1, ctx, r).some((b) => ids.has(b.interaction.followupUuid)) : false;
  };
  const gone = await ctx.waitFor(() => !waitingNow(), timeoutMs);
  if (!gone) throw new RelayError('TIMEOUT', `the page did not take the reply within ${timeoutMs / 1000} s (it still shows the question on ${url})`);
}

/** `threads.respond` in the page: finds what the reply is for, answers it, says which turn goes on. */
export async function respondInThread(
  ctx: PageContext,
  session: ThreadSession,
  r: ThreadPageReader,
  params: { followupUuid?: string; reply: ThreadReply },
): Promise<Submitted> {
  const threadId = session.threadId ?? '';
  const turns = turnsOf(ctx.doc, ctx.set);
  const index = turns.length - 1;
  const turn = turns[index];
  const boxes = turn ? boxesOf(turn, index, ctx, r) : [];
  let jsonText: string | undefined;
  if (params.followupUuid && !boxes.some((b) => b.interaction.followupUuid === params.followupUuid)) {
    // An id from the thread JSON the page does not carry: find its question's text there.
    const reading = session.cached() ?? (session.mayFetch() ? await session.reading() : undefined);
    jsonText = reading?.source === 'json' ? reading.turns.at(-1)?.interactions.find((i) => i.followupUuid === params.followupUuid)?.text : undefined;
  }
  const targets = targetsOf(boxes, params.reply, params.followupUuid, threadId, jsonText);
  await answerBoxes(ctx, r, targets, params.reply);
  for (const t of targets) session.acted(t.interaction.followupUuid);
  return { threadId, url: ctx.doc.location.href, turn: Math.max(0, index) };
}
