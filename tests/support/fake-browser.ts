import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSettings, type Settings } from '../../lib/config/settings';
import { Attachments } from '../../lib/mcp/attachments/http';
import { AttachmentStore } from '../../lib/mcp/attachments/store';
import type { ToolBrowser } from '../../lib/mcp/gateway';
import type { ToolContext, ToolDefinition } from '../../lib/mcp/tool';
import { RelayError } from '../../lib/protocol/errors';
import type { MethodName, MethodParams, MethodResult } from '../../lib/protocol/methods';
import type { CallOptions } from '../../lib/relay/client';

/**
 * A ToolBrowser for unit tests of tool handlers: each method answers from a script; every call is
 * recorded with its params and options. A call whose signal aborts rejects with [CANCELLED], as
 * the relay client does.
 */
type Answer<M extends MethodName> = (params: MethodParams<M>, options: CallOptions) => MethodResult<M> | Promise<MethodResult<M>>;

export interface RecordedCall {
  method: MethodName;
  params: Record<string, unknown>;
  options: CallOptions;
}

export class FakeBrowser implements ToolBrowser {
  readonly calls: RecordedCall[] = [];
  private readonly answers = new Map<MethodName, Answer<MethodName>[]>();

  /** Answers the next call of `method` (queued: each `on` answers one call; the last one repeats). */
  on<M extends MethodName>(method: M, answer: Answer<M> | MethodResult<M>): this {
    const fn = typeof answer === 'function' ? (answer as Answer<M>) : () => answer as MethodResult<M>;
    const queue = this.answers.get(method) ?? [];
    queue.push(fn as unknown as Answer<MethodName>);
    this.answers.set(method, queue);
    return this;
  }

  fail(method: MethodName, code: RelayError['code'], message: string, data?: RelayError['data']): this {
    return this.on(method, () => {
      throw new RelayError(code, message, data);
    });
  }

  methods(): MethodName[] {
    return this.calls.map((c) => c.method);
  }

  async call<M extends MethodName>(method: M, params: MethodParams<M>, options: CallOptions = {}): Promise<MethodResult<M>> {
    this.calls.push({ method, params: params as Record<string, unknown>, options });
    const queue = this.answers.get(method);
    const answer = queue && (queue.length > 1 ? queue.shift() : queue[0]);
    if (!answer) throw new Error(`FakeBrowser: no answer scripted for ${method}`);
    const signal = options.signal;
    if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before it started.');
    const result = Promise.resolve(answer(params as never, options)) as Promise<MethodResult<M>>;
    if (!signal) return result;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new RelayError('CANCELLED', 'The call was cancelled by the client.'));
      signal.addEventListener('abort', onAbort, { once: true });
      result.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async hostStatus(): Promise<never> {
    throw new Error('FakeBrowser: hostStatus is not scripted');
  }

  async ensureBrowser() {
    return { launched: false };
  }
}

export interface FakeContext {
  context: ToolContext;
  progress: string[];
  controller: AbortController;
  home: string;
  attachments: Attachments;
}

const homes: string[] = [];

/** Removes the temporary homes fakeContext made (call from afterAll). */
export function removeFakeHomes(): void {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
}

export function fakeContext(browser: ToolBrowser, overrides: Partial<ToolContext> = {}, env: Record<string, string> = {}): FakeContext {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-unit-'));
  homes.push(home);
  const settings: Settings = readSettings({ COMET_THREAD_HOLD_MS: '5000', ...env });
  const store = new AttachmentStore({ home, maxBytes: settings.COMET_ATTACHMENT_MAX_BYTES, ttlMs: settings.COMET_ATTACHMENT_TTL_MS });
  const attachments = new Attachments({ store, base: async () => 'http://127.0.0.1:4321' });
  const progress: string[] = [];
  const controller = new AbortController();
  const context: ToolContext = {
    browser,
    session: {},
    settings,
    signal: controller.signal,
    progress: (message) => progress.push(message),
    attachments,
    asTask: false,
    ...overrides,
  };
  return { context, progress, controller, home, attachments };
}

/** Runs a tool's handler the way the server does: arguments parsed by its input schema first. */
export async function runTool(tools: ToolDefinition[], name: string, args: Record<string, unknown>, context: ToolContext) {
  const { z } = await import('zod');
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = z.object(tool.inputSchema).parse(args);
  // Like the server's scoped gateway: a method the tool does not declare in `uses` is refused.
  const browser = context.browser;
  const declared = (operation: string) => {
    if (!(tool.uses as readonly string[]).includes(operation)) throw new Error(`${name} called ${operation}, which it does not declare in its uses`);
  };
  const scoped: typeof browser = {
    ...browser,
    call: ((method, params, options) => {
      declared(method);
      return browser.call(method, params, options);
    }) as typeof browser.call,
    hostStatus: (options) => browser.hostStatus(options),
    ensureBrowser: (signal) => {
      declared('browser.launch');
      return browser.ensureBrowser(signal);
    },
  };
  const result = await tool.handler(parsed as never, { ...context, browser: scoped });
  const text = result.content.find((c) => c.type === 'text');
  return { result, text: text && 'text' in text ? text.text : '', isError: Boolean(result.isError), structured: result.structuredContent as Record<string, unknown> | undefined };
}
