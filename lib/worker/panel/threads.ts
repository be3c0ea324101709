import { clip } from '../../protocol/text/clip';
import { callerName } from '../../protocol/doors';
import type { ThreadEntry, ThreadStatus } from '../../protocol/panel';
import { eventWords, panelStatusOf } from '../../protocol/threads/thread-events';
import type { ThreadCheckpoint } from '../../protocol/threads/threads';
import { conversationIdOf, sameConversation, sameThreadId, threadIdOfUrl } from '../../protocol/threads/thread-ids';
import { conversationKey } from '../../protocol/urls';
import { interactionShown, type ThreadInteraction, type WatchSnapshot, type WatchStatus } from '../../protocol/watch';
import { toWatched } from '../../page/checkpoints/thread-model';
import { questionKey, questionMatch } from '../../page/answer/question';
import type { CallEvent } from '../calls/router';
import { INTERRUPTED } from './activity';

/**
 * The side panel's thread list: threads agents started (from the page.ask / page.wait calls the
 * router sees), the conversation open in the driven tab (from page.watch snapshots), and the
 * conversations the page links to. An agent's ask has no URL until the page creates the thread;
 * it is bound to the first new conversation the page then shows (or to the one it was asked in).
 */
export interface AgentThread {
  key: string;
  askId: string;
  title: string;
  url?: string;
  /** Page URL when the prompt was submitted (from page.ask's result). */
  baselineUrl?: string;
  /** An agent's prompt as the page shows a question again (questionKey): what lets a page's turn be known as its. */
  questionKey?: string;
  newChat: boolean;
  status: ThreadStatus;
  latestStep: string;
  error?: string;
  startedBy: string;
  /** The session that started it (its origin's clientId): two clients of one name are two callers (review 15c, F4). */
  startedById?: string;
  updatedAt: number;
  /** Threads of the Computer family (threads.*): the thread's id, its latest event and what it waits on. */
  threadId?: string;
  event?: string;
  interactions?: ThreadInteraction[];
  /**
   * The call whose run the card's state shows (a page.ask being sent or held for approval, a threads.start, a
   * threads.send), until its end event: a card restored with one was cut by the restart.
   */
  runningCall?: string;
}

const MAX_AGENT_THREADS = 50;
const MAX_LISTED = 80;
/** A card's title, in characters. */
const TITLE_MAX = 120;

export { conversationKey };

/** An address that shows one conversation (not home, nor `/search/new`, which asks a new one). */
function isConversation(url: string | undefined): url is string {
  return conversationIdOf(url ?? '') !== undefined;
}

const FROM_WATCH: Record<WatchStatus, ThreadStatus> = {
  idle: 'unknown',
  working: 'working',
  waiting: 'waiting',
  done: 'done',
  error: 'error',
};

export function snapshotStatus(snap: WatchSnapshot): ThreadStatus {
  return snap.interactions.length > 0 ? 'waiting' : FROM_WATCH[snap.status];
}

type WaitResultLike = { status?: string; url?: string; steps?: string[]; currentStep?: string; error?: string; questionText?: string };

export class ThreadBook {
  private agent: AgentThread[] = [];
  private page?: { snap: WatchSnapshot; at: number };

  load(saved: unknown): void {
    if (!Array.isArray(saved)) return;
    const known = new Set(this.agent.map((t) => t.key));
    const valid = saved
      .filter((t): t is AgentThread => t && typeof t.key === 'string' && typeof t.askId === 'string' && !known.has(t.key))
      // Its call died with the worker, as the feed says: neither waiting for an approval no card asks any more, nor
      // still being sent; whether it reached the page is not known (review 15f, F4).
      .map(({ runningCall, ...t }) => (runningCall === undefined ? t : { ...t, status: 'unknown' as const, latestStep: INTERRUPTED }));
    this.agent = [...this.agent, ...valid].slice(0, MAX_AGENT_THREADS);
  }

  saved(): AgentThread[] {
    return this.agent.map((t) => ({ ...t }));
  }

