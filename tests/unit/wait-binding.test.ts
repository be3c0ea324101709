import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import type { ToolBrowser } from '../../lib/mcp/gateway';
import type { ToolContext } from '../../lib/mcp/tool';
import { allTools } from '../../lib/mcp/tools';
import { ASK_FAILED_NOTE, cometTools, NOT_ASKED_NOTE } from '../../lib/mcp/tools/comet';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';
import { RelayError } from '../../lib/protocol/errors';

/**
 * comet_wait is for the answer to this session's own comet_ask (docs/tools.md): a session that asked nothing
 * must not be bound to the ask another session made in the same tab (review of 2026-12-02, #18).
 */
const wait = allTools.find((t) => t.name === 'comet_wait');
if (!wait) throw new Error('comet_wait is missing');

async function callWait(session: ToolContext['session']) {
  const sent: Record<string, unknown>[] = [];
  const browser = {
    call: async (_method: string, params: Record<string, unknown>) => {
      sent.push(params);
      return { status: 'completed', response: 'The answer.', steps: [], currentStep: '', turnIndex: 3, questionText: 'q', truncated: false, totalLength: 11 };
    },
  } as unknown as ToolBrowser;
  const args = z.object(wait!.inputSchema).parse({});
  const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
  const result = (await wait!.handler(args, context)) as { content: { type: string; text: string }[] };
  return { params: sent[0] ?? {}, text: result.content[0]?.text ?? '' };
}

