import type { Runtime, Tabs } from 'webextension-polyfill';
import { RelayError } from '../../protocol/errors';
import { sameConversation } from '../../protocol/threads/thread-ids';
import type { ProfileInfo, Request } from '../../protocol/messages';
import type { AttachedClient, BrowserStatus } from '../../protocol/methods';
import type { ActivityEntry, ControlSettings, PackView, PanelParams, PanelState, PendingApproval, RepairView } from '../../protocol/panel';
import type { Need } from '../../protocol/access';
import { callerName } from '../../protocol/doors';
import { markdownDocument, threadFileBase } from '../../protocol/library/file-name';
import { ExportedThread } from '../../protocol/library/library';
import { threadRefProblem, threadSlugOf } from '../../protocol/library/thread-ref';
import type { ThreadCheckpoint } from '../../protocol/threads/threads';
import { categorizeTab, checkPerplexityUrl, promptInUrl } from '../../protocol/urls';
import type { WatchSnapshot } from '../../protocol/watch';
import { ActivityLog } from './activity';
import { ApprovalQueue } from './approvals';
import { browser } from '../browser/ext';
import type { LinkStatus } from '../link/native-link';
import { otherTabsAllowed } from '../calls/other-tabs';
import { type ModePlace, ModeState, PageWatch } from './page-watch';
import type { PageHub } from '../calls/pages';
import { PanelHub } from './panels';
import { approvalDetail, type Decision, decide, decideNeed, modeLabel } from './policy';
import { SelectorMissLog } from './selector-miss';
import type { ApprovedTab, CallEvent, ProgressSink, Router } from '../calls/router';
import { coalescedSaver, sessionValue } from '../browser/session-store';
import { SettingsStore } from '../browser/settings';
import { noPerplexityTab, type TabService } from '../calls/tabs';
import { conversationKey, ThreadBook } from './threads';

/** How long the panel's state waits for the browser's status. */
const STATUS_MS = 4000;

/** `promise`'s value, or undefined once `ms` passed. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Everything the side panel needs from the worker, in one place: the person's settings and the
 * policy they impose on agents' calls (read-only, approvals), the activity feed, the thread list,
 * the live page watch and mode, and the panel's own requests. main.ts creates one and hooks it into
 * the router (authorize, onCall) and the page hub (onPageChange).
 */
export interface PanelServiceDeps {
  router(): Router;
  tabs: TabService;
  pages: PageHub;
  status(): Promise<BrowserStatus>;
  identity(): Promise<{ browser: PanelState['browser']; profile: ProfileInfo }>;
  renameProfile(label: string): Promise<void>;
  link(): LinkStatus;
  restartLink(): void;
  clients(): AttachedClient[];
  /** Selector sets added as files, and files that could not be used. */
  packs(): PackView;
  /** The number of calls waiting for approval, for the toolbar icon (so a closed panel still tells). */
  showWaiting?(waiting: number): void;
  /** The repair the driven tab reads through, if any, and how to drop it (lib/worker/calls/repairs.ts). */
  repair?(): RepairView | null;
  undoRepair?(): Promise<boolean>;
}

export class PanelService {
  readonly settings: SettingsStore;
  readonly approvals: ApprovalQueue;
  readonly activity: ActivityLog;
  readonly threads = new ThreadBook();
  readonly mode = new ModeState();
  readonly misses = new SelectorMissLog();
  readonly hub: PanelHub;
  private readonly watch: PageWatch;
  private snapshot?: { tabId: number; value: WatchSnapshot };
  private readonly saveThreads: () => void;