  /** Feeds router call events; returns true when the list changed. */
  onCall(event: CallEvent): boolean {
    const { request } = event;
    if (request.method.startsWith('threads.')) return this.onThreadCall(event);
    if (!request.origin?.tool) return false;
    const params = (request.params ?? {}) as Record<string, unknown>;
    if (request.method === 'page.ask') {
      if (event.phase === 'start') {
        this.agent.unshift({
          key: `ask:${request.id}`,
          askId: request.id,
          title: clip(String(params.prompt ?? 'Prompt'), TITLE_MAX),
          newChat: Boolean(params.newChat),
          status: 'working',
          latestStep: 'Sending the prompt…',
          startedBy: callerName(request.origin),
          startedById: request.origin.clientId,
          questionKey: questionKey(String(params.prompt ?? '')),
          updatedAt: event.at,
          runningCall: request.id,
        });
        if (this.agent.length > MAX_AGENT_THREADS) this.agent.length = MAX_AGENT_THREADS;
        return true;
      }
      const thread = this.agent.find((t) => t.askId === request.id);
      if (!thread) return false;
      thread.updatedAt = event.at;
      thread.runningCall = undefined;
      const taken = event.ok ? undefined : event.data?.taken;
      if (taken) {
        // Failed after the page took the prompt (its composer emptied, no turn shown yet): Perplexity answers it, and the
        // agent's comet_wait follows it here (review 15f, F9).
        thread.latestStep = 'Prompt sent; its turn does not show yet';
        // The address the page showed as it took it: the conversation, or a new chat's page that is yet to name one.
        if (isConversation(taken.conversationUrl)) this.bind(thread, taken.conversationUrl);
        else thread.baselineUrl = taken.conversationUrl;
        return true;
      }
      if (!event.ok) {
        // Never sent (refused, denied, no composer): no thread came of it; the feed shows why.
        this.agent = this.agent.filter((t) => t !== thread);
        return true;
      }
      const { baselineUrl, conversationUrl } = (event.result ?? {}) as { baselineUrl?: string; conversationUrl?: string };
      thread.baselineUrl = baselineUrl;
      thread.latestStep = 'Prompt sent';
      // The conversation the page showed the prompt's turn in (page.ask's own word), else, for a follow-up in an open
      // conversation, that conversation.
      if (isConversation(conversationUrl)) this.bind(thread, conversationUrl);
      else if (!thread.newChat && isConversation(baselineUrl)) this.bind(thread, baselineUrl);
      else if (this.page) this.onSnapshot(this.page.snap, this.page.at);
      return true;
    }
    if ((request.method === 'page.wait' || request.method === 'page.poll') && event.phase === 'end') {
      const result = (event.ok ? event.result : undefined) as WaitResultLike | undefined;
      // A poll reads the page's latest turn, whoever asked it: it moves its conversation's card, or its session's card
      // still without one when the turn shows that card's question (review 15f, F5: polls were not read at all).
      const thread = request.method === 'page.wait' ? this.threadFor(result?.url, request.origin.clientId) : this.polledCard(result, request.origin.clientId);
      if (!thread) return false;
      thread.updatedAt = event.at;
      if (!event.ok) return false; // a failed wait says nothing about the thread itself
      if (isConversation(result?.url) && !thread.url) this.bind(thread, result.url);
      const status = result?.status;
      thread.status =
        status === 'completed' || status === 'stopped' ? 'done' : status === 'error' ? 'error' : status === 'waiting' ? 'waiting' : 'working';
      if (status === 'error') thread.error = result?.error;
      const step = result?.currentStep || result?.steps?.at(-1);
      if (status === 'stopped') thread.latestStep = 'Stopped';
      else if (step) thread.latestStep = step;
      else if (status === 'completed') thread.latestStep = 'Answered';
      return true;
    }
    return false;
  }

