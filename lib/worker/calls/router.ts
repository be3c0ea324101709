import { type ErrorCode, type ErrorData, RelayError } from '../../protocol/errors';
import type { Envelope, ProgressSink, Request, Trace } from '../../protocol/messages';
import { isMethodName, type MethodResult, methods } from '../../protocol/methods';
import type { Tabs } from 'webextension-polyfill';
import { extractVisibleText } from '../../page/dom/visible-text';
import { questionKey, questionMatch } from '../../page/answer/question';
import { categorizeTab, isPerplexityUrl, PERPLEXITY_HOME, samePage } from '../../protocol/urls';
import { threadIdOfUrl } from '../../protocol/threads/thread-ids';
import { accessNeed, doorRefused, type Need, opensLibrary, type Target, threadTarget } from '../../protocol/access';
import { doorOf } from '../../protocol/doors';
import { traceClock } from '../../protocol/ports';
import { browser } from '../browser/ext';
import { describeTabUse, otherTabsAllowed, otherTabsRefused, publicLibraryRefused, publicScreenshotsRefused, screenshotsRefused } from './other-tabs';
import { composerDraft, DRAFT_UNKNOWN, draftInTheWay, draftUnknown } from './draft';
import { PageGoneDuringAsk, type PageHub } from './pages';
import type { TabService } from './tabs';
import { type ModeResult, modeAgain, type PageMode, type PollResult, type WaitResult } from '../../protocol/page/page-methods';
import { EarlyJson, type JsonAnswers, type TabFetch, UNREAD_TURN_STEP } from '../threads/json-answer';
import type { DoorThreads } from '../threads/door-threads';
import type { ThreadCalls } from '../threads/thread-calls';
import { ModeTurn, WAIT_NOTE_HOLD_MS } from './mode-turn';
import { REPAIRABLE, type Repairs } from './repairs';

/**
 * Answers requests that arrive from the host: tab and browser calls here in the worker, `page.*`
 * calls in the driven tab's content script. Params are parsed at this edge; every request can be
 * cancelled by id; every failure goes back as a typed error.
 */

export type { ProgressSink } from '../../protocol/messages';

export interface RouterDeps {
  tabs: TabService;
  pages: PageHub;
  /** `threads.*` / `account.*`: each thread in its own tab (lib/worker/threads/thread-calls.ts). */
  threads?: ThreadCalls;
  /** The threads the public door started: there, every other thread is the person's library (access.ts `threadTarget`). */
  publicThreads?: DoorThreads;
  /** comet_poll's and comet_wait's finished answer from the thread JSON (lib/worker/threads/json-answer.ts); without it the page's text answers. */
  answers?: JsonAnswers;
  /** Finding the answer again from the thread JSON when the reader misses (lib/worker/calls/repairs.ts); without it a miss stays a miss. */
  repairs?: Repairs;
  status(): Promise<unknown>;
  /** Told about every call from start to end (the side panel's activity feed, threads). */
  onCall?(event: CallEvent): void;
  /**
   * The person's policy (read-only, approvals; lib/worker/panel/policy.ts), applied to every request
   * from the host once its params are parsed. Throws to refuse; may wait for an approval.
   */
  authorize?(request: Request, params: Record<string, unknown>, signal: AbortSignal, progress: ProgressSink): Promise<ApprovedTab | undefined> | Promise<void>;
  /**
   * The person's settings for a need the access table gives a call's target once its tab is known
   * (`other-tabs`: reading, capturing or listing tabs that are not Perplexity; `public-screenshots`),
   * after the browser grant was checked here; `what` says what the call would do. Without this hook
   * the defaults apply: other tabs are read unasked, the public door takes no screenshot.
   */
  authorizeTarget?(request: Request, need: Need, what: string, signal: AbortSignal, progress: ProgressSink): Promise<void>;
  /**
   * The person's policy again, for a call that waited its turn behind others (another prompt, another call on its
   * thread): Read-only or Require approval turned on meanwhile refuses it (never held there, with others queued behind
   * it); an approval it had stands.
   */
  recheck?(request: Request, params: Record<string, unknown>, approved: ApprovedTab | undefined): Promise<ApprovedTab | undefined>;
  /** What the person's settings refuse outright (Read-only, their stop switch): refused before anything of theirs is read. */
  refuseIfDenied?(request: Request, params: Record<string, unknown>): Promise<void>;
}

/** The tab an approval card named for a held page call: what the person approved is that tab's conversation. */
export interface ApprovedTab {
  tabId: number;
  url: string;
  title: string;
  /**
   * The page the card was drawn on (PageHub.document): while the tab keeps that page, a card on a page of no
   * conversation holds for the one that page names for itself; another page loaded since is held exactly.
   */
  page?: object;
  /** How many prompts had been posted to that page when the card was drawn (PageHub.askCount): another client's since names its own conversation there. */
  prompts?: number;
  /** Who asked the held call (CallOrigin.clientId): its own session's prompts since are its conversation. */
  client?: string;
}

/** Who a prompt is from, for toPage: its approval, its session (PageHub counts posts by it), the policy's last word. */
interface AskedBy {
  approved?: ApprovedTab;
  asker?: string;
  /** An agent's call (the person's own, from the side panel, is theirs to make as they like). */
  byAgent?: boolean;
  /** The person's policy again, just before the prompt is posted: throws to refuse. */
  recheck?: () => Promise<void>;
}

