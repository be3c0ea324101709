import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, type Page, test } from '@playwright/test';
import type { MethodName, MethodParams, MethodResult } from '../../lib/protocol/methods';
import type { TurnSubmission } from '../../lib/protocol/threads/threads';
import { RelayClient } from '../../lib/relay/client';
import { startSimServer, type SimServer } from '../sim/server';
import { Harness, textOf } from '../support/harness';

/**
 * The side panel lists the Computer threads agents run, live, and answers
 * them; a Deep Research answer that asks first is a checkpoint comet_wait and comet_poll report,
 * and the panel answers it. Real Chromium, the real host, a real MCP client for comet_*, and a
 * RelayClient for the thread methods (the MCP tools over them are built on the other side).
 */
test.describe.configure({ mode: 'serial' });

let srv: SimServer;
let harness: Harness;
let panel: Page;
let agent: RelayClient;
let mcp: Client;

const asAgent = { origin: { tool: 'call_perplexity_computer' } };

function call<M extends MethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
  return agent.call(method, params, { timeoutMs: 90_000, ...asAgent });
}

async function startTask(scenario: string, message: string) {
  const started: TurnSubmission = await call('threads.start', { message: `${message} #scenario:${scenario}` });
  if ('notSent' in started) throw new Error(started.text);
  const checkpoint = await call('threads.wait', { threadId: started.threadId, turn: started.turn, timeoutMs: 45_000 });
  return { started, checkpoint };
}

test.beforeAll(async () => {
  srv = await startSimServer({ port: 0, generation: 'B', speed: 4 });
  harness = await Harness.start({ browserArgs: srv.chromiumArgs });
  await harness.waitForHost();
  await harness.openPerplexity();
  agent = new RelayClient({ home: harness.home, client: { name: 'computer-agent' }, transport: 'stdio' });
  mcp = await harness.stdioClient('research-agent');
  panel = await harness.openPanel();
  await panel.setViewportSize({ width: 360, height: 1400 });
});

test.afterAll(async () => {
  agent?.close();
  await harness?.close();
  await srv?.close();
});

test("the panel lists an agent's Computer thread with its event, and answers its question", async () => {
  const { started, checkpoint } = await startTask('computer-question', 'Write the quarterly report');
  expect(checkpoint.event).toBe('ask_user_question');
  const thread = panel.getByTestId('thread').filter({ hasText: 'Write the quarterly report' }).first();
  await expect(thread).toHaveAttribute('data-status', 'waiting');
  await expect(thread).toContainText('Asks you a question');
  await expect(thread).toContainText('by computer-agent');
  const form = thread.getByTestId('interaction');
  await expect(form).toContainText('Which format should I use for the report?');
  await form.getByRole('button', { name: 'DOCX', exact: true }).click();
  await expect(thread.getByTestId('interaction')).toHaveCount(0);
  // The panel follows the thread after answering it; the agent's own wait sees the same.
  await expect(thread).toHaveAttribute('data-status', 'done');
  const done = await call('threads.wait', { threadId: started.threadId, turn: 0, timeoutMs: 45_000 });
  expect(done.text).toContain('You answered “DOCX”');
});

test('a sign-in opened from the panel lets the task go on', async () => {
  const { started, checkpoint } = await startTask('computer-auth', 'Email me a summary of my unread Slack messages');
  expect(checkpoint).toMatchObject({ event: 'auth_required', interactions: [{ connector: 'slack' }] });
  const thread = panel.getByTestId('thread').filter({ hasText: 'Email me a summary' }).first();
  await expect(thread).toContainText('Needs you to sign in');
  const link = thread.getByRole('link', { name: 'Sign in' });
  await expect(link).toHaveAttribute('href', checkpoint.interactions[0]?.authUrl ?? '');
  const [signIn] = await Promise.all([harness.context.waitForEvent('page'), link.click()]);
  await signIn.waitForLoadState();
  await expect(signIn.locator('h1')).toHaveText('Slack connected');
  const done = await call('threads.wait', { threadId: started.threadId, turn: 0, timeoutMs: 45_000 });
  expect(done).toMatchObject({ event: 'complete', text: 'Done! Sent the summary to your email.' });
  await signIn.close();
});

test('Deep Research that asks first: comet_wait and comet_poll report the questions, the panel answers them', async () => {
  const mcpCall = async (name: string, args: Record<string, unknown> = {}) => {
    const raw = await mcp.callTool({ name, arguments: args }, undefined, { timeout: 90_000 });
    return { text: textOf(raw), raw: raw as { structuredContent?: Record<string, unknown> } };
  };
  await mcpCall('comet_connect');
  expect((await mcpCall('comet_mode', { mode: 'deep-research' })).text).toContain('deep-research');
  await mcpCall('comet_ask', { prompt: 'The state of browser agents #scenario:research-clarify', newChat: true });
  const waited = await mcpCall('comet_wait', { timeout: 60_000 });
  expect(waited.text).toMatch(/^Agent is waiting for your input: Before I start: two quick questions\n1\. Which time range should the research cover\? \(choices: Last 12 months \| Last 5 years \| All time\)\n2\. Who is the report for\? \(choices: Engineers \| Executives\)\nUnanswered, the questions are skipped at \d{4}-/);
  const polled = await mcpCall('comet_poll');
  const waitingFor = polled.raw.structuredContent?.waitingFor as { questions?: { text: string }[] } | undefined;
  expect(waitingFor?.questions?.map((q) => q.text)).toEqual(['Which time range should the research cover?', 'Who is the report for?']);

  const thread = panel.getByTestId('thread').filter({ hasText: 'The state of browser agents' }).first();
  const form = thread.getByTestId('interaction');
  await form.getByRole('group', { name: 'Which time range should the research cover?' }).getByRole('radio', { name: 'Last 5 years' }).check();
  await form.getByRole('group', { name: 'Who is the report for?' }).getByRole('radio', { name: 'Executives' }).check();
  await form.getByRole('button', { name: 'Send answers' }).click();
  await expect(thread.getByTestId('interaction')).toHaveCount(0);
  const report = await mcpCall('comet_wait', { timeout: 60_000 });
  expect(report.text).toContain('You chose “Last 5 years” and “Executives”');
});
