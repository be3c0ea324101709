import { RelayError } from '../../protocol/error/relay-error';
import { REPLY_KIND_FOR, replyTargets } from '../../protocol/threads/thread-replies';
import type { ThreadAnswer, ThreadReply } from '../../protocol/threads/threads';
import type { ThreadInteraction, ThreadReply as PanelReply } from '../../protocol/watch';
import type { ThreadPageReader } from '../../selectors/thread-schema';
import { typeInto } from '../composer/composer';
import type { PageContext } from '../dom/context';
import { all, cleanText, first, isDisabled, isHidden, pointerClick, probeMiss } from '../dom/dom';
import { turnsOf } from '../dom/turns';
import { type Box, boxesOf, pendingInteractions, readerMiss } from '../checkpoints/thread-boxes';
import { stopIfCancelled, type Submitted } from './thread-actions';
import type { ThreadSession } from './thread-session';

/**
 * Answering what a task waits on, in the page: which box a reply is for (by followup_uuid or by
 * kind), which question each answer is for, then the clicks and typing a person would do, until
 * the page took it. Used by `threads.respond` (the answer/confirm/notify tools) and by
 * `page.respond` (the side panel, and a Deep Research answer's questions).
 */

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function clickable(el: Element | null): el is HTMLElement {
  return !!el && !isDisabled(el) && !isHidden(el);
}

const INSIDE = { within: ' inside the box that waits' };

/** A control that is not there is a miss naming its probe; one that is there but stays disabled is the page refusing. */
function missingOrDisabled(found: Element | null, what: string, url: string, miss: () => RelayError): RelayError {
  if (!found) return miss();
  return new RelayError('AGENT_ERROR', `${what} stayed ${isHidden(found) ? 'hidden' : 'disabled'} on ${url}: Perplexity did not take the reply; read_thread shows what waits now.`);
}

/**
 * The boxes a reply is for, by the one rule of lib/protocol/threads/thread-replies.ts (the MCP side applies
 * the same one before it sends): by followup_uuid (the page's id, else the JSON's found by its words
 * when exactly one box has them), else by kind.
 */
export function targetsOf(boxes: Box[], reply: ThreadReply, followupUuid: string | undefined, threadId: string, jsonText?: string): Box[] {
  if (boxes.length === 0) throw new RelayError('INVALID_PARAMS', `thread "${threadId}" has nothing waiting for an answer now (read_thread shows its state).`);
  const prompts = boxes.map((box) => ({ ...box.interaction, box }));
  const picked = replyTargets(prompts, REPLY_KIND_FOR[reply.kind], followupUuid, threadId, () => jsonText);
  if ('problem' in picked) throw new RelayError('INVALID_PARAMS', picked.problem);
  return picked.targets.map((t) => t.box);
}

interface QuestionSlot {
  box: Box;
  id: string;
  text: string;
  options: string[];
}