export type CallEvent =
  | { phase: 'start'; request: Request; at: number }
  /** `data`: what a failure carries besides its words (a prompt the page took, `taken`; one never sent, `notSent`). */
  | { phase: 'end'; request: Request; at: number; ok: boolean; result?: unknown; error?: string; data?: ErrorData };

/** How long a mode switch waits for the account's mode limits before it goes without them. */
const MODE_LIMIT_MS = 3_000;
/** How long a new chat's page may take to replace the page it leaves (as a navigation's own wait). */
const NEW_CHAT_LOAD_MS = 20_000;

export class Router {
  private readonly running = new Map<string, AbortController>();
  private readonly modeTurn = new ModeTurn();

  constructor(private readonly deps: RouterDeps) {}

  /**
   * Runs one request from the host. It is registered (and so cancellable) at once, before
   * `startup` (the worker's restored state) is awaited: a cancel that arrives meanwhile stops it
   * before it runs instead of finding nothing to cancel.
   */
  async handle(request: Request, reply: (message: Envelope) => void, startup: Promise<unknown> = Promise.resolve()): Promise<void> {
    const controller = new AbortController();
    this.running.get(request.id)?.abort(); // ids are unique per host lifetime; never let two share one
    this.running.set(request.id, controller);
    await startup.catch(() => {});
    if (controller.signal.aborted) {
      if (this.running.get(request.id) === controller) this.running.delete(request.id);
      return;
    }
    this.deps.onCall?.({ phase: 'start', request, at: Date.now() });
    // Asked for by the bench's profile only: the page's and the port's times, and ours around them.
    const trace: Trace | undefined = request.trace ? {} : undefined;
    const started = trace ? performance.now() : 0;
    try {
      const result = await this.dispatch(
        request,
        controller.signal,
        (message, holdMs) => reply({ kind: 'progress', id: request.id, message, ...(holdMs ? { holdMs } : {}) }),
        false,
        trace,
      );
      const traced = trace ? { trace: { ...trace, worker: performance.now() - started, workerSentAt: traceClock() } } : {};
      if (!controller.signal.aborted) reply({ kind: 'result', id: request.id, result, ...traced });
      this.deps.onCall?.({ phase: 'end', request, at: Date.now(), ok: true, result });
    } catch (error) {
      const relayError = RelayError.from(error, 'EVALUATION_FAILED');
      if (!controller.signal.aborted) reply({ kind: 'error', id: request.id, error: relayError.toPayload() });
      this.deps.onCall?.({ phase: 'end', request, at: Date.now(), ok: false, error: `[${relayError.code}] ${relayError.message}`, ...(relayError.data ? { data: relayError.data } : {}) });
    } finally {
      if (this.running.get(request.id) === controller) this.running.delete(request.id);
    }
  }

  cancel(id: string): void {
    this.running.get(id)?.abort();
  }

  /**
   * The host link dropped: every caller is gone, so nothing may go on in their name (a held prompt
   * must not be approved and submitted with nobody waiting). Replies could not be delivered anyway.
   */
  abortAll(reason: string): void {
    for (const controller of this.running.values()) controller.abort(new RelayError('HOST_DISCONNECTED', reason));
    this.running.clear();
  }

  /**
   * A call the person makes from the side panel: the same parsing and the same path to the page
   * as an agent's call, without the agent policy (the person is the one it protects).
   */
  local(method: string, params: unknown, signal: AbortSignal = new AbortController().signal): Promise<unknown> {
    return this.dispatch({ kind: 'request', id: `local-${++this.localSequence}`, method, params }, signal, () => {}, true);
  }

  private localSequence = 0;

