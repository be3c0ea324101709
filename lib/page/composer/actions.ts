import { RelayError } from '../../protocol/error/relay-error';
import { conversationKey, isConversationPath } from '../../protocol/urls';
import { conversationIdOf, sameConversation } from '../../protocol/threads/thread-ids';
import { composerOf, composerText, shownComposer, submit, typeInto } from './composer';
import type { PageContext } from '../dom/context';
import { first, probeMiss } from '../dom/dom';
import type { PageWatcher, Snapshot } from '../answer/observer';
import { questionKey, questionMatch } from '../answer/question';
import { isPlaceholder, readAnswer, readQuestionNow, stopButton } from '../answer/reader';
import { type Turn, turnsOf } from '../dom/turns';

export { typePrompt, submit } from './composer';

/**
 * What a later wait binds to: the turn this ask created, the conversation it is in and
 * its question's key. `afterTurn` and `baselineUrl` (the state before submitting) stay for
 * callers that bind the old way.
 */
export interface AskHandle {
  afterTurn: number;
  baselineUrl: string;
  turnIndex: number;
  conversationUrl: string;
  questionKey: string;
  /** Length and head of the previous last answer, for diagnostics. */
  previousAnswerKey: string;
  submittedAt: number;
  via: 'button' | 'enter';
}

export interface AskOptions {
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** How long an earlier answer still being written may delay the typing. */
  busyWaitMs?: number;
  /** How long the page has to show the new turn after Submit. */
  confirmMs?: number;
  /**
   * The page may answer a submit without a turn (a Computer task refused before sending: no
   * credits, no access). True ends the confirmation at once; the handle's turnIndex is then -1.
   */
  answeredOtherwise?: () => boolean;
  /** Asked when no turn showed within the confirmation's time and the page kept the prompt: the page refused it. */
  refusedAtEnd?: () => boolean;
  /**
   * Whether the page's own ask stream for this question (its key, lib/page/answer/question.ts) opened at or after
   * `since` (issue 30): the page took the prompt, whatever its turn's hooks look like.
   */
  streamTook?: (key: string, since: number) => boolean;
}

const BUSY_WAIT_MS = 90_000;
const CONFIRM_MS = 10_000;
/** A prompt the page took (its composer emptied) has this many times confirmMs more to show its turn. */
const TAKEN_FACTOR = 5;

function answerKey(ctx: PageContext): string {
  const last = turnsOf(ctx.doc, ctx.set).at(-1);
  if (!last) return '';
  const text = readAnswer(last, ctx.set);
  return `${text.length}:${text.slice(0, 64)}`;
}

function cancelledAsk(): RelayError {
  return new RelayError('CANCELLED', 'The ask was cancelled; nothing was typed or submitted after the cancel.');
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledAsk();
}

/** Goes to an empty thread inside the page (SPA link), never by reloading: that would end us. */
async function openNewThread(ctx: PageContext, signal?: AbortSignal): Promise<void> {
  const onEmptyHome = () => turnsOf(ctx.doc, ctx.set).length === 0 && !isConversationPath(ctx.doc.location.pathname);
  if (onEmptyHome()) return;
  const link = first(ctx.doc, ctx.set.newThread) as HTMLElement | null;
  if (!link) throw probeMiss(ctx.set, 'newThread', ctx.doc.location.href);
  link.click();
  const ok = await ctx.waitFor(() => onEmptyHome() && first(ctx.doc, ctx.set.composer), 5000, signal);
  if (!ok) throw new RelayError('TIMEOUT', `a new thread did not open within 5 s on ${ctx.doc.location.href}`);
}

function answering(ctx: PageContext): boolean {
  return stopButton(ctx.doc, ctx.set, turnsOf(ctx.doc, ctx.set).at(-1) ?? null) !== null;
}

/**
 * The page takes no prompt while it writes an answer (its Submit is gone or disabled, Enter does
 * nothing): typing then would only leave the prompt in the composer, unsent. Wait for it to end.
 */