  /**
   * The Computer thread family: a threads.start lists the task at once and binds it to its thread
   * once started; waits and reads bring its event, status and what it waits on; an answer or a
   * follow-up sets it working again. Threads agents use that this worker never saw start (after a
   * restart) are listed from their first call.
   */
  private onThreadCall(event: CallEvent): boolean {
    const { request } = event;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const by = request.origin ? callerName(request.origin) : undefined;
    if (request.method === 'threads.start') {
      if (event.phase === 'start') {
        if (!request.origin?.tool) return false;
        this.agent.unshift({
          key: `start:${request.id}`,
          askId: request.id,
          title: clip(String(params.message ?? 'Computer task'), TITLE_MAX),
          newChat: true,
          status: 'working',
          latestStep: 'Starting a Computer task…',
          startedBy: by ?? 'An MCP client',
          startedById: request.origin.clientId,
          updatedAt: event.at,
          runningCall: request.id,
        });
        if (this.agent.length > MAX_AGENT_THREADS) this.agent.length = MAX_AGENT_THREADS;
        return true;
      }
      const started = this.agent.find((t) => t.askId === request.id && !t.threadId);
      if (!started) return false;
      started.updatedAt = event.at;
      started.runningCall = undefined;
      const result = (event.ok ? event.result : undefined) as { threadId?: string; url?: string; notSent?: boolean; text?: string } | undefined;
      if (!event.ok) this.agent = this.agent.filter((t) => t !== started);
      else if (result?.notSent) Object.assign(started, { status: 'error', latestStep: 'Not sent', error: result.text });
      else if (result?.threadId && result.url) {
        started.threadId = result.threadId;
        started.latestStep = 'Started';
        this.bind(started, result.url);
      }
      return true;
    }
    const threadId = typeof params.threadId === 'string' ? params.threadId : '';
    if (!threadId) return false;
    let thread = this.byThread(threadId);
    if (!thread) {
      // Listed once a call on it succeeded: an id that names no thread (a guess, a typo) never is.
      if (!request.origin?.tool || event.phase !== 'end' || !event.ok) return false;
      thread = { key: `thread:${threadId}`, askId: request.id, title: threadId, newChat: false, status: 'unknown', latestStep: '', startedBy: by ?? 'An MCP client', startedById: request.origin.clientId, threadId, updatedAt: event.at };
      this.agent.unshift(thread);
      if (this.agent.length > MAX_AGENT_THREADS) this.agent.length = MAX_AGENT_THREADS;
    }
    thread.updatedAt = event.at;
    if (event.phase === 'start') {
      if (request.method !== 'threads.send') return true;
      Object.assign(thread, { status: 'working', latestStep: 'Sending a follow-up…', interactions: [], event: undefined, error: undefined, runningCall: request.id });
      return true;
    }
    if (thread.runningCall === request.id) thread.runningCall = undefined;
    if (!event.ok) return true;
    if (request.method === 'threads.respond') this.answered(threadId, event.at);
    if (request.method === 'threads.wait' || request.method === 'threads.state') this.onCheckpoint(event.result as ThreadCheckpoint, event.at);
    return true;
  }

  /** A thread of the Computer family reached a checkpoint (or a read of it came back). */
  onCheckpoint(checkpoint: ThreadCheckpoint, at: number): void {
    let thread = this.byThread(checkpoint.threadId);
    if (!thread) return;
    if (thread.threadId !== checkpoint.threadId) {
      // A task re-summarized after its run: its card follows it to the new slug (review 14d, 1).
      thread.threadId = checkpoint.threadId;
      if (checkpoint.url) thread = this.bind(thread, checkpoint.url);
    } else if (!thread.url && checkpoint.url) this.bind(thread, checkpoint.url);
    if (checkpoint.title) thread.title = clip(checkpoint.title, TITLE_MAX);
    thread.event = checkpoint.event ?? undefined;
    thread.status = panelStatusOf(checkpoint.event, checkpoint.interactions.some((i) => i.requiresUserResponse));
    thread.interactions = checkpoint.interactions.map((i) => interactionShown(toWatched(i)));
    thread.latestStep = describeEvent(checkpoint);
    thread.error = thread.status === 'error' ? checkpoint.text.slice(0, 500) : undefined;
    thread.updatedAt = Math.max(thread.updatedAt, at);
  }