  private async dispatch(request: Request, signal: AbortSignal, progress: ProgressSink, trusted = false, trace?: Trace): Promise<unknown> {
    const { method } = request;
    if (!isMethodName(method)) {
      throw new RelayError('INVALID_PARAMS', `The extension has no method "${method}". Are the extension and comet-relay the same version?`);
    }
    const parsed = methods[method].params.safeParse(request.params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RelayError('INVALID_PARAMS', `${method}: ${issue?.path.join('.') || 'params'}: ${issue?.message}`);
    }
    const params = parsed.data as Record<string, unknown>;
    throwIfCancelled(signal);
    let approved: ApprovedTab | undefined;
    if (!trusted) {
      // The access table first (lib/protocol/access.ts): what the caller's door never allows is
      // refused before the person's policy is asked (and before anything is held for approval).
      const door = doorOf(request.origin);
      const target = threadTarget(door, method, Boolean(this.deps.publicThreads?.has(params.threadId)));
      const need = accessNeed({ door, method, params, target });
      if (need === 'never') throw doorRefused(door, request.origin?.tool, method, target);
      // The library at the public door: only with the person's setting (lib/protocol/access.ts), a call that opens
      // some of it besides its method's target too (a page of it, a task in a Project).
      const opens = opensLibrary(door, method, params);
      if (need === 'public-library' || opens) {
        const what = opens ?? `read the Perplexity library (${method})`;
        if (!this.deps.authorizeTarget) throw publicLibraryRefused(what);
        await this.deps.authorizeTarget(request, 'public-library', what, signal, progress);
      }
      // A new chat that would throw away the person's draft is refused before the person is asked to approve it; one
      // their settings refuse is refused first, the draft unread (review 13b, R13b-5: Read-only read the composer).
      if (method === 'page.ask' && params.newChat) {
        await this.deps.refuseIfDenied?.(request, params);
        await this.refuseOverDraft(signal);
      }
      approved = (await this.deps.authorize?.(request, params, signal, progress)) ?? undefined;
    }
    // An approval can land in the same instant as a cancel or a dropped link: the cancel wins.
    throwIfCancelled(signal);
    // A new chat or a navigation leaves the page: the tab alone counts, and one loading is no matter (review 10, router).
    const leavesPage = method === 'tabs.navigate' || (method === 'page.ask' && Boolean(params.newChat));
    if (approved) await this.stillApproved(approved, { leavesPage });
    const { tabs } = this.deps;
    switch (method) {
      case 'browser.status':
        return this.deps.status();
      // The policy above was the whole of it: the file is stored by comet-relay, not in the browser.
      case 'attachments.admit':
        return {};
      case 'tabs.list':
        return this.listTabs(request, signal, progress, trusted);
      case 'tabs.switch': {
        const tabId = String(params.tabId ?? '');
        const tab = await browser.tabs.get(Number(tabId)).catch(() => undefined);
        if (tab && !isPerplexityUrl(tab.url ?? tab.pendingUrl ?? '')) {
          const what = `switch to the tab “${tab.title ?? ''}” (${tab.url ?? ''})`;
          // Its result is that tab's title and URL, which the tab list withholds without the person's grant: the same
          // grant first (review 2026-12-05, worker #6), then the act's own policy.
          if (!(await otherTabsAllowed())) throw otherTabsRefused(`switch to tab ${tabId}, which is not Perplexity`);
          await this.admitTarget(request, 'other-tab', what, signal, progress, trusted);
        }
        return { tab: await tabs.switchTo(tabId) };
      }
      case 'tabs.ensurePerplexity':
        return tabs.ensurePerplexity(15_000);
      case 'tabs.navigate':
        // An approved address that asks a prompt goes to the tab its card named, or nowhere: never to another Perplexity
        // tab of the person's when that one left Perplexity meanwhile (review 13b, R13b-4; review 10, router F2).
        return { url: await tabs.navigate(String(params.url), undefined, signal, approved?.tabId) };
      case 'tabs.capture':
        return this.capture(request, params.format as 'png' | 'jpeg', params.quality as number | undefined, signal, progress, trusted);
      case 'page.content':
        return this.pageContent(request, params.maxLength as number, signal, progress, trusted, trace);
      default: {
        if (this.deps.threads?.handles(method)) {
          const stillAllowed = trusted ? undefined : async () => void (await this.stillAllowed(request, params, approved, signal));
          const result = await this.deps.threads.call(method, params, signal, progress, trace, trusted, stillAllowed);
          const started = (result as { threadId?: unknown } | undefined)?.threadId;
          // The public door's own thread, from now on (started, not refused before sending).
          if (method === 'threads.start' && !trusted && doorOf(request.origin) === 'public' && typeof started === 'string') this.deps.publicThreads?.add(started);
          return result;
        }
        // A prompt and a mode switch take the mode's turn (mode-turn.ts). A read of the mode goes at once where the page
        // can answer by looking; one that must open the mode menu or type "/" acts on the composer, and takes the turn
        // (late review #3).
        const read = method === 'page.mode' && params.mode == null;
        if (method !== 'page.ask' && method !== 'page.mode') return this.toPage(method, params, signal, progress, trace);
        if (read) {
          const looked = (await this.toPage(method, { ...params, passive: true }, signal, progress, trace)) as ModeResult;
          if (!looked.acts) return looked;
        }
        const what = method === 'page.ask' ? 'this prompt' : read ? 'this mode read' : 'this mode switch';
        const waiting = () => progress(`Another prompt is being sent in this tab in its own mode; ${what} follows it.`, WAIT_NOTE_HOLD_MS);
        return this.modeTurn.run(signal, waiting, async (waited) => {
          // The person's settings as they are now, after a wait behind another prompt (review 8, many clients M2).
          if (waited && !trusted) approved = await this.stillAllowed(request, params, approved, signal);
          // The approval named a tab and a conversation: still those after a wait behind another prompt, or nothing is
          // sent (worker #2); another session's prompt posted there meanwhile names its own conversation (PageHub counts
          // them by session), so the card follows only its own session's; a new chat needs the tab alone.
          if (approved && waited) await this.stillApproved(approved, { leavesPage });
          const recheck = trusted ? undefined : async () => void (await this.stillAllowed(request, params, approved, signal));
          return this.toPage(method, params, signal, progress, trace, { approved, asker: trusted ? '' : (request.origin?.clientId ?? ''), recheck, byAgent: !trusted });
        });
      }
    }
  }