async function untilPageTakesPrompts(ctx: PageContext, options: AskOptions): Promise<void> {
  if (!answering(ctx)) return;
  const { href } = ctx.doc.location;
  const asked = conversationIdOf(href);
  const writing = lastQuestion(ctx);
  const waitMs = options.busyWaitMs ?? BUSY_WAIT_MS;
  options.onProgress?.(`Perplexity is still answering in this tab; the prompt will be typed once that answer ends (waiting up to ${Math.round(waitMs / 1000)} s).`);
  const free = await ctx.waitFor(() => !answering(ctx), waitMs, options.signal);
  if (!free) {
    throw new RelayError(
      'AGENT_ERROR',
      `Perplexity is still answering the previous question in this tab after ${Math.round(waitMs / 1000)} s, and it takes no new prompt until that ends; nothing was typed. ` +
        'Wait for that answer (comet_wait) or stop it (comet_stop), then ask again.',
      { notSent: true },
    );
  }
  // The prompt was asked for the conversation the page showed, the worker's last check included: one opened in the page
  // meanwhile (the sidebar, another agent) is not where it goes. From a page of no conversation (home, `/search/new`)
  // the answer being written moves the page to its own thread, and the prompt follows it only while that answer's
  // question is still the page's last, whatever the address (a Space, `/computer`, New thread are no conversation
  // either) (review 10, router; review 11b, F1; review 11c, W1). The other page is not named: at the public door a
  // thread's address is the person's library.
  const moved = asked === undefined ? writing === undefined || !stillLast(ctx, writing) : conversationIdOf(ctx.doc.location.href) !== asked;
  if (moved) {
    throw new RelayError(
      'AGENT_ERROR',
      `The tab left ${conversationKey(href)} while this prompt waited for an answer to end; nothing was typed. Call again once the tab shows the conversation it is for.`,
      { notSent: true },
    );
  }
}

/** The question of the page's last turn, as a key (a fold's ellipsis left out); undefined when it cannot be read. */
function lastQuestion(ctx: PageContext): string | undefined {
  const last = turnsOf(ctx.doc, ctx.set).at(-1);
  return last && !isPlaceholder(last, ctx.set) ? questionKey(readQuestionNow(last, ctx.set).replace(/\s*…\s*$/, '')) || undefined : undefined;
}

/** Whether the page's last turn still shows the question `key`, folded or not. */
function stillLast(ctx: PageContext, key: string): boolean {
  const last = turnsOf(ctx.doc, ctx.set).at(-1);
  return last !== undefined && !isPlaceholder(last, ctx.set) && questionMatch(readQuestionNow(last, ctx.set), key) === 'same';
}

/** How long a composer the page dropped between the typing and the submit has to come back. */
const REMOUNT_MS = 3000;

/**
 * The page emptied the composer we submitted through. One mounted in its place is no word on our prompt (a re-mount that
 * lost the text, the submit never heard) unless the page also went from no conversation (home, a new thread) to one: a
 * new thread's own, which a prompt sent from there opens.
 */
function emptied(ctx: PageContext, typedInto: HTMLElement, from: string): boolean {
  if (typedInto.isConnected) return composerText(typedInto).trim() === '';
  return conversationIdOf(from) === undefined && conversationIdOf(ctx.doc.location.href) !== undefined;
}

/**
 * The composer to submit through once the prompt is typed: the same one, or the one the page re-mounted in its place
 * meanwhile, typed into again unless it kept the prompt (2026-12-06: the Enter or click went to the dropped one, and the
 * ask then read the dropped composer as emptied and said "do not send it again" of a prompt never sent).
 */
async function composerHolding(ctx: PageContext, typedInto: HTMLElement, prompt: string, from: string, signal?: AbortSignal): Promise<HTMLElement> {
  if (typedInto.isConnected) return typedInto;
  // A page between two composers (a route settling) gets a moment to show the next; none then is the probe's miss.
  const now = (await ctx.waitFor(() => first(ctx.doc, ctx.set.composer) as HTMLElement | null, REMOUNT_MS, signal)) ?? composerOf(ctx);
  // A composer of another conversation (the person opened one meanwhile) is not where the prompt was asked.
  if (!sameConversation(ctx.doc.location.href, from)) {
    throw new RelayError('AGENT_ERROR', `The tab left ${conversationKey(from)} for another conversation between the typing and the submit. Call again once the tab shows the conversation it is for`);
  }
  if (questionKey(composerText(now)) !== questionKey(prompt)) await typeInto(ctx, now, prompt, signal);
  return now;
}