describe('comet_wait binds to its own session only', () => {
  it('a session that asked waits for the turn its ask made, and for the stream its ask opened (when it was submitted)', async () => {
    const { params, text } = await callWait({ lastAsk: { turnIndex: 2, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'k', askedAt: 1_700_000_000_000 } });
    expect(params).toMatchObject({ turnIndex: 2, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'k', askedAt: 1_700_000_000_000 });
    expect(params.latest).toBeUndefined();
    expect(text).toBe('The answer.');
  });

  it('a session that never asked waits on the page’s latest turn, not on another session’s ask, and says so', async () => {
    const { params, text } = await callWait({});
    expect(params).toMatchObject({ latest: true });
    expect(params.turnIndex).toBeUndefined();
    expect(text.startsWith(NOT_ASKED_NOTE)).toBe(true);
    expect(text).toContain('The answer.');
  });

  it('a comet_ask whose prompt the page took with no turn showing yet binds the comet_wait it asks for to that prompt, not to the session’s previous ask', async () => {
    const ask = allTools.find((t) => t.name === 'comet_ask');
    const taken = { turnIndex: 4, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'the new one', askedAt: 1_700_000_100_000 };
    const browser = {
      call: async (method: string) => {
        if (method === 'page.ask') throw new RelayError('TIMEOUT', 'the page took the prompt (its composer emptied) but shows no turn for it yet; do not send it again: call comet_wait', { taken });
        return { mode: 'standard' };
      },
    } as unknown as ToolBrowser;
    const session: ToolContext['session'] = { lastAsk: { turnIndex: 2, conversationUrl: taken.conversationUrl, questionKey: 'the old one', askedAt: 1_700_000_000_000 } };
    const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
    await expect(ask!.handler(z.object(ask!.inputSchema).parse({ prompt: 'the new one', newChat: true }), context)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(session.lastAsk).toEqual(taken);
    const { params } = await callWait(session);
    expect(params).toMatchObject(taken);
  });

  it('a comet_ask whose mode could not be set again sent nothing: comet_wait does not answer with the previous ask either', async () => {
    const ask = allTools.find((t) => t.name === 'comet_ask');
    const browser = {
      call: async (method: string) => {
        // The worker sets the session's mode again before sending, and refuses the ask when it cannot.
        if (method === 'page.ask') throw new RelayError('SELECTOR_MISS', 'The prompt was not sent: this session chose deep-research mode with comet_mode, …');
        throw new Error(`${method} must not be called`);
      },
    } as unknown as ToolBrowser;
    const session: ToolContext['session'] = { mode: 'deep-research', lastAsk: { turnIndex: 2, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'the old one', askedAt: 1 } };
    const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
    await expect(ask!.handler(z.object(ask!.inputSchema).parse({ prompt: 'the new one' }), context)).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    const { params, text } = await callWait(session);
    expect(params).toMatchObject({ latest: true });
    expect(text.startsWith(ASK_FAILED_NOTE)).toBe(true);
  });

  for (const code of ['PERMISSION_DENIED', 'TIMEOUT', 'CANCELLED', 'AGENT_ERROR'] as const) {
    it(`a comet_ask that failed (${code}) with no turn of its prompt known: comet_wait never answers it with the session's previous ask, and says so (review 2026-12-05, worker #1)`, async () => {
      const ask = allTools.find((t) => t.name === 'comet_ask');
      const browser = {
        call: async (method: string) => {
          if (method === 'page.ask') throw new RelayError(code, 'the ask failed');
          return { mode: 'standard' };
        },
      } as unknown as ToolBrowser;
      const session: ToolContext['session'] = { lastAsk: { turnIndex: 2, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'the old one', askedAt: 1_700_000_000_000 } };
      const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
      await expect(ask!.handler(z.object(ask!.inputSchema).parse({ prompt: 'the new one', newChat: true }), context)).rejects.toMatchObject({ code });
      const { params, text } = await callWait(session);
      expect(params).toMatchObject({ latest: true });
      expect(params.questionKey).toBeUndefined();
      expect(text.startsWith(ASK_FAILED_NOTE)).toBe(true);
      // A later ask that succeeds binds again, without the note.
      const ok = { call: async (method: string) => (method === 'page.ask' ? { turnIndex: 5, conversationUrl: 'https://www.perplexity.ai/search/x', questionKey: 'again', submittedAt: 1, afterTurn: 4, baselineUrl: '', previousAnswerKey: '' } : { mode: 'standard' }) } as unknown as ToolBrowser;
      await ask!.handler(z.object(ask!.inputSchema).parse({ prompt: 'again', newChat: true }), { ...context, browser: ok });
      const after = await callWait(session);
      expect(after.params).toMatchObject({ turnIndex: 5, questionKey: 'again' });
      expect(after.text).toBe('The answer.');
    });
  }
});

describe('comet_poll says when the turn it shows is not this session’s ask (review 2026-12-05, worker #3)', () => {
  const poll = allTools.find((t) => t.name === 'comet_poll');
  if (!poll) throw new Error('comet_poll is missing');
  const own = { turnIndex: 1, conversationUrl: 'https://www.perplexity.ai/search/tides-abc', questionKey: 'Why are there two tides a day?', askedAt: 1 };
  async function callPoll(session: ToolContext['session'], shown: { questionText: string; url: string }) {
    const snapshot = { status: 'completed', steps: [], currentStep: '', response: 'An answer.', hasStopButton: false, hasLoadingSpinner: false, proseCount: 1, turnCount: 2, lastTurnIndex: 1, truncated: false, totalLength: 10, ...shown };
    const browser = { call: async () => snapshot } as unknown as ToolBrowser;
    const context = { browser, session, settings: readSettings({}), signal: new AbortController().signal, progress() {}, attachments: undefined as never, asTask: false } as ToolContext;
    const result = (await poll!.handler(z.object(poll!.inputSchema).parse({}), context)) as { structuredContent: { note?: string } };
    return result.structuredContent;
  }

  it('another question, or another conversation: a note; its own turn, or a session that asked nothing: none', async () => {
    expect((await callPoll({ lastAsk: own }, { questionText: 'What is a neap tide?', url: own.conversationUrl })).note).toMatch(/another question than this session's last comet_ask/);
    expect((await callPoll({ lastAsk: own }, { questionText: 'Why are there two tides a day?', url: 'https://www.perplexity.ai/search/other-xyz' })).note).toMatch(/another conversation/);
    expect((await callPoll({ lastAsk: own }, { questionText: 'Why are there two tides a day?', url: own.conversationUrl })).note).toBeUndefined();
    expect((await callPoll({}, { questionText: 'What is a neap tide?', url: own.conversationUrl })).note).toBeUndefined();
    // A page that shows no question for the turn says nothing either way: no note.
    expect((await callPoll({ lastAsk: own }, { questionText: '', url: own.conversationUrl })).note).toBeUndefined();
  });
});

afterAll(removeFakeHomes);

describe('comet_stop and comet_get_sources say when the turn they acted on is not this session’s ask (review 8, many clients L1, L2)', () => {
  const own = { turnIndex: 1, conversationUrl: 'https://www.perplexity.ai/search/tides-abc', questionKey: 'Why are there two tides a day?', askedAt: 1 };
  const latest = (questionText: string) => ({ status: 'working' as const, steps: [], currentStep: '', response: '', hasStopButton: true, hasLoadingSpinner: false, proseCount: 1, turnCount: 2, lastTurnIndex: 1, truncated: false, totalLength: 0, questionText, url: own.conversationUrl });
  async function call(tool: string, session: ToolContext['session'], shownQuestion: string) {
    const browser = new FakeBrowser()
      .on('page.stop', { stopped: true, confirmed: true, message: 'Agent stopped.' })
      .on('page.sources', { sources: [{ title: 'Tide tables', url: 'https://example.com/tides' }], grouped: 0, expanded: 0, fromTab: false })
      .on('page.poll', latest(shownQuestion));
    const { context } = fakeContext(browser);
    return (await runTool(cometTools, tool, {}, { ...context, session })).text;
  }

  it("another agent's turn on the same tab: said; this session's own, or a session that asked nothing: the reference's text alone", async () => {
    expect(await call('comet_stop', { lastAsk: own }, 'What is a neap tide?')).toMatch(/^Agent stopped\.\n\nThe page's latest turn is another question than this session's last comet_ask/);
    expect(await call('comet_get_sources', { lastAsk: own }, 'What is a neap tide?')).toMatch(/^Sources \(1\):[\s\S]*\n\nThe page's latest turn is another question than this session's last comet_ask/);
    expect(await call('comet_stop', { lastAsk: own }, own.questionKey)).toBe('Agent stopped.');
    expect(await call('comet_stop', {}, 'What is a neap tide?')).toBe('Agent stopped.');
  });
});

describe("a comet_wait beside the session's own comet_ask (clients send tool calls in parallel; review 15c, F1)", () => {
  const conv = 'https://www.perplexity.ai/search/tides-abc';
  const before = { turnIndex: 1, conversationUrl: conv, questionKey: 'the old question', askedAt: 1_700_000_000_000 };
  const handle = (questionKey: string, turnIndex: number) => ({ turnIndex, conversationUrl: conv, questionKey, submittedAt: 1_700_000_100_000, afterTurn: turnIndex - 1, baselineUrl: conv, previousAnswerKey: '' }) as never;
  const answerTo = (params: Record<string, unknown>) =>
    ({ status: 'completed', response: `the answer to ${String(params.questionKey ?? 'the latest turn')}`, steps: [], currentStep: '', turnIndex: 2, questionText: '', truncated: false, totalLength: 20, url: conv }) as never;
  const held = () => {
    let release!: () => void;
    return { gate: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
  };

  it('waits for the ask still being sent (an approval, a busy page) and returns its answer, not the previous one', async () => {
    const approval = held();
    const browser = new FakeBrowser()
      .on('page.ask', async () => {
        await approval.gate;
        return handle('the new question', 2);
      })
      .on('page.wait', (params) => answerTo(params as Record<string, unknown>));
    const { context } = fakeContext(browser);
    const ctx = { ...context, session: { lastAsk: { ...before } } };
    const asking = runTool(cometTools, 'comet_ask', { prompt: 'the new question' }, ctx);
    const waiting = runTool(cometTools, 'comet_wait', {}, ctx);
    const polled = await runTool(cometTools, 'comet_poll', {}, { ...ctx, browser: new FakeBrowser().on('page.poll', () => ({ status: 'completed', response: 'x', steps: [], currentStep: '', proseCount: 1, turnCount: 1, lastTurnIndex: 1, questionText: 'the old question', url: conv, hasStopButton: false }) as never) });
    expect(polled.text).toContain("This session's comet_ask is still being sent");
    const sources = new FakeBrowser().on('page.sources', { sources: [], grouped: 0, expanded: 0, fromTab: false });
    expect((await runTool(cometTools, 'comet_get_sources', {}, { ...ctx, browser: sources })).text).toBe(
      "No sources found on the current page.\n\nThis session's comet_ask is still being sent: this is the page's latest turn before it.",
    );
    approval.release();
    await asking;
    expect((await waiting).text).toBe('the answer to the new question');
  });

  it("says so when its timeout runs out first; nothing is waited on in the page", async () => {
    const approval = held();
    const browser = new FakeBrowser().on('page.ask', async () => {
      await approval.gate;
      return handle('the new question', 2);
    });
    const { context } = fakeContext(browser);
    const ctx = { ...context, session: { lastAsk: { ...before } } };
    const asking = runTool(cometTools, 'comet_ask', { prompt: 'the new question' }, ctx);
    const { text } = await runTool(cometTools, 'comet_wait', { timeout: 10 }, ctx);
    expect(text).toMatch(/^This session's comet_ask is still being sent .* Call comet_wait again\.$/);
    expect(browser.calls.filter((c) => c.method === 'page.wait')).toHaveLength(0);
    approval.release();
    await asking;
  });

  it('an earlier ask denied after a later one was taken leaves the later one bound', async () => {
    let deny!: (error: unknown) => void;
    const browser = new FakeBrowser()
      .on('page.ask', () => new Promise<never>((_, reject) => (deny = reject)))
      .on('page.ask', async () => handle('the new question', 2))
      .on('page.wait', (params) => answerTo(params as Record<string, unknown>));
    const { context } = fakeContext(browser);
    const session: ToolContext['session'] = { lastAsk: { ...before } };
    const ctx = { ...context, session };
    const first = runTool(cometTools, 'comet_ask', { prompt: 'a prompt the person denies' }, ctx).catch((error: unknown) => error);
    await runTool(cometTools, 'comet_ask', { prompt: 'the new question' }, ctx);
    deny(new RelayError('PERMISSION_DENIED', 'The person at the browser denied the request.'));
    expect(await first).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(session.lastAsk?.questionKey).toBe('the new question');
    expect((await runTool(cometTools, 'comet_wait', {}, ctx)).text).toBe('the answer to the new question');
  });
});
