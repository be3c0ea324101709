import { describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { TabService } from '../../lib/worker/calls/tabs';
import type { FakeTab } from '../support/fake-wxt-browser';
import { fakeThreadCalls } from '../support/fake-tabs';
import { panelRouter } from '../support/panel-router';

/**
 * An agent's switch to a mode Perplexity says the account cannot use now is not made (its rate-limit status, read by
 * the tab that would switch, lib/worker/calls/router.ts `refuseUsedUpMode`): only a body that says so refuses; a mode
 * the reader maps no entry to costs no request; the person's own switch from the side panel is theirs.
 */
const state = vi.hoisted(() => ({
  stored: { settings: { requireApproval: false, readOnly: false } } as Record<string, unknown>,
  tabs: { 7: { id: 7, windowId: 1, title: 'Tides — Perplexity', url: 'https://www.perplexity.ai/search/tides-abc', active: true } } as Record<number, FakeTab>,
}));
vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state));

const statusBody = (research: object) => JSON.stringify({ modes: { research, labs: { available: true, remaining_detail: { kind: 'not_provided' } } } });
const usedUp = statusBody({ available: false, remaining_detail: { kind: 'exact', remaining: 0 } });

const PAGE = {};

const switchTo = (mode: string): Request => ({
  kind: 'request',
  id: `switch-${mode}`,
  method: 'page.mode',
  params: { mode },
  origin: { clientId: 'a', clientName: 'Agent a', tool: 'comet_mode', door: 'loopback' },
});

/** A connected page whose thread JSON fetch answers `status`; what reached it, in order. */
async function world(status: (signal: AbortSignal) => Promise<{ status: number; body: string }>) {
  const sent: string[] = [];
  const pages = {
    state: (tabId: number) => ({ tabId, url: state.tabs[tabId]?.url, title: state.tabs[tabId]?.title }),
    whenReady: async () => {},
    request: async (_tabId: number, method: string, params: { mode?: string; path?: string }, signal: AbortSignal) => {
      sent.push(params.path ?? (params.mode ? `${method}(${params.mode})` : method));
      if (method === 'threads.fetch') return status(signal);
      return { mode: params.mode ?? 'standard', source: 'switched', previous: 'standard', changed: true, verified: true };
    },
    // One document throughout, no prompt posted before: what a prompt's path asks of the page hub.
    document: () => PAGE,
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
  } as unknown as PageHub;
  const tabService = new TabService(pages);
  await tabService.drive(7);
  // The real thread calls (their account reader), over the same page.
  const { calls } = fakeThreadCalls((tabId, method, params, signal) => pages.request(tabId, method, params, signal ?? new AbortController().signal, () => {}) as Promise<unknown>);
  const { router, panels } = panelRouter(pages, tabService, { threads: calls });
  const run = async (request: Request) => {
    const replies: Envelope[] = [];
    await router.handle(request, (m) => replies.push(m));
    return replies.at(-1);
  };
  return { sent, run, router, panels };
}