  /**
   * The page took an answer to the thread's question (threads.respond succeeded, an agent's or the panel's own): the
   * task works on it, and what it asked waits no more (review 15f, F2).
   */
  answered(threadId: string, at: number): boolean {
    const thread = this.byThread(threadId);
    if (!thread) return false;
    Object.assign(thread, { status: 'working', latestStep: 'Answer sent', interactions: [], event: undefined });
    thread.updatedAt = Math.max(thread.updatedAt, at);
    return true;
  }

  /** A new step of a Computer thread, as its wait streams it. */
  onThreadStep(threadId: string, step: string, at: number): boolean {
    const thread = this.byThread(threadId);
    if (!thread) return false;
    thread.latestStep = step;
    if (thread.status !== 'waiting') thread.status = 'working';
    thread.updatedAt = Math.max(thread.updatedAt, at);
    return true;
  }

  /** The card of a Computer thread, under any of its ids (a task keeps its card when its slug changes). */
  byThread(threadId: string): AgentThread | undefined {
    return this.agent.find((t) => t.threadId !== undefined && sameThreadId(t.threadId, threadId));
  }

  /** The Computer thread listed under this key, if it is one. */
  threadIdOf(key: string): string | undefined {
    return this.agent.find((t) => t.key === key)?.threadId;
  }

  /** An agent's ask is held for the person's approval (true) or the hold ended (false). */
  awaitingApproval(askId: string, waiting: boolean): void {
    const thread = this.agent.find((t) => t.askId === askId && !t.url);
    if (!thread) return;
    thread.status = waiting ? 'waiting' : 'working';
    thread.latestStep = waiting ? 'Waiting for your approval' : 'Sending the prompt…';
  }

  /** Feeds a page.watch snapshot of the driven tab. */
  onSnapshot(snap: WatchSnapshot, at: number): void {
    this.page = { snap, at };
    if (!isConversation(snap.url)) return;
    const key = conversationKey(snap.url);
    let thread = this.agent.find((t) => t.key === key);
    // A task the tab shows under its new slug is its card's (review 14e, 2): the card follows it there.
    const renamed = thread ? undefined : this.agent.find((t) => t.url !== undefined && sameConversation(t.url, snap.url));
    if (renamed) {
      if (renamed.threadId) renamed.threadId = threadIdOfUrl(snap.url) ?? renamed.threadId;
      thread = this.bind(renamed, snap.url);
    }
    if (!thread) {
      // The newest agent ask still without a URL, submitted elsewhere, takes this new conversation when the page shows
      // its question there: a conversation the person opened meanwhile is theirs (review 15f, F5).
      const pending = this.agent.find(
        (t) => !t.url && t.baselineUrl !== undefined && t.status !== 'error' && conversationKey(t.baselineUrl) !== key && showsQuestion(snap.question, t),
      );
      if (pending) thread = this.bind(pending, snap.url);
    }
    if (!thread) return;
    if (snap.title) thread.title = clip(snap.title, TITLE_MAX);
    const status = snapshotStatus(snap);
    if (status !== 'unknown') thread.status = status;
    if (snap.latestStep) thread.latestStep = snap.latestStep;
    else if (status === 'done' && thread.latestStep.startsWith('Prompt')) thread.latestStep = 'Answered';
    if (snap.error) thread.error = snap.error;
    thread.updatedAt = Math.max(thread.updatedAt, at);
  }

  /** The driven tab is gone or changed: its live state no longer applies. */
  forgetPage(): void {
    this.page = undefined;
  }