  constructor(private readonly deps: PanelServiceDeps) {
    this.settings = new SettingsStore((now) => {
      this.refuseHeld(now);
      this.push();
    });
    this.approvals = new ApprovalQueue((pending) => {
      deps.showWaiting?.(pending.length);
      this.push();
    });
    this.activity = new ActivityLog(() => this.push(), sessionValue<ActivityEntry[]>('activity'));
    const threadStore = sessionValue<unknown>('threads');
    this.saveThreads = coalescedSaver(threadStore, () => this.threads.saved());
    void this.activity.restore();
    void threadStore
      .load()
      .then((saved) => {
        this.threads.load(saved);
        this.push();
      })
      .catch(() => {});

    this.watch = new PageWatch({
      watchableTab: async () => {
        const tab = await deps.tabs.drivenTab();
        return tab?.id !== undefined && deps.pages.state(tab.id) ? tab.id : undefined;
      },
      request: (tabId, signal, onProgress) => deps.pages.request(tabId, 'page.watch', {}, signal, onProgress),
      onSnapshot: (tabId, value) => this.onSnapshot(tabId, value),
      onEnd: () => {
        this.snapshot = undefined;
        this.threads.forgetPage();
        this.mode.reset();
        this.push();
      },
    });
    // The person grants or withdraws access to other tabs from the panel (or chrome://extensions).
    browser.permissions.onAdded.addListener(() => this.push());
    browser.permissions.onRemoved.addListener(() => this.push());
    this.hub = new PanelHub(() => this.state(), this.handlers(), (count) => this.watch.setWanted(count > 0));
  }

  accept(port: Runtime.Port): void {
    this.hub.accept(port);
  }

  push(): void {
    this.hub.push();
  }

  /** Added selector sets changed: a miss seen with the old ones may be fixed now. */
  onPacksChanged(itemsChanged: boolean): void {
    if (itemsChanged) this.misses.clear();
    this.push();
  }

  /** A page connected, navigated or went away, or tabs changed. */
  onPageChange(): void {
    this.watch.refresh();
    this.push();
  }

  /** Router hook: the person's policy, before any agent's call runs (the router has applied the door's table). */
  authorize = async (request: Request, params: Record<string, unknown>, signal: AbortSignal, progress: ProgressSink): Promise<ApprovedTab | undefined> => {
    const approved = await this.authorized(request, params, signal, progress);
    // An agent's mode switch is under way only once the person's policy let it through: held for approval, it is a
    // card in Approvals, and the Mode card's buttons stay the person's (review 15f, F3).
    const mode = request.method === 'page.mode' ? (params as { mode?: string | null }).mode : undefined;
    if (mode) {
      this.agentSwitches.add(request.id);
      this.mode.switchStarted(mode);
      this.push();
    }
    return approved;
  };

  /** Agents' page.mode calls that passed the person's policy and have not ended (their ids). */
  private readonly agentSwitches = new Set<string>();

  private authorized = async (request: Request, params: Record<string, unknown>, signal: AbortSignal, progress: ProgressSink): Promise<ApprovedTab | undefined> => {
    const settings = await this.settings.load();
    const decision = decide(request.method, params, settings);
    const again = (now: ControlSettings) => decide(request.method, params, now);
    if (decision.kind !== 'approve') return void (await this.enforce(decision, again, request, settings, signal, progress));
    // Held: the card shows all the call would send and where, read before anything runs or navigates; the tab it names
    // is what the person approves (the router refuses the call if the driven tab is another one by then).
    // A navigation held as a prompt (`?q=`) goes to the driven tab too: named, so a switch before the click sends it
    // nowhere else (review 8, many clients L4).
    const onTab = request.method.startsWith('page.') || request.method === 'tabs.navigate';
    const tab = onTab ? await this.deps.tabs.drivenTab().catch(() => undefined) : undefined;
    // A page call with no Perplexity tab fails where it would go (comet_ask opens none): said now, not after the person
    // approved a card naming no tab, whose prompt then went to whatever page was opened meanwhile (review 10, router F2).
    if (request.method.startsWith('page.') && (tab?.id === undefined || categorizeTab(tab.url ?? tab.pendingUrl ?? '') !== 'Main')) throw noPerplexityTab(tab);
    // The page the card is drawn on, taken now: one loaded while the card waits is not what the person saw.
    const page = tab?.id === undefined ? undefined : this.deps.pages.document(tab.id);
    const prompts = page === undefined ? undefined : this.deps.pages.askCount(page);
    const target = this.targetOf(request.method, params, tab);
    await this.enforce(decision, again, request, settings, signal, progress, { ...approvalDetail(request.method, params), ...(target ? { target: `${target}${this.inheritedMode(request.method, params, tab?.id === undefined ? undefined : { tabId: tab.id, page })}` } : {}) });
    this.approvedCalls.add(request);
    return tab?.id === undefined ? undefined : { tabId: tab.id, url: tab.url ?? tab.pendingUrl ?? '', title: tab.title ?? '', page, prompts, client: request.origin?.clientId };
  };