/**
 * The turn this ask created: after the turns that were there (or anywhere, if the page moved to a
 * new conversation), showing this question. A turn whose question cannot be read (virtualized, or
 * folded to a few short lines) counts only once the page also emptied the composer.
 */
function askedTurn(ctx: PageContext, before: Snapshot, key: string, composer: HTMLElement): number | null {
  const turns = turnsOf(ctx.doc, ctx.set);
  const moved = conversationKey(ctx.doc.location.href) !== conversationKey(before.url);
  const from = moved ? 0 : before.turnCount;
  const empty = emptied(ctx, composer, before.url);
  // By the page's own index: a long thread keeps only its latest turns mounted.
  for (let i = turns.length - 1; i >= 0 && (turns[i] as Turn).index >= from; i--) {
    const turn = turns[i] as Turn;
    const match = isPlaceholder(turn, ctx.set) ? 'unknown' : questionMatch(readQuestionNow(turn, ctx.set), key);
    if (match === 'same' || (match === 'unknown' && empty && i === turns.length - 1)) return turn.index;
  }
  return null;
}

/**
 * Puts back what the composer held, if it still holds what we typed (a cancelled or refused ask),
 * or anything at all when the typing itself was cut short (`partial`: part of our text is there).
 * Says whether the composer holds the person's draft again.
 */
async function restoreComposer(ctx: PageContext, composer: HTMLElement, held: string, typed: string, partial = false): Promise<boolean> {
  if (!composer.isConnected) return false;
  const now = composerText(composer);
  if (partial ? now === held : questionKey(now) !== questionKey(typed)) return partial;
  try {
    await typeInto(ctx, composer, draftOf(held));
    return true;
  } catch {
    // the editor refused; leaving our text is the lesser harm than failing the report
    return false;
  }
}

/** A draft as it reads back, without the line ending an editor's last paragraph reads with. */
const draftOf = (held: string) => held.replace(/\n+$/, '');

/**
 * After the page took the prompt: the person's unsent draft goes back into the composer (the page's
 * own, which a new conversation mounts afresh), once the page has emptied it. What the person typed
 * since is theirs too: a composer holding anything but nothing or our prompt is left alone. The page
 * gets as long to mount a free composer as it got to show the turn (review 2026-12-04 #18).
 */
async function putBackDraft(ctx: PageContext, held: string, prompt: string, options: AskOptions, waitMs: number): Promise<void> {
  const draft = draftOf(held);
  if (!draft.trim()) return;
  const free = (el: HTMLElement) => {
    const now = composerText(el).trim();
    return now === '' || questionKey(now) === questionKey(prompt);
  };
  const composer = await ctx.waitFor(() => {
    const el = first(ctx.doc, ctx.set.composer) as HTMLElement | null;
    return el && free(el) ? el : null;
  }, waitMs);
  const tell = (why: string) =>
    options.onProgress?.(`The prompt was sent; your unsent draft in the composer (${draft.length} characters) could not be put back: ${why}.`);
  if (!composer) return tell('the composer is gone or holds new text');
  try {
    await typeInto(ctx, composer, draft);
  } catch (error) {
    tell(RelayError.from(error).message);
  }
}

/**
 * Types the prompt and submits it, once the page takes prompts, and confirms the page took *this*
 * prompt: a new turn showing this question. The composer sends exactly the prompt (typeInto checks
 * it holds nothing else), and the person's unsent draft goes back into it afterwards. A cancel stops
 * it at every step: nothing is typed or submitted after it, and text typed before it is replaced by
 * what the composer held.
 */