  list(): ThreadEntry[] {
    const snap = this.page?.snap;
    const currentKey = snap && isConversation(snap.url) ? conversationKey(snap.url) : undefined;
    const entries: ThreadEntry[] = this.agent.map((t) => ({
      key: t.key,
      title: t.title,
      ...(t.url ? { url: t.url } : {}),
      status: t.status,
      latestStep: t.latestStep,
      ...(t.error ? { error: t.error } : {}),
      startedBy: t.startedBy,
      updatedAt: t.updatedAt,
      current: t.key === currentKey,
      ...(t.event ? { event: t.event } : {}),
      ...(t.threadId ? { threadId: t.threadId } : {}),
      interactions: t.interactions ?? (t.key === currentKey && snap ? snap.interactions.map(interactionShown) : []),
    }));
    const seen = new Set(entries.map((e) => e.key));
    if (snap && currentKey && !seen.has(currentKey)) {
      seen.add(currentKey);
      entries.push({
        key: currentKey,
        title: clip(snap.title || snap.question || new URL(snap.url).pathname, TITLE_MAX),
        url: snap.url,
        status: snapshotStatus(snap),
        latestStep: snap.latestStep,
        ...(snap.error ? { error: snap.error } : {}),
        updatedAt: this.page?.at,
        current: true,
        interactions: snap.interactions.map(interactionShown),
      });
    }
    entries.sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    for (const c of snap?.conversations ?? []) {
      const key = conversationKey(c.url);
      if (seen.has(key) || !isConversation(c.url)) continue;
      seen.add(key);
      // By its address alone: a link in an answer may carry a query that asks a prompt (`?q=`; review 13b, R13b-1).
      entries.push({ key, title: clip(c.title, TITLE_MAX), url: key, status: 'unknown', latestStep: '', current: false, interactions: [] });
    }
    return entries.slice(0, MAX_LISTED);
  }

  /** Interactions waiting in the thread with this key (the open thread's, or a Computer thread's last checkpoint's). */
  interactionsOf(key: string): WatchSnapshot['interactions'] {
    return this.list().find((t) => t.key === key)?.interactions ?? [];
  }

  /** The card of the conversation `url` names, if it names one and a card has it. */
  private cardOf(url: string | undefined): AgentThread | undefined {
    return isConversation(url) ? this.agent.find((t) => t.key === conversationKey(url)) : undefined;
  }

  /** A poll's card: its conversation's, else its session's card with no conversation yet whose question the turn shows. */
  private polledCard(result: WaitResultLike | undefined, clientId: string): AgentThread | undefined {
    if (!result) return undefined;
    return this.cardOf(result.url) ?? this.agent.find((t) => t.startedById === clientId && !t.url && showsQuestion(result.questionText, t));
  }

  /**
   * A wait's card: its conversation's, else the one its own session started and has not seen end; never a card of
   * another conversation than the one the wait names (review 15f, F9: an older card took a new prompt's answer).
   */
  private threadFor(url: string | undefined, clientId: string): AgentThread | undefined {
    const named = isConversation(url) ? url : undefined;
    return (
      this.cardOf(named) ??
      this.agent.find((t) => t.startedById === clientId && (!t.url || (t.status === 'working' && (named === undefined || sameConversation(t.url, named)))))
    );
  }

  /** Gives a pending ask its conversation; a follow-up merges into the thread already listed. */
  private bind(thread: AgentThread, url: string): AgentThread {
    const key = conversationKey(url);
    const existing = this.agent.find((t) => t.key === key && t !== thread);
    if (existing) {
      existing.status = thread.status;
      existing.latestStep = thread.latestStep;
      existing.updatedAt = Math.max(existing.updatedAt, thread.updatedAt);
      existing.askId = thread.askId;
      existing.startedBy = thread.startedBy;
      existing.startedById = thread.startedById;
      // A Computer thread's id stays with its card: approvals name the thread by it.
      existing.threadId ??= thread.threadId;
      existing.error = undefined;
      this.agent = this.agent.filter((t) => t !== thread);
      this.agent.sort((a, b) => b.updatedAt - a.updatedAt);
      return existing;
    }
    thread.key = key;
    thread.url = url;
    return thread;
  }
}


/** Positive evidence that a page's turn is a card's prompt: its question, as the page shows it, is the prompt's. */
function showsQuestion(shown: string | undefined, thread: AgentThread): boolean {
  return thread.questionKey !== undefined && questionMatch(shown ?? '', thread.questionKey) === 'same';
}

function describeEvent(c: ThreadCheckpoint): string {
  if (c.event === null) return c.steps.at(-1) ?? 'Working';
  if (c.event === 'sleep' && c.wakeAt) return `Sleeping until ${c.wakeAt}`;
  return eventWords(c.event);
}