  /**
   * Router hook: a call that waited its turn runs under the settings as they are now (review 8, many clients M2): the
   * person's Read-only, their stop switch, refuses a prompt still queued; Require approval turned on refuses one that
   * was let through unasked; an approval given stands.
   */
  recheck = async (request: Request, params: Record<string, unknown>, approved: ApprovedTab | undefined): Promise<ApprovedTab | undefined> => {
    const decision = decide(request.method, params, await this.settings.load());
    if (decision.kind === 'deny') throw decision.error;
    // Not held here: a card shown now would keep every call queued behind this one (the person's own included) waiting
    // on it. It is refused, and its next call is asked (fixes review 2 #4); one the person approved stands (#1).
    if (decision.kind === 'approve' && !approved && !this.approvedCalls.has(request)) {
      throw new RelayError(
        'PERMISSION_DENIED',
        `"Require approval" was turned on before the request to ${decision.what} was carried out (while it waited its turn or was on its way), so it was not. Call again: the person at the browser is asked then.`,
      );
    }
    return approved;
  };

  /** Router hook: a call the person's settings refuse outright (Read-only, the stop switch), refused as authorize would. */
  refuseIfDenied = async (request: Request, params: Record<string, unknown>): Promise<void> => {
    const decision = decide(request.method, params, await this.settings.load());
    if (decision.kind === 'deny') throw decision.error;
  };

  /** The calls the person approved (their request objects, held only as long as the call is). */
  private readonly approvedCalls = new WeakSet<Request>();

  /** Router hook: a target's need that rests on the person's settings (other tabs, public-door screenshots). */
  authorizeTarget = async (request: Request, need: Need, what: string, signal: AbortSignal, progress: ProgressSink) => {
    const settings = await this.settings.load();
    const again = (now: ControlSettings) => decideNeed(need, what, now);
    await this.enforce(again(settings), again, request, settings, signal, progress);
  };

  /**
   * The tab or thread a held call acts on, as it is now, for the approval card: a prompt or a mode
   * switch goes to the driven Perplexity tab; a Computer task opens its own thread.
   */
  private targetOf(method: string, params: Record<string, unknown>, tab: Tabs.Tab | undefined): string | undefined {
    if (method === 'threads.start') return 'a new Computer thread, in a tab of its own';
    if (method.startsWith('threads.')) {
      // Named as the Threads card shows it (review 2026-12-05, panel #6): its title and who started it, else said unknown.
      const id = String(params.threadId ?? '');
      const known = this.threads.byThread(id);
      return known
        ? `the Computer thread “${known.title}”${known.startedBy ? `, started by ${known.startedBy}` : ''} (${id})`
        : `Computer thread ${id}, which the Threads card does not list`;
    }
    if (!method.startsWith('page.') && method !== 'tabs.navigate') return undefined;
    if (tab?.id === undefined) return 'the Perplexity tab comet-relay opens (none is open now)';
    return `tab ${tab.id}: “${tab.title ?? ''}” (${tab.url ?? tab.pendingUrl ?? ''})`;
  }

  /**
   * A prompt of a session that chose no mode goes in the mode the tab is in, which another session or the person may have
   * set: a Computer task acts with the account's connectors and spends credits, so the card names a mode other than
   * Search when the panel knows it (the page shows it, or a page.mode call said it), and nothing when it does not (review
   * 15c, F3). A new chat opens in Search; a mode the session chose is in the card's words already.
   */
  private inheritedMode(method: string, params: Record<string, unknown>, where: ModePlace | undefined): string {
    if (method !== 'page.ask' || params.keepMode || params.newChat) return '';
    const current = this.mode.viewAt(where).current;
    return current && current !== 'standard' ? `, in ${modeLabel(current)} mode, as the tab is set now (this session chose none)` : '';
  }

