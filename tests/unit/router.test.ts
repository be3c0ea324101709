import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import { RelayError } from '../../lib/protocol/errors';
import { ApprovalQueue } from '../../lib/worker/panel/approvals';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router, type RouterDeps } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

vi.mock('wxt/browser', () => ({ browser: {} }));

/**
 * The worker's router with fake tabs and pages: a call whose caller is gone (cancelled, or the host
 * link dropped) never reaches the page, however early or late the news arrives.
 */
function world(authorize?: RouterDeps['authorize']) {
  const pageCalls: string[] = [];
  const pages = {
    request: vi.fn(async (_tab: number, method: string) => {
      pageCalls.push(method);
      return { ok: true };
    }),
    state: () => undefined,
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
    whenReplaced: async () => {},
  } as unknown as PageHub;
  const tabs = { pageTab: async () => 7 } as unknown as TabService;
  const router = new Router({ tabs, pages, status: async () => ({}), authorize });
  const replies: Envelope[] = [];
  return { router, pageCalls, replies, reply: (m: Envelope) => replies.push(m) };
}

const ask = (id: string): Request => ({ kind: 'request', id, method: 'page.ask', params: { prompt: 'hello' } });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('Router: a cancel that arrives before its request is handled', () => {
  it('is kept, and the request never reaches the page', async () => {
    const { router, pageCalls, replies, reply } = world();
    let ready!: () => void;
    const handled = router.handle(ask('h1:k1:r1'), reply, new Promise<void>((r) => (ready = r)));
    router.cancel('h1:k1:r1');
    ready();
    await handled;
    expect(pageCalls).toEqual([]);
    expect(replies).toEqual([]); // the host forgot the call when it forwarded the cancel
  });
});

