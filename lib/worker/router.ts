import { RelayError } from '../protocol/errors';
import type { Envelope, Request } from '../protocol/messages';
import { isMethodName, methods } from '../protocol/methods';
import { categorizeTab } from '../protocol/urls';
import { extractVisibleText } from '../page/visible-text';
import { browser } from './ext';
import type { PageHub } from './pages';
import type { TabService } from './tabs';
import type { ThreadCalls } from './thread-calls';

/**
 * Answers requests that arrive from the host: tab and browser calls here in the worker, `page.*`
 * calls in the driven tab's content script. Params are parsed at this edge; every request can be
 * cancelled by id; every failure goes back as a typed error.
 */
/** Interim news for the caller; `holdMs` says the call may now take that much longer. */
export type ProgressSink = (message: string, holdMs?: number) => void;

export interface RouterDeps {
  tabs: TabService;
  pages: PageHub;
  /** `threads.*` / `account.*`: each thread in its own tab (lib/worker/thread-calls.ts). */
  threads?: ThreadCalls;
  status(): Promise<unknown>;
  /** Told about every call from start to end (the side panel's activity feed, threads). */
  onCall?(event: CallEvent): void;
  /**
   * The person's policy (read-only, approvals; lib/worker/policy.ts), applied to every request
   * from the host once its params are parsed. Throws to refuse; may wait for an approval.
   */
  authorize?(request: Request, params: Record<string, unknown>, signal: AbortSignal, progress: ProgressSink): Promise<void>;
}

export type CallEvent =
  | { phase: 'start'; request: Request; at: number }
  | { phase: 'end'; request: Request; at: number; ok: boolean; result?: unknown; error?: string };

export class Router {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: RouterDeps) {}

  /**
   * Runs one request from the host. The call is registered at once, before `ready` (the worker's
   * start-up) settles, so a cancel that arrives meanwhile finds it and stops it before it starts.
   */
  async handle(request: Request, reply: (message: Envelope) => void, ready?: Promise<unknown>): Promise<void> {
    const controller = new AbortController();
    this.running.get(request.id)?.abort(); // ids are unique per host lifetime; never let two share one
    this.running.set(request.id, controller);
    this.deps.onCall?.({ phase: 'start', request, at: Date.now() });
    try {
      await ready;
      const result = await this.dispatch(request, controller.signal, (message, holdMs) =>
        reply({ kind: 'progress', id: request.id, message, ...(holdMs ? { holdMs } : {}) }),
      );
      if (!controller.signal.aborted) reply({ kind: 'result', id: request.id, result });
      this.deps.onCall?.({ phase: 'end', request, at: Date.now(), ok: true, result });
    } catch (error) {
      const relayError = RelayError.from(error, 'EVALUATION_FAILED');
      if (!controller.signal.aborted) reply({ kind: 'error', id: request.id, error: relayError.toPayload() });
      this.deps.onCall?.({ phase: 'end', request, at: Date.now(), ok: false, error: `[${relayError.code}] ${relayError.message}` });
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

  private async dispatch(request: Request, signal: AbortSignal, progress: ProgressSink, trusted = false): Promise<unknown> {
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
    if (!trusted) await this.deps.authorize?.(request, params, signal, progress);
    // An approval can land in the same instant as a cancel or a dropped link: the cancel wins.
    throwIfCancelled(signal);
    const { tabs, pages } = this.deps;
    switch (method) {
      case 'browser.status':
        return this.deps.status();
      case 'tabs.list':
        return { tabs: await tabs.list() };
      case 'tabs.switch':
        return { tab: await tabs.switchTo(String(params.tabId ?? '')) };
      case 'tabs.ensurePerplexity':
        return tabs.ensurePerplexity(15_000);
      case 'tabs.navigate':
        return { url: await tabs.navigate(String(params.url)) };
      case 'tabs.capture':
        return tabs.capture(params.format as 'png' | 'jpeg', params.quality as number | undefined);
      case 'page.content':
        return this.pageContent(params.maxLength as number, signal, progress);
      default: {
        if (this.deps.threads?.handles(method)) return this.deps.threads.call(method, params, signal, progress);
        const tabId = await tabs.pageTab();
        return pages.request(tabId, method, params, signal, progress);
      }
    }
  }

  /**
   * Perplexity tabs answer through their content script; any other tab through an injected function.
   * Which one is decided by the tab's URL, not by whether the script is ready this instant: a
   * Perplexity tab between two pages (a new chat, a reload) is waited for, since a reader injected
   * into the frame that is going away fails ("Frame with ID 0 was removed").
   */
  private async pageContent(maxLength: number, signal: AbortSignal, progress: ProgressSink): Promise<unknown> {
    const tab = await this.deps.tabs.drivenTab();
    if (tab?.id === undefined) throw new RelayError('TAB_NOT_FOUND', 'No tab is selected. Call comet_connect or comet_switch_tab first.');
    if (this.deps.pages.state(tab.id)) return this.deps.pages.request(tab.id, 'page.content', { maxLength }, signal, progress);
    if (categorizeTab(tab.url ?? '') === 'Main') {
      const tabId = await this.deps.tabs.pageTab(); // waits for its script to say ready
      return this.deps.pages.request(tabId, 'page.content', { maxLength }, signal, progress);
    }
    try {
      const [injection] = await browser.scripting.executeScript({ target: { tabId: tab.id }, func: extractVisibleText, args: [maxLength] });
      return injection?.result;
    } catch (error) {
      throw new RelayError('EVALUATION_FAILED', `Could not read tab ${tab.id} (${tab.url}): ${(error as Error).message}`);
    }
  }
}

function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw RelayError.from(signal.reason ?? new RelayError('CANCELLED', 'The call was cancelled.'), 'CANCELLED');
}