  /** A page method on the driven tab, with what the worker adds around it: the ask's mode, the JSON and the repairs of a read. */
  private async toPage(method: string, params: Record<string, unknown>, signal: AbortSignal, progress: ProgressSink, trace?: Trace, asked: AskedBy = {}): Promise<unknown> {
    const { approved, asker = '' } = asked;
    const { tabs, pages } = this.deps;
    let forward = params;
    let modeNote = '';
    /** The tab a prompt goes to: the one its mode was set on, found once. */
    let askTab: number | undefined;
    if (method === 'page.ask') {
      // One tab, found once: the one the approval named (checked at dispatch), where a new chat opens, the session's
      // mode is set again and the prompt is typed. Each of those steps is a round trip another agent's tab switch or
      // navigation can land in: after each, still that tab on that page (and as approved), or nothing is sent (review
      // 8, many clients M1; fixes review 2).
      const newChat = Boolean(params.newChat);
      const here = await tabs.pageTab();
      askTab = here;
      // The tab and conversation the approval named, once the page is there (pageTab may wait for one that loads):
      // the tab the call found, and a card drawn on a page of no conversation holds for the one that very page names
      // only while no other page was loaded there and no other prompt sent (stillApproved; fixes review 3 #6 to 7 #2).
      if (approved) await this.stillApproved(approved, { leavesPage: newChat, tab: here });
      const { keepMode, ...rest } = params;
      // Where the prompt was to go, for the check after its mode's round trips: a new chat's home page, which names no
      // conversation whichever page connected there (another agent's navigation may overtake ours: fixes review 7 #1);
      // else the page as it is, its document included. Looked at only when a round trip follows.
      let url: string | undefined;
      let limitsAsked = false;
      let page: object | undefined;
      if (newChat) {
        // A new chat leaves the conversation the tab shows: that happens here, after the
        // approval (which says "in a new thread"), never before it. The page then types into
        // the empty home page the navigation left, in the mode this session chose (the site opens it in Search).
        // Never over the person's unsent draft: the new document would throw it away (review of 2026-12-04, #21).
        // Asked again here: the person may have typed while the approval waited.
        await this.refuseOverDraft(signal, here);
        // A new chat opens in Search, so a kept mode is always set again there: a mode the account cannot use now is
        // refused before the person's conversation is left (review 11e, N2), and not asked about twice.
        if (keepMode && asked.byAgent) {
          await this.refuseUsedUpMode(here, String(keepMode), signal, true);
          limitsAsked = true;
        }
        // The navigation is an act of its own: the person's policy first (review 10, router round 3).
        await asked.recheck?.();
        // Before the navigation only the tab counts (its page is left anyway), and that it is still Perplexity's.
        await this.stillWhereAsked(here, undefined, approved, true, 'a new chat was opened', undefined);
        const left = pages.document(here);
        await tabs.navigate(PERPLEXITY_HOME, undefined, signal, here);
        // The page being left may still have spoken (its own late address change, a pack push) and so looked ready: the
        // prompt goes to the new chat's page, never to it (review 10, router F5).
        if (left !== undefined && pages.document(here) === left) await pages.whenReplaced(here, left, NEW_CHAT_LOAD_MS, signal);
        throwIfCancelled(signal);
        url = PERPLEXITY_HOME;
        await this.stillWhereAsked(here, url, approved, true, 'a new chat was opened', undefined, 'the tab had already opened a new chat');
      } else if (keepMode) {
        const shown = await tabs.drivenTab().catch(() => undefined);
        url = shown?.pendingUrl ?? shown?.url;
        page = pages.document(here);
      }
      // The session's mode is set again here, after the approval and right before the prompt goes, on the page it
      // goes to: another session's mode switch while the approval waited is not the mode this prompt is sent in
      // (review 2026-12-05, worker #5).
      forward = { ...rest, newChat: false };
      // What was done before a refusal, said with it: the person sees why the tab changed.
      const recheck = async () => {
        try {
          await asked.recheck?.();
        } catch (error) {
          const done = [newChat ? 'a new chat had been opened in its tab' : '', modeNote ? `this session's mode, ${String(keepMode)}, had been set` : ''].filter(Boolean);
          throw done.length && error instanceof RelayError ? new RelayError(error.code, `${error.message} (${done.join('; ')}.)`) : error;
        }
      };
      if (keepMode) {
        // The mode switch is an act of its own, after a new chat's page loaded: the person's policy first (review 11c, M1).
        await recheck();
        modeNote = await modeAgain(
          async (p) => {
            // Set again only where the page dropped it: then as comet_mode's own switch, after the account's limits
            // (asked before a new chat's navigation already) and the person's policy as it is after them (review 11e, N1).
            if (p.mode && asked.byAgent && !limitsAsked) {
              await this.refuseUsedUpMode(here, p.mode, signal);
              await recheck();
            }
            return (await pages.request(here, 'page.mode', p, signal, () => {})) as ModeResult;
          },
          keepMode as PageMode,
          (code, message) => new RelayError(code as ErrorCode, message),
        );
        const done = modeNote ? `this session's mode, ${keepMode}, had been set on the tab${newChat ? ', in the new chat it had opened' : ''}` : undefined;
        await this.stillWhereAsked(here, url, approved, newChat, "this session's mode was set again", page, done);
      }
      // The person's policy as it is when the prompt goes, after the tab was found (it may have waited for a page), a new
      // chat loaded and the mode set: Read-only or Require approval turned on meanwhile refuses it (review 10, router F4).
      await recheck();
    }
    const tabId = askTab ?? (await tabs.pageTab());
    // A mode switch sends as a prompt does: the person's policy as it is once its tab is found (pageTab may wait for a
    // page that loads), right before it goes (review 10, router: only the prompt was checked there).
    if (method === 'page.mode' && params.mode != null) {
      await asked.recheck?.();
      // The person's Read-only first, then the account's limits, then the person's policy as it is after their fetch
      // (review 11e, N1: a Read-only turned on during it let the switch go).
      if (asked.byAgent) {
        await this.refuseUsedUpMode(tabId, String(params.mode), signal);
        await asked.recheck?.();
      }
    }
    const started = Date.now();
    // The thread JSON's moments, for the bench's trace: its last fetch's start and end in the page, and its arrival here.
    const fetched: Trace | undefined = trace ? {} : undefined;
    // comet_wait's thread JSON is fetched by the page the moment its wait sees the turn end (EarlyJson).
    const early =
      method === 'page.wait' && this.deps.answers
        ? new EarlyJson(this.deps.answers.firstRequest(), (p, s, t) => pages.request(tabId, 'threads.fetch', p, s, () => {}, t), signal, trace !== undefined)
        : undefined;
    if (early) forward = { ...forward, jsonKey: early.key };
    const fetch: TabFetch = async (path, query, headers) => {
      const taken = await early?.take(path, query, headers);
      if (taken) {
        if (fetched && early?.trace) Object.assign(fetched, early.trace);
        return taken;
      }
      return (await pages.request(tabId, 'threads.fetch', { path, query, headers }, signal, () => {}, fetched)) as { status: number; body: string };
    };
    const run = async (sent: Record<string, unknown> = forward) => {
      const read = await pages.request(tabId, method, sent, signal, progress, trace, asker);
      early?.open();
      return read;
    };
    try {
      const pageCall = (m: string, p: Record<string, unknown>) => pages.request(tabId, m, p, signal, () => {});
      const where = { tabId, url: pages.state(tabId)?.url };
      const result =
        this.deps.repairs && REPAIRABLE.has(method)
          ? await this.deps.repairs.read(method, () => run(), pageCall, fetch, where)
          : await run().catch((error: unknown) => this.askGone(tabId, String(forward.prompt ?? ''), started, error, signal));
      if (modeNote) return { ...(result as object), modeNote };
      if (method !== 'page.poll' && method !== 'page.wait') return result;
      let read = result as PollResult | WaitResult;
      // A page that shows no sign of the turn's state the set knows, and no JSON to ask: the miss, never a guess.
      if (!this.deps.answers) {
        if (read.unconfirmed) throw new RelayError('SELECTOR_MISS', `${read.unconfirmed}: the page shows no sign of this turn's state the selector set knows, and no thread JSON reader is there to ask — ${UNREAD_TURN_STEP}`);
        return result;
      }
      const maxLength = params.maxLength as number | undefined;
      const deadline = started + ((params.timeoutMs as number | undefined) ?? 0);
      for (;;) {
        const turnIndex = 'lastTurnIndex' in read ? read.lastTurnIndex : read.turnIndex;
        // The page said the turn finished (or could not tell): its thread JSON, fetched by the same tab, may hold the answer as written.
        const { stillRunning, ...first } = await this.deps.answers.answer(read, turnIndex, maxLength, fetch);
        let answered = first;
        // A finished answer the page reads otherwise than its JSON: the reader may have found the wrong element (issue 24).
        const again = !stillRunning && this.deps.repairs && (await this.deps.repairs.onDisagreement(read, answered, turnIndex, () => run(), pageCall, fetch, where));
        if (again) {
          const { stillRunning: _again, ...reread } = await this.deps.answers.answer(again as PollResult | WaitResult, turnIndex, maxLength, fetch);
          answered = reread;
        }
        if (trace && fetched?.fetchEndAt !== undefined) Object.assign(trace, { fetchStartAt: fetched.fetchStartAt, fetchEndAt: fetched.fetchEndAt, jsonGotAt: fetched.workerGotAt });
        // The JSON says the turn still runs where the page showed no sign: a wait waits on, for the time its caller gave.
        const left = deadline - Date.now();
        if (!stillRunning || method !== 'page.wait' || left < 100) {
          return method === 'page.wait' ? { ...answered, elapsedMs: Date.now() - started } : answered;
        }
        throwIfCancelled(signal);
        read = (await run({ ...forward, timeoutMs: left })) as WaitResult;
      }
    } finally {
      // An early read nobody took is cancelled in the next task, once the answer is on its way to the caller.
      if (early) setTimeout(() => early.end(), 0);
    }
  }