/** Which question each answer is for (keys: question ids or texts; one question takes one answer under any key). */
export function assignAnswers(targets: Box[], answers: Record<string, ThreadAnswer>): Map<QuestionSlot, ThreadAnswer> {
  const slots: QuestionSlot[] = targets.flatMap((box) =>
    (box.interaction.questions ?? [{ id: box.interaction.followupUuid, text: box.interaction.text }]).map((q) => ({
      box,
      id: q.id,
      text: q.text,
      options: 'options' in q && q.options ? q.options : [],
    })),
  );
  const entries = Object.entries(answers)
    .map(([k, v]): [string, ThreadAnswer] => [k, Array.isArray(v) ? v.filter((c) => c.trim() !== '') : v])
    .filter(([, v]) => (Array.isArray(v) ? v.length > 0 : v.trim() !== ''));
  if (entries.length === 0) throw new RelayError('INVALID_PARAMS', 'answers is empty: give an answer for each question.');
  const out = new Map<QuestionSlot, ThreadAnswer>();
  if (slots.length === 1 && entries.length === 1) {
    out.set(slots[0] as QuestionSlot, (entries[0] as [string, ThreadAnswer])[1]);
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

/** The choices of one answer: each of a multi-select's, or the one answer. */
const choicesOf = (value: ThreadAnswer): string[] => (Array.isArray(value) ? value : [value]);

/** The boxes the page's latest turn shows now. */
function boxesNow(ctx: PageContext, r: ThreadPageReader): Box[] {
  const last = turnsOf(ctx.doc, ctx.set).at(-1);
  return last ? boxesOf(last, last.index, ctx, r) : [];
}

/**
 * A box as the page shows it now, found by its id: answering one box may redraw the others, and a page that
 * listens at its root (as React does) takes no click on an element it dropped.
 */
function liveBox(ctx: PageContext, r: ThreadPageReader, box: Box): Element | null {
  if (box.box.isConnected) return box.box;
  const now = boxesNow(ctx, r);
  if (!derived(r, box)) return now.find((b) => b.interaction.followupUuid === box.interaction.followupUuid)?.box ?? null;
  // An id the reader derived from the words counts the boxes before with the same words, so it changes once one of
  // them is answered and names another box: trusted no more; the one box alike, if there is exactly one.
  const same = now.filter((b) => alike(b, box));
  return same.length === 1 ? (same[0] as Box).box : null;
}

/** The box's id is the reader's, derived from its words (the page gave it none). */
const derived = (r: ThreadPageReader, box: Box) => !r.boxId.some((a) => box.box.hasAttribute(a));
/** Two boxes of one kind with the same words. */
const alike = (a: Box, b: Box) => a.interaction.type === b.interaction.type && norm(a.interaction.text) === norm(b.interaction.text);

/** The box's element as the page shows it now; refused when it left the page before anything was done in it. */
function liveRootOf(ctx: PageContext, r: ThreadPageReader, box: Box): Element {
  const root = liveBox(ctx, r, box);
  if (root) return root;
  throw new RelayError('AGENT_ERROR', `"${box.interaction.text.slice(0, 120)}" left the page before it could be answered (nothing was sent for it, on ${ctx.doc.location.href}); read_thread shows what waits now.`);
}

async function answerQuestionBox(ctx: PageContext, r: ThreadPageReader, box: Box, values: Map<QuestionSlot, ThreadAnswer>, signal?: AbortSignal): Promise<void> {
  stopIfCancelled(signal);
  const url = ctx.doc.location.href;
  const slots = [...values.keys()].filter((s) => s.box === box);
  box = { ...box, box: liveRootOf(ctx, r, box) };
  const questionCount = box.interaction.questions?.length ?? 1;
  const groups = all(box.box, r.question).filter((q) => first(q, r.questionText));
  if (groups.length > 1 || questionCount > 1) {
    const missing = (box.interaction.questions ?? []).filter((q) => !slots.some((s) => s.id === q.id));
    if (missing.length) throw new RelayError('INVALID_PARAMS', `these questions need an answer too (they are answered together): ${missing.map((q) => `"${q.id}" (${q.text})`).join(', ')}.`);
    for (const slot of slots) {
      const group = groups.find((g) => r.questionId.some((a) => g.getAttribute(a) === slot.id)) ?? groups.find((g) => norm(cleanText(first(g, r.questionText))) === norm(slot.text));
      clickChoices(group ? all(group, r.questionChoice) : [], choicesOf(values.get(slot) as ThreadAnswer), slot);
    }
    const submit = await ctx.waitFor(() => {
      const b = first(liveBox(ctx, r, box) ?? box.box, r.questionsSubmit);
      return clickable(b) ? b : null;
    }, 1500, signal);
    if (!submit) throw missingOrDisabled(first(box.box, r.questionsSubmit), "the questions' Submit button", url, () => readerMiss(r, 'questionsSubmit', url, INSIDE));
    pointerClick(submit);
    return;
  }
  const slot = slots[0] as QuestionSlot;
  const answer = values.get(slot) as ThreadAnswer;
  if (Array.isArray(answer) && answer.length > 1) {
    // Several choices of one question: each is picked, then the box's Submit sends them together.
    clickChoices(all(box.box, r.questionChoice), answer, slot);
    const submit = await ctx.waitFor(() => {
      const b = first(liveBox(ctx, r, box) ?? box.box, r.questionsSubmit);
      return clickable(b) ? b : null;
    }, 1500, signal);
    if (!submit) throw missingOrDisabled(first(box.box, r.questionsSubmit), "the question's Submit button", url, () => readerMiss(r, 'questionsSubmit', url, INSIDE));
    pointerClick(submit);
    return;
  }
  const value = choicesOf(answer)[0] as string;
  const option = all(box.box, r.questionChoice).find((o) => norm(cleanText(o)) === norm(value));
  if (clickable(option ?? null)) {
    pointerClick(option as HTMLElement);
    return;
  }
  const field = first(box.box, ctx.set.interactionField) as HTMLElement | null;
  if (!field) throw probeMiss(ctx.set, 'interactionField', url, INSIDE);
  await typeInto(ctx, field, value, signal);
  const send = await ctx.waitFor(() => {
    const b = first(liveBox(ctx, r, box) ?? box.box, ctx.set.interactionSend);
    return clickable(b) ? b : null;
  }, 1000, signal);
  if (!send) throw missingOrDisabled(first(box.box, ctx.set.interactionSend), "the question's Send button", url, () => probeMiss(ctx.set, 'interactionSend', url, INSIDE));
  pointerClick(send);
}

/** Clicks each wanted choice among `choices`, by its exact text; any that is not there is refused before a click. */
function clickChoices(choices: Element[], wanted: string[], slot: QuestionSlot): void {
  const picked = wanted.map((value) => {
    const choice = choices.find((c) => norm(cleanText(c)) === norm(value));
    if (!clickable(choice ?? null)) throw new RelayError('INVALID_PARAMS', `"${value}" is not one of the choices for "${slot.text}": ${slot.options.join(', ') || 'none shown'}.`);
    return choice as HTMLElement;
  });
  for (const choice of picked) pointerClick(choice);
}

/**
 * Answers the boxes a reply is for, then waits until the page took it (the boxes are gone).
 * The page has no place for an approval's reason or a sign-in message: those are not typed.
 */
export async function answerBoxes(
  ctx: PageContext,
  r: ThreadPageReader,
  targets: Box[],
  reply: ThreadReply,
  timeoutMs = 8000,
  signal?: AbortSignal,
  /** Each box as its answer is sent (a later box may still fail). */
  onAnswered?: (box: Box) => void,
): Promise<void> {
  stopIfCancelled(signal);
  const url = ctx.doc.location.href;
  const before = boxesNow(ctx, r);
  if (reply.kind === 'answers') {
    const values = assignAnswers(targets, reply.answers);
    const boxes = targets.filter((b) => [...values.keys()].some((s) => s.box === b));
    for (const [i, box] of boxes.entries()) {
      try {
        await answerQuestionBox(ctx, r, box, values, signal);
        onAnswered?.(box);
      } catch (error) {
        // Boxes before this one were answered: said, so nobody answers them again.
        const cause = RelayError.from(error);
        throw i === 0 ? cause : new RelayError(cause.code, `${cause.message} (${i} of the ${boxes.length} boxes, those before it, were answered and sent)`, cause.data);
      }
    }
    targets = boxes;
  } else {
    const [found] = targets as [Box];
    const box = { ...found, box: liveRootOf(ctx, r, found) };
    const candidates = reply.kind === 'connected' ? r.authDone : reply.kind === 'approve' ? ctx.set.interactionApprove : ctx.set.interactionDeny;
    const button = first(box.box, candidates);
    if (!clickable(button)) {
      const miss = () =>
        reply.kind === 'connected'
          ? readerMiss(r, 'authDone', url, INSIDE)
          : probeMiss(ctx.set, reply.kind === 'approve' ? 'interactionApprove' : 'interactionDeny', url, INSIDE);
      throw missingOrDisabled(button, `the ${reply.kind === 'connected' ? "I've connected" : reply.kind === 'approve' ? 'Approve' : 'Deny'} button`, url, miss);
    }
    pointerClick(button);
  }
  // By id, not by element: the page may redraw the box (disabled while the reply travels). A derived id may name another
  // box alike once one is answered: those are counted instead, gone when as many fewer show as were answered.
  const waiting = (now: Box[]) =>
    targets.some((t) =>
      derived(r, t)
        ? now.filter((b) => alike(b, t)).length > before.filter((b) => alike(b, t)).length - targets.filter((o) => alike(o, t)).length
        : now.some((b) => b.interaction.followupUuid === t.interaction.followupUuid),
    );
  const gone = await ctx.waitFor(() => !waiting(boxesNow(ctx, r)), timeoutMs);
  if (!gone) throw new RelayError('TIMEOUT', `the page did not take the reply within ${timeoutMs / 1000} s (it still shows the question on ${url})`);
}

/** `threads.respond` in the page: finds what the reply is for, answers it, says which turn goes on. */
export async function respondInThread(
  ctx: PageContext,
  session: ThreadSession,
  r: ThreadPageReader,
  params: { followupUuid?: string; reply: ThreadReply },
  signal?: AbortSignal,
): Promise<Submitted> {
  stopIfCancelled(signal);
  const threadId = session.threadId ?? '';
  // The page's own index of its latest turn (older turns of a long thread are unmounted).
  const turn = turnsOf(ctx.doc, ctx.set).at(-1);
  const index = turn?.index ?? -1;
  const boxes = turn ? boxesOf(turn, index, ctx, r) : [];
  let jsonText: string | undefined;
  if (params.followupUuid && !boxes.some((b) => b.interaction.followupUuid === params.followupUuid)) {
    // An id from the thread JSON the page does not carry: find its question's text there.
    const reading = session.cached() ?? (session.mayFetch() ? await session.reading() : undefined);
    jsonText = reading?.source === 'json' ? reading.turns.at(-1)?.interactions.find((i) => i.followupUuid === params.followupUuid)?.text : undefined;
  }
  const targets = targetsOf(boxes, params.reply, params.followupUuid, threadId, jsonText);
  // A box answered is acted on even when a later one fails: a lagging JSON still listing it is not taken as current.
  await answerBoxes(ctx, r, targets, params.reply, undefined, signal, (box) => session.acted(box.interaction.followupUuid));
  // Both ids: the page's, and the one the caller used (the JSON's), so a lagging JSON still listing it is not taken as current.
  for (const t of targets) session.acted(t.interaction.followupUuid);
  if (params.followupUuid) session.acted(params.followupUuid);
  return { threadId, url: ctx.doc.location.href, turn: Math.max(0, index) };
}

/** The panel's words for a reply that does not fit what waits. */
function check(kind: ThreadInteraction['type'], reply: PanelReply): void {
  const text = reply.kind === 'answer' || reply.kind === 'answers';
  if (kind === 'ask_user_question' && !text) throw new RelayError('INVALID_PARAMS', 'This is a question: answer it with text, not approve/deny.');
  if (kind === 'confirm_action' && reply.kind !== 'approve' && reply.kind !== 'deny') throw new RelayError('INVALID_PARAMS', 'This is a confirmation: approve or deny it.');
  if (kind === 'auth_required' && reply.kind !== 'connected') throw new RelayError('INVALID_PARAMS', 'This is a sign-in: open its link, sign in, then say it is done.');
  if (kind === 'interaction_required' || kind === 'two_factor_required') throw new RelayError('INVALID_PARAMS', 'Only Perplexity can complete this step: open the Perplexity tab.');
}

/**
 * `page.respond`: answers one pending interaction of the current turn from the side panel: a
 * suggested answer is clicked, other text is typed and sent, several questions are chosen and
 * submitted together, a confirmation gets Approve or Deny, a sign-in "I've connected". Resolves
 * once the page took it.
 */
export async function respond(ctx: PageContext, r: ThreadPageReader, interactionId: string, reply: PanelReply, timeoutMs = 5000): Promise<{ ok: boolean }> {
  const url = ctx.doc.location?.href ?? '';
  const pending = pendingInteractions(ctx.doc, ctx.set, r).find((p) => p.interaction.id === interactionId);
  if (!pending) {
    throw new RelayError('INVALID_PARAMS', `That question is no longer waiting for an answer on ${url} (id ${interactionId}).`);
  }
  check(pending.interaction.type, reply);
  const asThread: ThreadReply =
    reply.kind === 'answer'
      ? { kind: 'answers', answers: { [pending.box.interaction.questions?.[0]?.id ?? interactionId]: reply.text } }
      : reply.kind === 'connected'
        ? { kind: 'connected', message: '' }
        : reply;
  await answerBoxes(ctx, r, [pending.box], asThread, timeoutMs);
  return { ok: true };
}