  /** Lets the call run, refuses it, or holds it until the person approves (or the time runs out). */
  private async enforce(
    decision: Decision,
    /** The same decision under the settings as they are after the click: Read-only turned on meanwhile refuses. */
    again: (now: ControlSettings) => Decision,
    request: Request,
    settings: ControlSettings,
    signal: AbortSignal,
    progress: ProgressSink,
    shown: Pick<PendingApproval, 'text' | 'target' | 'newChat'> = {},
  ): Promise<void> {
    if (decision.kind === 'allow') return;
    if (decision.kind === 'deny') throw decision.error;
    progress(`Waiting up to ${settings.approvalTimeoutSec} s for the person at the browser to approve: ${decision.what}.`, settings.approvalTimeoutSec * 1000);
    this.threads.awaitingApproval(request.id, true);
    this.heldAgain.set(request.id, again);
    const held = {
      id: request.id,
      // The door's name for a public-door caller, never the name its client declares.
      clientName: callerName(request.origin),
      ...(request.origin?.tool ? { tool: request.origin.tool } : {}),
      method: request.method,
      what: decision.what,
      ...shown,
    };
    try {
      // Counted per session (review 13d, 6: two clients of one name shared one cap).
      await this.approvals.request(held, settings.approvalTimeoutSec * 1000, signal, request.origin?.clientId);
    } finally {
      this.heldAgain.delete(request.id);
      this.threads.awaitingApproval(request.id, false);
    }
    // Approved: under the settings as they are now (review 2026-12-05, panel #1). Read-only turned on while the card
    // waited refuses the call, whatever the click.
    const now = again(await this.settings.load());
    if (now.kind === 'deny') throw now.error;
  }

  /** Each held call's decision under other settings, by its id. */
  private readonly heldAgain = new Map<string, (now: ControlSettings) => Decision>();

  /**
   * Settings changed: a held call they now refuse (Read-only turned on) is refused at once, in their words, instead of
   * waiting behind an Approve that would do nothing; its card goes and the feed says why (review 15f, F8).
   */
  private refuseHeld(now: ControlSettings): void {
    for (const [id, again] of [...this.heldAgain]) {
      const decision = again(now);
      if (decision.kind === 'deny') this.approvals.refuse(id, decision.error);
    }
  }

  /** Router hook: every call's start and end. */
  onCall = (event: CallEvent) => {
    const { request } = event;
    this.activity.record(event);
    this.misses.onCall(event);
    if (this.threads.onCall(event)) this.saveThreads();
    if (request.method === 'page.mode' && event.phase === 'end') {
      // Its switch shown since authorize let it through (above); a failure, the agent's to act on, is in its feed entry,
      // not on the person's Mode card, which keeps the mode it knows (review 15f, F3).
      const started = this.agentSwitches.delete(request.id);
      if (event.ok) this.mode.fromResult(event.result, this.placeNow());
      else if (started) this.mode.switchEnded();
    }
    if (event.phase === 'end' && request.method.startsWith('tabs.')) this.watch.refresh();
    this.push();
  };

  /**
   * The driven tab and its page load, now, when its page script is connected (and it is `tabId`, when given): where a
   * page call that just ended ran, as pageTab chose it.
   */
  private placeNow(tabId?: string): ModePlace | undefined {
    const tab = this.deps.tabs.connectedDrivenTab();
    if (!tab || (tabId !== undefined && String(tab.id) !== tabId)) return undefined;
    return { tabId: tab.id, page: this.deps.pages.document(tab.id) };
  }

  /** A Computer thread's wait streamed a step (lib/worker/threads/thread-calls.ts). */
  onThreadStep = (threadId: string, step: string) => {
    if (!this.threads.onThreadStep(threadId, step, Date.now())) return;
    this.saveThreads();
    this.push();
  };