  /**
   * An agent's switch to a mode Perplexity says the account cannot use now is not made: its rate-limit status, read by
   * the tab that would switch (lib/selectors/account-json.ts `modeLimits`; only modes the reader maps are asked about).
   * Only a body that says so refuses: no answer within MODE_LIMIT_MS, or none about the mode, lets the switch go.
   */
  private async refuseUsedUpMode(tabId: number, mode: string, signal: AbortSignal, newChat = false): Promise<void> {
    const threads = this.deps.threads;
    if (!threads) return;
    const limit = await threads.modeLimit(tabId, mode, AbortSignal.any([signal, AbortSignal.timeout(MODE_LIMIT_MS)])).catch(() => undefined);
    throwIfCancelled(signal);
    if (limit?.available === false) {
      const said = `Perplexity says ${mode} is not available to this account now${limit.remaining === 0 ? ' (0 left)' : ''}`;
      const later = 'this one may come back once its limit resets, or with another plan.';
      throw new RelayError(
        'AGENT_ERROR',
        newChat
          ? `The prompt was not sent and no new chat was opened: this session chose ${mode} mode with comet_mode, and ${said}. Choose another mode with comet_mode, then ask again; ${later}`
          : `${said}, so the mode was not switched. Use another mode; ${later}`,
      );
    }
  }