describe('Router: the host link drops', () => {
  it('a prompt held for approval is cancelled, never approved and submitted with nobody waiting', async () => {
    const approvals = new ApprovalQueue(() => {});
    const { router, pageCalls, reply } = world(async (request, _params, signal) => {
      await approvals.request({ id: request.id, clientName: 'agent', method: request.method, what: 'send the prompt' }, 60_000, signal);
    });
    const handled = router.handle(ask('h1:k1:r2'), reply);
    await tick();
    expect(approvals.pending()).toHaveLength(1);
    router.abortAll('the host link dropped');
    await handled;
    expect(approvals.pending()).toEqual([]);
    expect(approvals.decide('h1:k1:r2', true)).toBe(false); // too late to approve
    expect(pageCalls).toEqual([]);
  });

  it('an approval that lands just as the link drops does not submit the prompt', async () => {
    let approve!: () => void;
    const { router, pageCalls, reply } = world(() => new Promise<void>((r) => (approve = r)));
    const handled = router.handle(ask('h1:k1:r3'), reply);
    await tick();
    router.abortAll('the host link dropped');
    approve(); // the person clicked Approve in the same instant
    await handled;
    expect(pageCalls).toEqual([]);
  });

  it('calls running in the page are told to stop', async () => {
    const { router, reply } = world();
    const seen: AbortSignal[] = [];
    const pages = (router as unknown as { deps: { pages: { request: ReturnType<typeof vi.fn> } } }).deps.pages;
    pages.request.mockImplementation(
      (_tab: number, _method: string, _params: unknown, signal: AbortSignal) =>
        new Promise((_resolve, reject) => {
          seen.push(signal);
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const handled = router.handle({ kind: 'request', id: 'h1:k1:r4', method: 'page.wait', params: {} }, reply);
    await tick();
    await tick();
    router.abortAll('the host link dropped');
    await handled;
    expect(seen[0]?.aborted).toBe(true);
  });
});

describe('Router: page content while the Perplexity tab is between pages (found by the soak)', () => {
  it('waits for the page script of a Perplexity tab instead of injecting a reader into a frame that is going away', async () => {
    let ready!: () => void;
    const whenReady = new Promise<void>((r) => (ready = r));
    const pages = {
      state: () => undefined, // the page is navigating: its script has not said ready yet
      whenReady: vi.fn(() => whenReady),
      request: vi.fn(async () => ({ title: 'Perplexity', text: 'answer', totalLength: 6, truncated: false })),
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
      // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
      whenReplaced: async () => {},
    } as unknown as PageHub;
    const tabs = {
      connectedDrivenTab: () => undefined, // no page script connected (pages.state says none)
      drivenTab: async () => ({ id: 7, url: 'https://www.perplexity.ai/search/next-question-abc' }),
      pageTab: async () => {
        await pages.whenReady(7, 5000);
        return 7;
      },
    } as unknown as TabService;
    const router = new Router({ tabs, pages, status: async () => ({}) });
    const replies: Envelope[] = [];
    const handled = router.handle({ kind: 'request', id: 'c1', method: 'page.content', params: { maxLength: 100 } }, (m) => replies.push(m));
    setTimeout(ready, 20);
    await handled;
    expect(replies[0]).toMatchObject({ kind: 'result', result: { text: 'answer' } });
  });
});

describe('Router: who acts on a thread', () => {
  it("the side panel's calls reach the thread family as the person's; an agent's from the host never do", async () => {
    const seen: boolean[] = [];
    const threads = {
      handles: (method: string) => method.startsWith('threads.'),
      call: vi.fn(async (_m: string, _p: unknown, _s: AbortSignal, _progress: unknown, _trace: unknown, byPerson?: boolean) => {
        seen.push(byPerson === true);
        return { threadId: 't-1', url: 'https://www.perplexity.ai/computer/tasks/t-1', turn: 0 };
      }),
    } as unknown as RouterDeps['threads'];
    const router = new Router({ tabs: {} as TabService, pages: {} as PageHub, status: async () => ({}), threads });
    const params = { threadId: 't-1', followupUuid: 'F-1', reply: { kind: 'approve', reason: '' } };
    await router.local('threads.respond', params);
    await router.handle({ kind: 'request', id: 'h1:k1:r9', method: 'threads.respond', params, origin: { clientId: 'k1', clientName: 'Claude Code', door: 'loopback' } }, () => {});
    expect(seen).toEqual([true, false]);
  });
});

describe('Router: a new chat waits for its approval (review 2026-12-02 #15)', () => {
  function newChatWorld(authorize: RouterDeps['authorize'], extra: Record<string, unknown> = {}) {
    const order: string[] = [];
    const pages = {
      request: vi.fn(async (_tab: number, method: string, params: { newChat?: boolean; mode?: string; keepMode?: string }) => {
        if (method === 'page.mode') {
          order.push(`page.mode ${params.mode ?? 'read'}`);
          return params.mode ? { mode: params.mode, source: 'switched', previous: 'standard', changed: true, verified: true } : { mode: 'standard', source: 'chip' };
        }
        order.push(`${method} newChat=${params.newChat}${params.keepMode ? ` keepMode=${params.keepMode}` : ''}`);
        return { turnIndex: 0 };
      }),
      state: () => undefined,
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
      // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
      whenReplaced: async () => {},
    } as unknown as PageHub;
    const tabs = {
      pageTab: async () => 7,
      drivenTab: async () => ({ id: 7, url: 'https://www.perplexity.ai/' }),
      navigate: vi.fn(async (url: string) => {
        order.push(`navigate ${url}`);
        return url;
      }),
    } as unknown as TabService;
    const router = new Router({
      tabs,
      pages,
      status: async () => ({}),
      authorize: async (request, params, signal, progress) => {
        order.push(`authorize newChat=${params.newChat}`);
        await authorize?.(request, params, signal, progress);
      },
    });
    const replies: Envelope[] = [];
    const newChat: Request = { kind: 'request', id: 'n1', method: 'page.ask', params: { prompt: 'hello', newChat: true, ...extra } };
    return { run: () => router.handle(newChat, (m) => replies.push(m)), order, replies };
  }

  it('a denied prompt leaves the tab where it was: nothing navigates', async () => {
    const w = newChatWorld(async () => {
      throw Object.assign(new Error('denied'), { code: 'PERMISSION_DENIED' });
    });
    await w.run();
    expect(w.order).toEqual(['authorize newChat=true']); // the approval said "in a new thread"
    expect(w.replies[0]).toMatchObject({ kind: 'error' });
  });

  it('an approved prompt opens the new chat, then types into it', async () => {
    const w = newChatWorld(async () => {});
    await w.run();
    expect(w.order).toEqual(['authorize newChat=true', 'navigate https://www.perplexity.ai/', 'page.ask newChat=false']);
    expect(w.replies[0]).toMatchObject({ kind: 'result' });
  });

  it("the session's mode is set again on the new chat's page, after the approval and before typing, and the result says so", async () => {
    const w = newChatWorld(async () => {}, { keepMode: 'deep-research' });
    await w.run();
    expect(w.order).toEqual(['authorize newChat=true', 'navigate https://www.perplexity.ai/', 'page.mode read', 'page.mode deep-research', 'page.ask newChat=false']);
    expect(w.replies[0]).toMatchObject({ kind: 'result', result: { modeNote: expect.stringContaining("this session's mode, deep-research, was set again") } });
  });
});

describe("Router: an ask keeps this session's mode, set after the approval, right before it is sent (review 2026-12-05, worker #5)", () => {
  /** A page whose mode is `page.mode`; `setFails` makes a switch miss, `noComposer` makes every mode call the composer miss. */
  function modeWorld(options: { keepMode?: string; duringApproval?: (page: { mode: string }) => void; setFails?: boolean; noComposer?: boolean; askHeld?: Promise<void> } = {}) {
    const page = { mode: 'deep-research' };
    const order: string[] = [];
    const pages = {
      request: vi.fn(async (_tab: number, method: string, params: { mode?: string; keepMode?: string }) => {
        if (method === 'page.mode') {
          order.push(`page.mode ${params.mode ?? 'read'}`);
          if (options.noComposer) throw new RelayError('SELECTOR_MISS', 'composer: none of `#ask-input` matched on https://www.perplexity.ai/library');
          if (!params.mode) return { mode: page.mode, source: 'chip' };
          if (options.setFails) throw new RelayError('SELECTOR_MISS', 'modeMenuItem: none of `[role="menuitemradio"]` matched');
          const previous = page.mode;
          page.mode = params.mode;
          return { mode: params.mode, source: 'switched', previous, changed: true, verified: true };
        }
        // The page's own ask queue: the prompt waits there behind an answer still being written.
        if (options.askHeld) await options.askHeld;
        order.push(`${method} mode=${page.mode}${params.keepMode ? ' keepMode (forwarded!)' : ''}`);
        return { turnIndex: 0 };
      }),
      state: () => undefined,
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
      // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
      whenReplaced: async () => {},
    } as unknown as PageHub;
    const router = new Router({
      tabs: { pageTab: async () => 7, drivenTab: async () => ({ id: 7, url: 'https://www.perplexity.ai/search/tides-abc' }) } as unknown as TabService,
      pages,
      status: async () => ({}),
      authorize: async () => {
        order.push('approved');
        options.duringApproval?.(page);
      },
    });
    const replies: Envelope[] = [];
    const ask: Request = { kind: 'request', id: 'm1', method: 'page.ask', params: { prompt: 'hello', ...(options.keepMode ? { keepMode: options.keepMode } : {}) } };
    return { run: () => router.handle(ask, (m) => replies.push(m)), order, replies, router };
  }

  it("another session's mode switch while this prompt waits in the page's queue runs once the prompt is sent, never before", async () => {
    let sent!: () => void;
    const w = modeWorld({ keepMode: 'deep-research', askHeld: new Promise<void>((r) => (sent = r)) });
    const asking = w.run();
    for (let i = 0; i < 5; i++) await tick();
    const other: Envelope[] = [];
    const switching = w.router.handle({ kind: 'request', id: 'm2', method: 'page.mode', params: { mode: 'standard' } }, (m) => other.push(m));
    // A third session's switch, cancelled while it waits: it leaves the line and never runs.
    const cancelled = w.router.handle({ kind: 'request', id: 'm3', method: 'page.mode', params: { mode: 'learn' } }, (m) => other.push(m));
    for (let i = 0; i < 5; i++) await tick();
    w.router.cancel('m3');
    expect(w.order).toEqual(['approved', 'page.mode read', 'approved', 'approved']);
    sent();
    await Promise.all([asking, switching, cancelled]);
    expect(w.order).toEqual(['approved', 'page.mode read', 'approved', 'approved', 'page.ask mode=deep-research', 'page.mode standard']);
    expect(w.replies[0]).toMatchObject({ kind: 'result' });
    expect(other.filter((m) => m.kind !== 'progress')).toEqual([expect.objectContaining({ kind: 'result', id: 'm2' })]);
  });

  it('the page kept the chosen mode: read once after the approval, no switch, nothing said', async () => {
    const w = modeWorld({ keepMode: 'deep-research' });
    await w.run();
    expect(w.order).toEqual(['approved', 'page.mode read', 'page.ask mode=deep-research']);
    expect(w.replies[0]).toMatchObject({ kind: 'result' });
    expect((w.replies[0] as { result: { modeNote?: string } }).result.modeNote).toBeUndefined();
  });

  it("another session's mode switch while the approval waited: the session's mode is set again before the prompt goes, and the result says so", async () => {
    const w = modeWorld({ keepMode: 'deep-research', duringApproval: (page) => {
        page.mode = 'standard';
      },
    });
    await w.run();
    expect(w.order).toEqual(['approved', 'page.mode read', 'page.mode deep-research', 'page.ask mode=deep-research']);
    expect(w.replies[0]).toMatchObject({ kind: 'result', result: { modeNote: expect.stringContaining("this session's mode, deep-research, was set again before sending") } });
  });

  it('a mode that cannot be set again sends nothing, and says why and what to do', async () => {
    const w = modeWorld({ keepMode: 'model-council', setFails: true });
    await w.run();
    expect(w.order).toEqual(['approved', 'page.mode read', 'page.mode model-council']);
    expect(w.replies[0]).toMatchObject({
      kind: 'error',
      error: {
        code: 'SELECTOR_MISS',
        message: expect.stringMatching(/^The prompt was not sent: this session chose model-council mode with comet_mode, the page shows deep-research, and setting model-council again failed: modeMenuItem: .* Choose a mode this page offers with comet_mode, then ask again\.$/),
      },
    });
  });

  it('a page with no composer: the ask fails with the composer miss, as an ask there always did', async () => {
    const w = modeWorld({ keepMode: 'learn', noComposer: true });
    await w.run();
    expect(w.order).toEqual(['approved', 'page.mode read']);
    expect(w.replies[0]).toMatchObject({ kind: 'error', error: { code: 'SELECTOR_MISS', message: expect.stringMatching(/^composer: /) } });
  });

  it('no mode chosen: nothing read, the ask goes as it is', async () => {
    const w = modeWorld();
    await w.run();
    expect(w.order).toEqual(['approved', 'page.ask mode=deep-research']);
  });
});

describe('Router: a turn the page cannot confirm, with no thread JSON reader to ask', () => {
  it('is the miss with what to do about it, never a guess (review 8, errors #12)', async () => {
    const miss = 'stopButton/answerFooter: none of `[data-workflow-text-footer]` matched';
    const pages = {
      request: vi.fn(async () => ({ status: 'working', steps: [], currentStep: '', response: '', truncated: false, totalLength: 0, lastTurnIndex: 0, unconfirmed: miss })),
      state: () => undefined,
      askCount: () => 0,
      asksSince: () => [],
      namedBy: () => undefined,
      document: () => SAME_PAGE, // one document throughout: no page loads in these tests
      // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
      whenReplaced: async () => {},
    } as unknown as PageHub;
    const router = new Router({ tabs: { pageTab: async () => 7 } as unknown as TabService, pages, status: async () => ({}) });
    const replies: Envelope[] = [];
    await router.handle({ kind: 'request', id: 'h1:k1:u1', method: 'page.poll', params: {} }, (m) => replies.push(m));
    expect(replies[0]).toMatchObject({
      kind: 'error',
      error: { code: 'SELECTOR_MISS', message: expect.stringMatching(/no thread JSON reader is there to ask — add a selector set that knows this page \(.*selectors add FILE.*\), or save it with .*capture.* and report it$/) },
    });
  });
});
