import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BrowserGateway } from '../../lib/mcp/gateway';
import { createSessionServer } from '../../lib/mcp/server';
import { allTools } from '../../lib/mcp/tools';
import { FakeBrowser, fakeContext, removeFakeHomes } from '../support/fake-browser';
import { connectSession } from '../support/mcp-session';
import { checkpoint, question, THREAD } from '../support/thread-fixtures';

/**
 * The session server with a real MCP client over an in-memory transport and a scripted browser:
 * tools/list, task-augmented calls (MCP tasks) and their cancellation, progress, elicitation.
 */

const submitted = { threadId: THREAD, url: `https://www.perplexity.ai/computer/tasks/${THREAD}`, turn: 1 };
const open: Client[] = [];

async function connect(browser: FakeBrowser, options: { elicitation?: boolean; env?: Record<string, string> } = {}) {
  const session = await connectSession(browser, {
    env: { COMET_THREAD_PROGRESS_MS: '100', ...options.env },
    capabilities: options.elicitation ? { elicitation: {} } : {},
  });
  open.push(session.client);
  return session;
}

/** The same session server over real Streamable HTTP (one session), as `comet-relay serve` runs it. */
async function connectHttp(browser: FakeBrowser) {
  const { context } = fakeContext(browser, {}, { COMET_THREAD_PROGRESS_MS: '100' });
  const gateway = { identify() {}, scoped: () => browser } as unknown as BrowserGateway;
  const server = createSessionServer({ tools: allTools, settings: context.settings, gateway, attachments: context.attachments });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
  await server.connect(transport);
  const listener = http.createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  const { port } = listener.address() as { port: number };
  const client = new Client({ name: 'unit-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  closers.push(async () => {
    await client.close();
    await server.close();
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });
  return { client };
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

/** A threads.wait that settles only when told, and says when its caller cancelled it. */
function heldWait() {
  let release: (value: ReturnType<typeof checkpoint>) => void = () => {};
  let cancelled: () => void = () => {};
  const wasCancelled = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  const answer = (_params: unknown, options: { signal?: AbortSignal }) => {
    options.signal?.addEventListener('abort', () => cancelled(), { once: true });
    return new Promise<ReturnType<typeof checkpoint>>((resolve) => {
      release = resolve;
    });
  };
  return { answer, release: (value: ReturnType<typeof checkpoint>) => release(value), wasCancelled };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeFakeHomes);

describe('thread tools in the session server', () => {
  it('tools/list offers the task tools as optional MCP tasks, with output schemas and read/act hints', async () => {
    const { client } = await connect(new FakeBrowser());
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['call_perplexity_computer', 'answer_question', 'confirm_action_approve', 'confirm_action_deny', 'notify_connected']) {
      expect(byName.get(name)?.execution?.taskSupport, name).toBe('optional');
      expect(byName.get(name)?.outputSchema?.properties, name).toHaveProperty('task_status');
    }
    // No `execution` means taskSupport forbidden (the spec's default), so the list leaves it out.
    expect(byName.get('read_thread')?.execution).toBeUndefined();
    expect(byName.get('read_thread')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('confirm_action_approve')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('comet_ask')?.execution).toBeUndefined();
  });

  it('a schema refusal names the field', async () => {
    const { client } = await connect(new FakeBrowser());
    const result = await client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'x', mode: 'turbo' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/\[INVALID_PARAMS\] Invalid arguments for call_perplexity_computer: mode: /);
  });

  it('progress: the first notification once the thread exists carries the thread_id, steps and beats follow', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', (params, options) => {
      options.onProgress?.('Searching Hacker News');
      return wait.answer(params, options);
    });
    const { client } = await connect(browser);
    const messages: string[] = [];
    const result = client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'x' } }, undefined, {
      onprogress: (progress) => {
        messages.push(progress.message ?? '');
        if (messages.some((m) => m.includes('still working'))) wait.release(checkpoint({ turn: 1 }));
      },
    });
    expect((await result).structuredContent).toMatchObject({ event: 'complete' });
    expect(messages.find((m) => m.startsWith('thread_id'))).toMatch(new RegExp(`^thread_id ${THREAD}: working.*read_thread`));
    expect(messages).toContain(`thread_id ${THREAD}: Searching Hacker News`);
  });

  it('progress from the first second: beats and the page\'s steps go out while the turn is submitted, then the thread_id', async () => {
    const sent: string[] = [];
    let release: () => void = () => {};
    const browser = new FakeBrowser()
      .on('threads.start', (_params, options) => {
        options.onProgress?.('attaching 1 file');
        return new Promise((resolve) => {
          release = () => resolve(submitted);
        });
      })
      .on('threads.wait', checkpoint({ turn: 1 }));
    const { client } = await connect(browser);
    const result = client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'x' } }, undefined, {
      onprogress: (progress) => {
        sent.push(progress.message ?? '');
        if (sent.some((m) => m.includes('still submitting'))) release();
      },
    });
    expect((await result).structuredContent).toMatchObject({ event: 'complete' });
    const known = sent.findIndex((m) => m.includes(`thread_id ${THREAD}`));
    expect(sent[0]).toMatch(/^new Computer task: opening a background tab and submitting the prompt/);
    expect(sent.slice(0, known)).toEqual(expect.arrayContaining(['new Computer task: attaching 1 file', expect.stringMatching(/^new Computer task: still submitting \(\d+ s\)/)]));
    expect(sent[known]).toMatch(/read_thread/);
  });

  it('a follow-up names its thread_id in the first progress, before the message is even sent', async () => {
    const sent: string[] = [];
    let release: () => void = () => {};
    const browser = new FakeBrowser()
      .on('threads.send', () => new Promise((resolve) => {
        release = () => resolve(submitted);
      }))
      .on('threads.wait', checkpoint({ turn: 1 }));
    const { client } = await connect(browser);
    const result = client.callTool({ name: 'call_perplexity_computer', arguments: { thread_id: THREAD, message: 'and then?' } }, undefined, {
      onprogress: (progress) => {
        sent.push(progress.message ?? '');
        release();
      },
    });
    await result;
    expect(sent[0]).toMatch(new RegExp(`^thread_id ${THREAD}: sending\\. If this call is cut off, call read_thread with this thread_id`));
  });

  it('a task-augmented call returns a task at once, waits with the long hold, and delivers the seed result', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client, settings } = await connect(browser);
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, { task: { ttl: 60_000 } });
    const seen: string[] = [];
    let result: unknown;
    for await (const message of stream) {
      seen.push(message.type);
      if (message.type === 'taskCreated') {
        while (!browser.calls.some((c) => c.method === 'threads.wait')) await new Promise((r) => setTimeout(r, 10));
        expect(browser.calls.find((c) => c.method === 'threads.wait')?.params.timeoutMs).toBeGreaterThanOrEqual(settings.COMET_THREAD_TASK_HOLD_MS - 1_000);
    expect(browser.calls.find((c) => c.method === 'threads.wait')?.params.timeoutMs).toBeLessThanOrEqual(settings.COMET_THREAD_TASK_HOLD_MS);
        wait.release(checkpoint({ turn: 1, text: 'Finished the report.' }));
      }
      if (message.type === 'result') result = message.result;
    }
    expect(seen[0]).toBe('taskCreated');
    expect(result).toMatchObject({ structuredContent: { thread_id: THREAD, event: 'complete', text: 'Finished the report.' } });
  });

  it('a client ttl shorter than the hold is raised to outlive it: the task and its result are still there when the thread finishes', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client, settings } = await connect(browser);
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, { task: { ttl: 300 } });
    const first = await stream.next();
    const task = first.value?.type === 'taskCreated' ? first.value.task : undefined;
    expect(task?.ttl).toBeGreaterThan(settings.COMET_THREAD_TASK_HOLD_MS);
    while (!browser.calls.some((c) => c.method === 'threads.wait')) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 600)); // twice the ttl the client asked for
    expect((await client.experimental.tasks.getTask(task?.taskId ?? '')).status).toBe('working');
    wait.release(checkpoint({ turn: 1, text: 'Finished the report.' }));
    let result: unknown;
    for await (const message of stream) if (message.type === 'result') result = message.result;
    expect(result).toMatchObject({ structuredContent: { thread_id: THREAD, event: 'complete' } });
  });

  it('a client ttl past what a timer holds is cut to a day, said in the task, and the task lives on (review 8, long-run #3)', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client } = await connect(browser);
    const month = 30 * 86_400_000; // past 2^31−1 ms: Node runs such a timer at once
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, { task: { ttl: month } });
    const first = await stream.next();
    const task = first.value?.type === 'taskCreated' ? first.value.task : undefined;
    expect(task?.ttl).toBe(86_400_000);
    while (!browser.calls.some((c) => c.method === 'threads.wait')) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect((await client.experimental.tasks.getTask(task?.taskId ?? '')).status).toBe('working');
    wait.release(checkpoint({ turn: 1, text: 'Finished the report.' }));
    for await (const message of stream) if (message.type === 'result') expect(message.result).toMatchObject({ structuredContent: { event: 'complete' } });
  });

  it('task mode over Streamable HTTP: progress, the first carrying the thread_id, reaches the client, and tasks/get says it too', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client } = await connectHttp(browser);
    const messages: string[] = [];
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, {
      task: { ttl: 60_000 },
      onprogress: (progress) => {
        messages.push(progress.message ?? '');
      },
    });
    const first = await stream.next();
    const taskId = first.value?.type === 'taskCreated' ? first.value.task.taskId : '';
    for (let i = 0; i < 300 && !messages.some((m) => m.includes(`thread_id ${THREAD}`)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(messages.find((m) => m.includes(THREAD))).toMatch(new RegExp(`thread_id ${THREAD}: .*read_thread`));
    expect((await client.experimental.tasks.getTask(taskId)).statusMessage).toContain(`thread_id ${THREAD}`);
    wait.release(checkpoint({ turn: 1, text: 'Finished the report.' }));
    let result: unknown;
    for await (const message of stream) if (message.type === 'result') result = message.result;
    expect(result).toMatchObject({ structuredContent: { thread_id: THREAD, event: 'complete' } });
  });

  it("tasks/cancel stops the task's wait (the thread keeps running in Perplexity)", async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client } = await connect(browser);
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, { task: {} });
    const first = await stream.next();
    expect(first.value?.type).toBe('taskCreated');
    const taskId = first.value?.type === 'taskCreated' ? first.value.task.taskId : '';
    while (!browser.calls.some((c) => c.method === 'threads.wait')) await new Promise((r) => setTimeout(r, 10));
    await client.experimental.tasks.cancelTask(taskId);
    await wait.wasCancelled;
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    await stream.return(undefined);
  });

  it('closing the session stops a running task wait', async () => {
    const wait = heldWait();
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', wait.answer);
    const { client } = await connect(browser);
    const stream = client.experimental.tasks.callToolStream({ name: 'call_perplexity_computer', arguments: { message: 'Long job' } }, undefined, { task: {} });
    await stream.next();
    while (!browser.calls.some((c) => c.method === 'threads.wait')) await new Promise((r) => setTimeout(r, 10));
    await client.close();
    await wait.wasCancelled;
  });

  it('a client that declared elicitation answers the question inside the call', async () => {
    const browser = new FakeBrowser()
      .on('threads.start', submitted)
      .on('threads.wait', checkpoint({ turn: 1, event: 'ask_user_question', interactions: [question()] }))
      .on('threads.wait', checkpoint({ turn: 1, text: 'Here is the PDF.' }))
      .on('threads.respond', submitted);
    const { client } = await connect(browser, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer_1: 'PDF' } };
    });
    const result = await client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'Make a report' } });
    expect(asked[0]).toContain('Which format should I use?');
    expect(result.structuredContent).toMatchObject({ event: 'complete', text: 'Here is the PDF.' });
    expect(browser.calls.find((c) => c.method === 'threads.respond')?.params.reply).toEqual({ kind: 'answers', answers: { 'q-format': 'PDF' } });
  });

  it('a client without elicitation gets the checkpoint to answer with answer_question', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1, event: 'ask_user_question', interactions: [question()] }));
    const { client } = await connect(browser);
    const result = await client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'Make a report' } });
    expect(result.structuredContent).toMatchObject({ event: 'ask_user_question', task_status: 'input_required', interactive: { respond_with_tool: 'answer_question' } });
  });
});