  /** Refuses, in words, when the tab a new chat would leave holds the person's unsent draft (review of 2026-12-04, #21). */
  private async refuseOverDraft(signal: AbortSignal, tabId?: number): Promise<void> {
    const current = tabId ?? (await this.deps.tabs.pageTab().catch(() => undefined));
    const draft = current === undefined ? undefined : await composerDraft(current, signal);
    throwIfCancelled(signal);
    if (current === undefined) return;
    // A page too busy to say (a dialog up) may hold one: the new chat would throw it away unseen (review 10, router round 3).
    if (draft === DRAFT_UNKNOWN) throw new RelayError('AGENT_ERROR', draftUnknown(current));
    if (draft?.trim()) throw new RelayError('AGENT_ERROR', draftInTheWay(current, draft));
  }

  /**
   * The page that held a `page.ask` went away before it answered (review of 2026-12-04, #17: a hard
   * navigation after the submit). The page that follows in the tab is asked what it shows: when its
   * last question is this prompt, the prompt was taken and the agent is told to read its answer, never
   * to send it again; else the words that it may have been taken stand. Any other error passes through.
   */
  private async askGone(tabId: number, prompt: string, sentAt: number, error: unknown, signal: AbortSignal): Promise<never> {
    if (!(error instanceof PageGoneDuringAsk)) throw error;
    let shown: PollResult | undefined;
    if (await browser.tabs.get(tabId).catch(() => undefined)) {
      try {
        await this.deps.pages.whenReady(tabId, AFTER_ASK_MS, signal);
        shown = (await this.deps.pages.request(tabId, 'page.poll', { maxLength: 1 }, signal, () => {})) as PollResult;
      } catch {
        // no page came, or it cannot be read: the words that say "may" stand
      }
    }
    throwIfCancelled(signal);
    const key = questionKey(prompt);
    if (shown && questionMatch(shown.questionText, key) === 'same') {
      // The comet_wait it asks for follows that turn, not the session's previous ask (review 2026-12-05, worker #1).
      const taken = { turnIndex: shown.lastTurnIndex, conversationUrl: shown.url, questionKey: key, askedAt: sentAt };
      throw new RelayError(
        'AGENT_ERROR',
        `The prompt was taken: the Perplexity page in tab ${tabId} was replaced after it was handed the prompt, and the conversation it shows now (${shown.url}) ends with this prompt. Do not send it again: read its answer with comet_wait (or comet_poll).`,
        { taken },
      );
    }
    throw error;
  }

  /** Whether every prompt posted to the card's page since it was drawn was its own session's (a prompt of another names its own conversation there). */
  private onlyItsOwn(approved: ApprovedTab): boolean {
    const since = this.deps.pages.asksSince(approved.page, approved.prompts ?? 0);
    // undefined: the page no longer remembers them all, so some other session's may be among them.
    return since?.every((asker) => asker === approved.client) ?? false;
  }

  /**
   * A held call runs only on the tab its approval card named, still in the conversation it showed (review 2026-12-05,
   * worker #2): another session's comet_switch_tab, or the person going to another thread, while the card waited must
   * not send the approved prompt somewhere else. A card shown on a page with no conversation yet (the home page) holds
   * for the thread that page becomes. `leavesPage` (a new chat, a navigation): only the tab counts, and a load under way
   * is no matter.
   */
  private async stillApproved(approved: ApprovedTab, how: { exact?: boolean; leavesPage?: boolean; tab?: number; now?: Tabs.Tab } = {}): Promise<void> {
    // `now`: the driven tab as the caller just looked at it.
    const now = how.now ?? (await this.deps.tabs.drivenTab().catch(() => undefined));
    const was = threadIdOfUrl(approved.url);
    // A navigation under way counts where it goes.
    const is = threadIdOfUrl(now?.pendingUrl ?? now?.url);
    // A card shown on a page of no conversation holds for the one that very page names for itself, unless `exact` or
    // another page was loaded in the tab since the card was drawn (fixes review 6 #1), or one is loading (#2).
    const pageKept =
      approved.page !== undefined &&
      this.deps.pages.document(approved.tabId) === approved.page &&
      !now?.pendingUrl &&
      // Another prompt sent there since names its own conversation on that page (fixes review 7 #2).
      (approved.prompts === undefined || this.onlyItsOwn(approved));
    const exact = how.exact || !pageKept;
    // A page of no conversation holds for the one it named itself after a prompt posted on it, never one it was moved to
    // in place (the person's click in Perplexity's sidebar, F1) nor one the person's own prompt made (gap 1).
    const named = threadIdOfUrl(this.deps.pages.namedBy(approved.page));
    const same = how.leavesPage || (was ? is === was : !is || (!exact && is === named));
    // `tab`: the tab the call found for itself, which is where it would go (fixes review 5 #4).
    const found = how.tab === undefined || how.tab === approved.tabId;
    // The post goes to the page the tab has now, not to one still loading (F3): a load under way is not there yet.
    const loading = !how.leavesPage && Boolean(now?.pendingUrl);
    if (now?.id === approved.tabId && found && same && !loading) return;
    const where = !found
      ? `the tab it found is tab ${how.tab}`
      : now?.id === undefined
        ? 'no tab is driven'
        : now.id === approved.tabId
          ? loading && same
            ? `that tab is loading ${now.pendingUrl}`
            : `that tab now shows ${now.url ?? now.pendingUrl ?? ''}`
          : `the driven tab is now tab ${now.id} (${now.url ?? now.pendingUrl ?? ''})`;
    throw new RelayError(
      'PERMISSION_DENIED',
      `The person approved this for tab ${approved.tabId}: “${approved.title}” (${approved.url}), but ${where}, so nothing was sent. Call comet_switch_tab to go back to that tab and call again (it is asked again), or call again to be asked for where it would go now.`,
    );
  }