  /**
   * The person answers a Computer thread's prompt from the panel: the same threads.respond an agent
   * sends, then a wait (bounded) so the panel shows the thread's next checkpoint without an agent.
   */
  private async respondInThread(threadId: string, interactionId: string, reply: PanelReply): Promise<void> {
    const asThread =
      reply.kind === 'answer'
        ? { kind: 'answers' as const, answers: { [interactionId]: reply.text } }
        : reply.kind === 'connected'
          ? { kind: 'connected' as const, message: 'Signed in from the comet-relay side panel' }
          : reply;
    const router = this.deps.router();
    const turn = (await router.local('threads.respond', { threadId, followupUuid: interactionId, reply: asThread })) as { turn?: number };
    // The respond resolved: the page took the answer (router.local emits no call event for onThreadCall to see).
    this.threads.answered(threadId, Date.now());
    this.saveThreads();
    this.push();
    void router
      .local('threads.wait', { threadId, ...(typeof turn.turn === 'number' ? { turn: turn.turn } : {}), timeoutMs: FOLLOW_MS })
      .then((checkpoint) => {
        this.threads.onCheckpoint(checkpoint as ThreadCheckpoint, Date.now());
        this.saveThreads();
        this.push();
      })
      .catch(() => {});
  }

  private onSnapshot(tabId: number, value: WatchSnapshot): void {
    this.snapshot = { tabId, value };
    this.mode.fromSnapshot(value, { tabId, page: this.deps.pages.document(tabId) });
    this.threads.onSnapshot(value, Date.now());
    this.saveThreads();
    this.push();
    // A mode the page does not show (generation A's slash menu hides it) stays unknown here: reading
    // it would mean typing "/" into the person's composer (review 2026-12-02, #23). An agent's
    // comet_mode, or a switch from the panel, names it (onCall).
  }

  /** The browser's status the last state had (state() keeps it while a newer one is slow). */
  private lastStatus?: BrowserStatus;
  private latePushed = false;

  private async state(): Promise<PanelState> {
    const { browser: browserInfo, profile } = await this.deps.identity();
    // Never waited on for long: held calls and settings reach the panel even when the browser's status does not come
    // (review 13b, R13b-8). Meanwhile the last status stands (never "no Perplexity tab" for want of an answer), and a
    // late one is pushed when it comes (review 13d, 7).
    const asked = this.deps.status().catch(() => undefined);
    const current = (await withinMs(asked, STATUS_MS)) ?? this.lastStatus;
    const inTime = current !== this.lastStatus || current === undefined;
    void asked.then((status) => {
      if (!status) return;
      this.lastStatus = status;
      // Once per slow spell: a status that is always slow must not push a state every few seconds for ever.
      if (status !== current && !this.latePushed) {
        this.latePushed = true;
        this.push();
      }
    });
    if (inTime) this.latePushed = false;
    const perplexityTab = current?.perplexityTab ?? null;
    const live = perplexityTab && this.snapshot && String(this.snapshot.tabId) === perplexityTab.tabId ? this.snapshot.value : undefined;
    return {
      link: this.deps.link(),
      profile,
      browser: browserInfo,
      extensionVersion: browser.runtime.getManifest().version,
      clients: this.deps.clients(),
      perplexityTab,
      mode: perplexityTab ? this.mode.viewAt(this.placeNow(perplexityTab.tabId)) : { current: null },
      pageStatus: live?.status ?? null,
      threads: this.threads.list(),
      activity: this.activity.entries(),
      settings: this.settings.current,
      otherTabs: { allowed: await otherTabsAllowed() },
      approvals: this.approvals.pending(),
      packs: this.deps.packs(),
      pageProblem: this.misses.current(),
      repair: this.repairShown(perplexityTab),
      pageAccess: current?.pageAccess ?? null,
    };
  }

  /** The repair of the driven tab, while that tab still shows the page it was derived on. */
  private repairShown(tab: { tabId: string; url: string } | null): RepairView | null {
    const repair = this.deps.repair?.() ?? null;
    return repair && tab && String(repair.tabId) === tab.tabId && repair.url === tab.url ? repair : null;
  }