export async function ask(
  ctx: PageContext,
  watcher: PageWatcher,
  params: { prompt: string; newChat?: boolean },
  options: AskOptions = {},
): Promise<AskHandle> {
  const { signal } = options;
  if (!params.prompt.trim()) throw new RelayError('INVALID_PARAMS', 'prompt is empty');
  throwIfCancelled(signal);
  if (params.newChat) await openNewThread(ctx, signal);
  await untilPageTakesPrompts(ctx, options);
  throwIfCancelled(signal);

  const before = watcher.snapshot();
  const key = questionKey(params.prompt);
  const previousAnswerKey = answerKey(ctx);
  const submittedAt = Date.now();
  let composer = composerOf(ctx);
  const held = composerText(composer);
  let typed = false;
  let via: 'button' | 'enter';
  try {
    await typeInto(ctx, composer, params.prompt, signal);
    typed = true;
    throwIfCancelled(signal);
    composer = await composerHolding(ctx, composer, params.prompt, before.url, signal);
    via = await submit(ctx, composer, 1000, signal, () => sameConversation(ctx.doc.location.href, before.url));
  } catch (error) {
    const restored = await restoreComposer(ctx, shownComposer(ctx, composer) ?? composer, held, params.prompt, !typed);
    const relayError = RelayError.from(error);
    if (relayError.code === 'CANCELLED') throw cancelledAsk();
    // Nothing was sent: say so, and where the person's draft is.
    const draft = !draftOf(held).trim() ? '' : restored ? ' Your draft in the composer was put back.' : ' Your draft in the composer could not be put back.';
    throw new RelayError(relayError.code, `${relayError.message}. Nothing was sent.${draft}`, { ...relayError.data, notSent: true });
  }

  const confirmMs = options.confirmMs ?? CONFIRM_MS;
  /** The turn after the ones the page had (a new conversation's first): the turn a prompt the page took is. */
  const next = () => (conversationKey(ctx.doc.location.href) === conversationKey(before.url) ? before.turnCount : 0);
  const probe = () => {
    if (options.answeredOtherwise?.()) return { index: -1 };
    const index = askedTurn(ctx, before, key, composer);
    if (index !== null) return { index };
    // The page's own stream for this question opened: it took the prompt, as the next turn — a turn whose blocks the
    // set does not recognise yet is still this one.
    if (options.streamTook?.(key, submittedAt)) return { index: next() };
    return null;
  };
  // Submitted: a cancel now cannot take the prompt back, and must not take the person's draft with it (review
  // 2026-12-05, page #1): the draft goes back (into the emptied composer, or over our prompt if the page never took it).
  const confirm = (ms: number) =>
    ctx.waitFor(probe, ms, signal).catch(async (error: unknown) => {
      if (RelayError.from(error).code !== 'CANCELLED') throw error;
      await putBackDraft(ctx, held, params.prompt, options, confirmMs);
      throw new RelayError('CANCELLED', 'The ask was cancelled after its prompt was submitted: the page may have taken it; check with comet_poll (read_thread for a Computer thread) before sending it again.');
    });
  let found = await confirm(confirmMs);
  // The composer emptied: the page took the prompt and its turn is slow to show (#11 of the 2026-12-02
  // review). Wait longer, and never say "not taken": the agent would send it twice.
  if (!found && emptied(ctx, composer, before.url)) {
    found = await confirm(confirmMs * TAKEN_FACTOR);
    if (!found) {
      // Sent all the same: the person's draft goes back as on success (#18 of the 2026-12-04 review).
      await putBackDraft(ctx, held, params.prompt, options, confirmMs);
      // The comet_wait it asks for follows this prompt's turn, not the session's previous one.
      const taken = { turnIndex: next(), conversationUrl: ctx.doc.location.href, questionKey: key, askedAt: submittedAt };
      throw new RelayError('TIMEOUT', 'the page took the prompt (its composer emptied) but shows no turn for it yet; do not send it again: call comet_wait', { taken });
    }
  }
  // The prompt still in the composer, no turn for it, and the page shows a refusal (one that read the same before the
  // submit included): refused, for the reason the page gives.
  const kept = composer.isConnected && questionKey(composerText(composer)) === key;
  if (!found && kept && options.refusedAtEnd?.()) found = { index: -1 };
  if (!found) {
    await restoreComposer(ctx, shownComposer(ctx, composer) ?? composer, held, params.prompt);
    throw new RelayError(
      'AGENT_ERROR',
      `the prompt was typed and submitted but the page did not take it within ${confirmMs / 1000} s (no new turn showing this question) on ${ctx.doc.location.href}`,
    );
  }
  await putBackDraft(ctx, held, params.prompt, options, confirmMs);
  return {
    afterTurn: before.turnCount,
    baselineUrl: before.url,
    turnIndex: found.index,
    conversationUrl: ctx.doc.location.href,
    questionKey: key,
    previousAnswerKey,
    submittedAt,
    via,
  };
}