  /** The person's policy as it is now, for a call that waited its turn (RouterDeps.recheck); the approval it had, or a new one. */
  private async stillAllowed(request: Request, params: Record<string, unknown>, approved: ApprovedTab | undefined, signal: AbortSignal): Promise<ApprovedTab | undefined> {
    const now = (await this.deps.recheck?.(request, params, approved)) ?? approved;
    throwIfCancelled(signal);
    return now;
  }

  /**
   * After a round trip of a prompt's (a new chat opened, its mode set again): the driven tab still `tabId`, a Perplexity
   * page, on the conversation it showed before (`url`; undefined: any, the tab alone counts), and as approved; or
   * nothing is sent, saying what was done already (`done`). The same document (`page`, PageHub.document) that only
   * named its conversation meanwhile is the same place (the tab's own last turn, named late: fixes review 3 #3); a
   * page loaded meanwhile is held to exactly what it was, approved or not (another agent's navigation: 5 #1).
   */
  private async stillWhereAsked(tabId: number, url: string | undefined, approved: ApprovedTab | undefined, newChat: boolean, step: string, page: object | undefined, done?: string): Promise<void> {
    const said = (where: string) =>
      new RelayError('AGENT_ERROR', `The prompt was not sent: it was to go to tab ${tabId}${url ? ` (${url})` : ''}, but while ${step} ${where}${done ? ` (${done})` : ''}. Call comet_ask again to send it where the tab is now.`);
    const now = await this.deps.tabs.drivenTab().catch(() => undefined);
    const sameDocument = page !== undefined && this.deps.pages.document(tabId) === page;
    if (approved) {
      try {
        await this.stillApproved(approved, { exact: !sameDocument, leavesPage: newChat, now });
      } catch (error) {
        throw done && error instanceof RelayError ? new RelayError(error.code, `${error.message} (${done}.)`) : error;
      }
    }
    // A navigation under way counts where it goes (the person's, to another site, is theirs), and is not the same page.
    const nowUrl = now?.pendingUrl ?? now?.url ?? '';
    const samePage = sameDocument && !now?.pendingUrl;
    const [was, is] = [threadIdOfUrl(url), threadIdOfUrl(nowUrl)];
    // A page of no conversation that names one meanwhile: its own last turn, named late. Held to the conversation a prompt
    // of ours named there when the person approved it (the card's rule, above); else the same page is the same place.
    const namedLate = samePage && was === undefined && (!approved || is === threadIdOfUrl(this.deps.pages.namedBy(page)));
    const samePlace = url === undefined || was === is || namedLate;
    if (now?.id !== tabId) throw said(`${now?.id === undefined ? 'no tab is driven' : `the driven tab is tab ${now.id} (${nowUrl})`} (another agent's comet_switch_tab, or the person)`);
    if (categorizeTab(nowUrl) !== 'Main') throw said(`the tab left Perplexity for ${nowUrl}`);
    if (now?.pendingUrl && !newChat) throw said(`the tab is loading ${now.pendingUrl}`);
    if (!samePlace) throw said(`the tab shows another conversation (${nowUrl}): another agent's comet_open_conversation there, or the person's`);
  }

  private async drivenTabOrFail(): Promise<Tabs.Tab & { id: number }> {
    const tab = await this.deps.tabs.drivenTab();
    if (tab?.id === undefined) throw new RelayError('TAB_NOT_FOUND', 'No tab is selected. Call comet_connect or comet_switch_tab first.');
    return tab as Tabs.Tab & { id: number };
  }

  /**
   * A target beyond Perplexity, once the call's tab is known: the access table's need at the
   * caller's door (lib/protocol/access.ts), then the browser grant, then the person's settings.
   * The person's own calls from the panel come through the loopback door.
   */
  private async admitTarget(request: Request, target: Target, what: string, signal: AbortSignal, progress: ProgressSink, trusted: boolean): Promise<void> {
    const door = trusted ? 'loopback' : doorOf(request.origin);
    const need = accessNeed({ door, method: request.method, target });
    if (need === 'never') throw doorRefused(door, request.origin?.tool, request.method, target);
    if (need === 'open' || need === 'policy') return; // decided at dispatch, with the call's own policy
    if (!(await otherTabsAllowed())) throw target === 'screenshot' ? screenshotsRefused() : otherTabsRefused(what);
    if (trusted) return;
    if (this.deps.authorizeTarget) await this.deps.authorizeTarget(request, need, what, signal, progress);
    else if (need === 'public-screenshots') throw publicScreenshotsRefused();
  }

  /**
   * The tab list: Perplexity tabs always; the titles and URLs of other tabs only as reading another
   * tab allows (the grant, Read-only, Require approval). Else they are withheld, counted, and why.
   */
  private async listTabs(request: Request, signal: AbortSignal, progress: ProgressSink, trusted: boolean): Promise<MethodResult<'tabs.list'>> {
    const all = await this.deps.tabs.list();
    const others = all.filter((tab) => !isPerplexityUrl(tab.url));
    if (others.length === 0) return { tabs: all };
    const what = `list the titles and URLs of ${others.length} tab${others.length === 1 ? '' : 's'} that ${others.length === 1 ? 'is' : 'are'} not Perplexity`;
    try {
      await this.admitTarget(request, 'tab-list', what, signal, progress, trusted);
      return { tabs: all };
    } catch (error) {
      const refused = RelayError.from(error);
      if (refused.code !== 'PERMISSION_DENIED' && refused.code !== 'TIMEOUT') throw refused;
      return { tabs: all.filter((tab) => isPerplexityUrl(tab.url)), withheld: { count: others.length, reason: refused.message } };
    }
  }