  private handlers() {
    const { deps } = this;
    return {
      'panel.reconnect': async () => {
        deps.restartLink();
        return {};
      },
      'panel.clearActivity': async () => {
        this.activity.clear();
        return {};
      },
      'panel.renameProfile': async ({ label }: { label: string }) => {
        await deps.renameProfile(label);
        this.push();
        return {};
      },
      'panel.setMode': async ({ mode }: { mode: string }) => {
        this.mode.switchStarted(mode);
        this.push();
        try {
          // Bounded: behind another session's prompt it may wait its turn (mode-turn.ts), and a page that never
          // answers must not hold the turn, nor the panel's switch, for ever.
          const result = await deps.router().local('page.mode', { mode }, AbortSignal.timeout(PANEL_MODE_SWITCH_MS));
          this.mode.fromResult(result, this.placeNow());
          return { mode: (result as { mode: string | null }).mode };
        } catch (error) {
          this.mode.switchFailed(error);
          throw error;
        } finally {
          this.push();
        }
      },
      'panel.openThread': async ({ url }: { url: string }) => {
        const checked = checkPerplexityUrl(url);
        if (!checked.ok) throw new RelayError('INVALID_URL', `Only perplexity.ai pages open from the panel; ${url} is refused because ${checked.reason}.`);
        // Opening a thread never sends anything: an address that asks a prompt (`?q=`) is a send (access.ts), not a thread.
        if (promptInUrl(checked.url) !== undefined) {
          throw new RelayError('INVALID_URL', `The panel opens conversations, and ${url} would send a prompt to Perplexity: it is not opened. Open the conversation from Perplexity's own list.`);
        }
        const tab = await deps.tabs.drivenTab();
        const here = tab?.url && conversationKey(tab.url) === conversationKey(checked.url);
        if (!here) await deps.router().local('tabs.navigate', { url: checked.url });
        const shown = await deps.tabs.drivenTab();
        if (shown?.id !== undefined) {
          await browser.tabs.update(shown.id, { active: true });
          if (shown.windowId !== undefined) await browser.windows.update(shown.windowId, { focused: true }).catch(() => {});
        }
        return {};
      },
      'panel.exportThread': async ({ url }: { url: string }) => {
        const slug = threadSlugOf(url);
        if (!slug) throw new RelayError('INVALID_PARAMS', threadRefProblem(url));
        const thread = ExportedThread.parse(await deps.router().local('library.thread', { thread: slug }));
        return { fileName: `${threadFileBase(thread)}.md`, markdown: markdownDocument(thread) };
      },
      'panel.respond': async (params: { threadKey: string; interactionId: string; reply: PanelReply }) => {
        const waiting = this.threads.interactionsOf(params.threadKey).some((i) => i.id === params.interactionId);
        if (!waiting) throw new RelayError('INVALID_PARAMS', 'That question is no longer waiting for an answer.');
        const threadId = this.threads.threadIdOf(params.threadKey);
        if (threadId) {
          await this.respondInThread(threadId, params.interactionId, params.reply);
          return {};
        }
        // The tab whose page showed the box, while it still shows that conversation: never the tab driven now, which an
        // agent's switch or the person's click may have moved to another conversation with a box alike (review 13b, R13b-6).
        const tabId = this.snapshot?.tabId ?? (await deps.tabs.pageTab());
        const now = deps.pages.state(tabId)?.url ?? '';
        if (!sameConversation(params.threadKey, now)) {
          throw new RelayError('INVALID_PARAMS', `The tab now shows ${now || 'no Perplexity page'}, not the conversation whose question this answers (${params.threadKey}): nothing was sent. Answer it once the panel shows that conversation again.`);
        }
        await deps.pages.request(tabId, 'page.respond', { interactionId: params.interactionId, reply: params.reply }, new AbortController().signal, () => {});
        return {};
      },
      'panel.decide': async ({ id, approve, requestedAt }: { id: string; approve: boolean; requestedAt?: number }) => {
        if (!this.approvals.decide(id, approve, requestedAt)) {
          throw new RelayError('INVALID_PARAMS', 'That call is no longer waiting (it timed out or its client gave up).');
        }
        return {};
      },
      'panel.setSettings': async (patch: Partial<PanelState['settings']>) => this.settings.update(patch),
      'panel.undoRepair': async () => {
        const undone = (await deps.undoRepair?.()) ?? false;
        this.push();
        return { undone };
      },
    };
  }
}

/** How long the panel follows a Computer thread after answering it (no agent may be waiting on it). */
const FOLLOW_MS = 120_000;
/**
 * The longest the panel's mode switch takes: a turn behind another session's prompt (which may wait up to 10 minutes
 * in the page behind an answer being written, and 50 s more to be confirmed), then the page's switch.
 */
const PANEL_MODE_SWITCH_MS = 12 * 60_000;

type PanelReply = PanelParams<'panel.respond'>['reply'];