describe("a mode the account's rate-limit status says it cannot use now", () => {
  it('is not switched to: the error says what Perplexity said and what to do, and the page is not touched', async () => {
    const w = await world(async () => ({ status: 200, body: usedUp }));
    expect(await w.run(switchTo('deep-research'))).toMatchObject({
      kind: 'error',
      error: {
        code: 'AGENT_ERROR',
        message: 'Perplexity says deep-research is not available to this account now (0 left), so the mode was not switched. Use another mode; this one may come back once its limit resets, or with another plan.',
      },
    });
    expect(w.sent).toEqual(['/rest/rate-limit/status']);
  });

  it('a mode the reader maps no entry to costs no request; one the body says is available is switched to', async () => {
    const w = await world(async () => ({ status: 200, body: usedUp }));
    expect(await w.run(switchTo('learn'))).toMatchObject({ kind: 'result' });
    expect(await w.run(switchTo('create'))).toMatchObject({ kind: 'result' });
    expect(w.sent).toEqual(['page.mode(learn)', '/rest/rate-limit/status', 'page.mode(create)']);
  });

  it('no answer to go by: a 429, an empty or unreadable body, a moved shape, a fetch that never answers: switched as before', async () => {
    const answers = [
      async () => ({ status: 429, body: '' }),
      async () => ({ status: 200, body: '' }),
      async () => ({ status: 200, body: '<html>oops</html>' }),
      async () => ({ status: 200, body: JSON.stringify({ limits: { research: false } }) }),
      async () => ({ status: 200, body: statusBody({ available: 'no' }) }),
      // Never answers: given up after MODE_LIMIT_MS (3 s), the request cancelled.
      (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')))),
    ];
    for (const answer of answers) {
      const w = await world(answer);
      expect(await w.run(switchTo('deep-research'))).toMatchObject({ kind: 'result' });
      expect(w.sent).toEqual(['/rest/rate-limit/status', 'page.mode(deep-research)']);
    }
  });

  it("comet_ask's kept mode, set again where the page dropped it, is asked about as comet_mode's switch is: the prompt not sent (review 11d, L4)", async () => {
    const w = await world(async () => ({ status: 200, body: usedUp }));
    const reply = await w.run({ ...switchTo('deep-research'), id: 'ask', method: 'page.ask', params: { prompt: 'Research tides', keepMode: 'deep-research' }, origin: { clientId: 'a', clientName: 'Agent a', tool: 'comet_ask', door: 'loopback' } });
    expect(reply).toMatchObject({
      kind: 'error',
      error: { code: 'AGENT_ERROR', message: expect.stringMatching(/^The prompt was not sent: this session chose deep-research mode with comet_mode, the page shows standard, and setting deep-research again failed: Perplexity says deep-research is not available to this account now \(0 left\)/) },
    });
    expect(w.sent).toEqual(['page.mode', '/rest/rate-limit/status']);
    // Said once, with what to do (review 11e, N3: "plan.. Choose").
    expect(JSON.stringify(reply)).not.toContain('..');
  });

  it('a new chat in a kept mode the account cannot use now: refused before the conversation is left (review 11e, N2)', async () => {
    const w = await world(async () => ({ status: 200, body: usedUp }));
    const reply = await w.run({ ...switchTo('deep-research'), id: 'new', method: 'page.ask', params: { prompt: 'Research tides', newChat: true, keepMode: 'deep-research' }, origin: { clientId: 'a', clientName: 'Agent a', tool: 'comet_ask', door: 'loopback' } });
    expect(reply).toMatchObject({
      kind: 'error',
      error: { code: 'AGENT_ERROR', message: expect.stringMatching(/^The prompt was not sent and no new chat was opened: this session chose deep-research mode with comet_mode, and Perplexity says deep-research is not available to this account now \(0 left\)\. Choose another mode/) },
    });
    expect(w.sent.filter((m) => m !== 'page.draft')).toEqual(['/rest/rate-limit/status']);
    expect(state.tabs[7]?.url).toBe('https://www.perplexity.ai/search/tides-abc');
  });

  it('Read-only turned on while the limits are read: the switch is not made (review 11e, N1)', async () => {
    let answer!: () => void;
    const read = new Promise<void>((resolve) => (answer = resolve));
    const w = await world(async () => {
      await read;
      return { status: 200, body: statusBody({ available: true, remaining_detail: { kind: 'not_provided' } }) };
    });
    const switching = w.run(switchTo('deep-research'));
    await vi.waitFor(() => expect(w.sent).toEqual(['/rest/rate-limit/status']));
    await w.panels.settings.update({ readOnly: true });
    answer();
    expect(await switching).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(w.sent).toEqual(['/rest/rate-limit/status']);
    state.stored = { settings: { requireApproval: false, readOnly: false } };
  });

  it("the person's own switch from the side panel is not asked about", async () => {
    const w = await world(async () => ({ status: 200, body: usedUp }));
    await w.router.local('page.mode', { mode: 'deep-research' });
    expect(w.sent).toEqual(['page.mode(deep-research)']);
  });
});