  /**
   * Perplexity tabs answer through their content script; any other tab through an injected
   * function, once admitted. Which one is decided by the tab's URL, not by whether the script is
   * ready this instant: a Perplexity tab between two pages (a new chat, a reload) is waited for,
   * since a reader injected into the frame that is going away fails ("Frame with ID 0 was removed").
   * The result says which answered, so the MCP tool can fence a web page's words.
   */
  private async pageContent(request: Request, maxLength: number, signal: AbortSignal, progress: ProgressSink, trusted: boolean, trace?: Trace): Promise<unknown> {
    // The sidebar's thread titles are the library: through the public door only with the person's setting, like
    // page.conversations; without it the page's text comes without them (worker review 2026-12-05, F2).
    const library =
      trusted || doorOf(request.origin) !== 'public' ||
      (await (this.deps.authorizeTarget?.(request, 'public-library', 'read the sidebar’s conversations', signal, progress) ?? Promise.reject()).then(
        () => true,
        () => false,
      ));
    const fromPageScript = async (tabId: number, url: string) => {
      const page = (await this.deps.pages.request(tabId, 'page.content', { maxLength, library }, signal, progress, trace)) as object;
      return { ...page, url, source: 'perplexity' };
    };
    const connected = this.deps.tabs.connectedDrivenTab();
    if (connected && categorizeTab(connected.url) === 'Main') return fromPageScript(connected.id, connected.url);
    const tab = await this.drivenTabOrFail();
    const url = tab.url ?? '';
    const perplexity = isPerplexityUrl(url);
    if (perplexity && (this.deps.pages.state(tab.id) || categorizeTab(url) === 'Main')) {
      // A tab whose script has not said ready yet is waited for (pageTab).
      return fromPageScript(this.deps.pages.state(tab.id) ? tab.id : await this.deps.tabs.pageTab(), url);
    }
    // The injected reader takes the whole page, sidebar and all: without the library, only the page script reads
    // (day-7h K2). It is waited for, and a page that never loads it is said so, with what to do (day-7i I2).
    if (perplexity && !library) {
      await this.deps.pages.whenReady(tab.id, 5_000, signal);
      return fromPageScript(tab.id, url);
    }
    if (!perplexity) await this.admitTarget(request, 'other-tab', describeTabUse('read', tab), signal, progress, trusted);
    let read: ReturnType<typeof extractVisibleText> | undefined;
    try {
      const [injection] = await browser.scripting.executeScript({ target: { tabId: tab.id }, func: extractVisibleText, args: [maxLength] });
      read = injection?.result as typeof read;
    } catch (error) {
      throw new RelayError('EVALUATION_FAILED', `Could not read tab ${tab.id} (${url}): ${(error as Error).message}`);
    }
    // What was decided on (and approved, which can take minutes) is the page at `url`: a tab that
    // moved on meanwhile shows someone else's page, which nobody allowed to be read.
    if (!read || !samePage(read.url, url)) throw tabMoved('read', url, read?.url);
    const { url: _readFrom, ...page } = read;
    return { ...page, url, source: perplexity ? 'perplexity' : 'other-tab' };
  }

  /** Chromium captures any tab only with the optional all-sites permission; other tabs are also under the person's policy. */
  private async capture(
    request: Request,
    format: 'png' | 'jpeg',
    quality: number | undefined,
    signal: AbortSignal,
    progress: ProgressSink,
    trusted: boolean,
  ): Promise<unknown> {
    const tab = await this.deps.tabs.drivenTab();
    if (tab?.id === undefined) return this.deps.tabs.capture(tab, format, quality);
    const url = tab.url ?? '';
    if (isPerplexityUrl(url)) {
      await this.admitTarget(request, 'screenshot', `capture the Perplexity tab (${url})`, signal, progress, trusted);
    } else {
      await this.admitTarget(request, 'other-tab', describeTabUse('capture', tab), signal, progress, trusted);
      // The approval named this page; the tab may show another one by now.
      const now = await browser.tabs.get(tab.id).catch(() => undefined);
      if (!now || !samePage(now.url ?? '', url)) throw tabMoved('capture', url, now?.url);
    }
    return this.deps.tabs.capture(tab, format, quality, signal);
  }
}

function tabMoved(verb: 'read' | 'capture', decided: string, now: string | undefined): RelayError {
  return new RelayError(
    'PERMISSION_DENIED',
    `The tab went from ${decided} to ${now ?? 'another page (or closed)'} before it could be ${verb === 'read' ? 'read' : 'captured'}, so nothing was ${verb === 'read' ? 'read' : 'captured'}: what was allowed was the page at ${decided}. Call again for the page it shows now.`,
  );
}

/** How long the page that follows a page gone during an ask may take to load before the ambiguous words stand. */
const AFTER_ASK_MS = 10_000;

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw RelayError.from(signal.reason ?? new RelayError('CANCELLED', 'The call was cancelled.'), 'CANCELLED');
}
