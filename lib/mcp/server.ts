import os from 'node:os';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { RequestHandlerExtra, RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Settings } from '../config/settings';
import { RelayError } from '../protocol/errors';
import { traceClock } from '../protocol/ports';
import { cliCommand } from '../relay/invocation';
import { VERSION } from '../relay/version';
import type { AttachmentAccess } from './attachments/http';
import type { BrowserGateway } from './gateway';
import type { Door } from '../protocol/doors';
import { offeredAt, type SessionMemory, type ToolContext, type ToolDefinition, toolAccess } from './tool';
import { allTools } from './tools';
import { toolListing } from './tool-listing';
import { EVENT_GUIDE } from './tools/threads';
import { offersThreadResources, serveThreadResources } from './resources';
import { requestShapeInWords } from './request-shape';

/**
 * One MCP server per client session, each with its own gateway (its own relay connection), so
 * sessions never see each other's calls. tools/list needs no browser.
 *
 * tools/list and tools/call are answered here, on the SDK's low-level Server, rather than by its
 * McpServer: a plain call and a task-augmented call (MCP tasks) run the same handler (the SDK's own
 * path for task-capable tools would answer a plain call by polling its task store every few seconds,
 * which a held thread call cannot afford), and the listing is our own (tool-listing.ts). McpServer's
 * registerTool would only build, for every session, zod objects and closures nothing reads: `serve`
 * makes a session per client (the Agent API one per call), so that was most of what a live session
 * kept (docs/measured.md, serve under session churn).
 */
export interface SessionOptions {
  tools: ToolDefinition[];
  settings: Settings;
  gateway: BrowserGateway;
  attachments: AttachmentAccess;
  /** The HTTP door the session came in by (`serve`); none for stdio. Only to say why a tool is not served. */
  door?: Door;
  /** Started to serve only tools that read (`--read-only`, or `serve --public-url` without `--allow-acting`). */
  readOnly?: boolean;
}

/**
 * What a client puts before the tools (MCP initialize): the way through them, and the thread
 * family's event guide when that family is served. The guide is said here and in the one tool
 * that starts threads; the tools that answer a thread point back to it.
 */
export function instructionsFor(tools: readonly ToolDefinition[]): string {
  const names = new Set(tools.map((tool) => tool.name));
  return [
    "comet-relay drives Perplexity in the user's own browser.",
    names.has('comet_ask') ? 'Typical use: comet_ask, then comet_wait for the answer, then comet_get_sources.' : '',
    names.has('call_perplexity_computer')
      ? 'For long multi-step work hand a task to Perplexity Computer with call_perplexity_computer and keep its thread_id for follow-ups. ' +
        `${EVENT_GUIDE} Progress notifications carry the thread_id from the first one on.`
      : '',
    names.has('comet_connect')
      ? 'If a tool says no browser is connected, call comet_connect (it starts one); if that fails, ask the user to open their browser with the comet-relay extension.'
      : 'If a tool says no browser is connected, ask the user to open their browser with the comet-relay extension.',
  ]
    .filter(Boolean)
    .join(' ');
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A tools/call whose `_meta` holds this key (true) comes back with the same key in its result's
 * `_meta`: the milliseconds each hop held the call (lib/protocol/messages.ts Trace) and this
 * process's own (`mcp`). The bench's profile of a round trip; nothing else asks for it.
 */
export const TRACE_META = 'comet-relay/trace';

/** How long a finished MCP task's result is kept when the client names no ttl. */
const DEFAULT_TASK_TTL_MS = 3_600_000;
/**
 * What a task lives beyond its hold, at the least: the turn's submit (up to 90 s), the relay's grace
 * on the wait (30 s), and time for the client to fetch the result. The SDK's store deletes a task
 * `ttl` after its creation whatever its status, so a ttl shorter than this would drop the result
 * of a task still held; MCP lets the receiver choose the actual ttl, and the task says it.
 */
const TASK_TTL_MARGIN_MS = 300_000;
/**
 * The longest a task is kept, whatever the client asks: a day. The store's timer takes no more than 2^31−1 ms (a
 * month asked for ran out at once, and a running task was dropped: review 8, long-run #3); the task says its ttl.
 */
const MAX_TASK_TTL_MS = 86_400_000;
/** How long a question asked inside a call may wait for the person, at the least. */
const MIN_ELICIT_WAIT_MS = 300_000;
/** The browser's answer to whether an upload may be stored: its policy alone, nothing is held (an act, not a send). */
const ADMIT_TIMEOUT_MS = 10_000;

/**
 * The browser's refusal of an upload as the caller should read it: its policy's words stand; an extension older than
 * the method, or one that did not answer, is named as such, with nothing stored (review 11a, R4, R5).
 */
function admitFailed(error: RelayError): RelayError {
  if (error.code === 'INVALID_PARAMS' && error.message.includes('"attachments.admit"')) {
    return new RelayError(
      'VERSION_MISMATCH',
      "The browser's comet-relay extension is older than this comet-relay and cannot say whether files may be stored for an upload, so none was. Reload or update the extension on the browser's extensions page (comet://extensions in Comet, chrome://extensions in Chrome), then call again.",
    );
  }
  if (error.code === 'TIMEOUT') {
    return new RelayError('TIMEOUT', `The browser did not say within ${ADMIT_TIMEOUT_MS / 1000} s whether files may be stored for an upload, so none was. Call again; if it happens again, run \`${cliCommand('doctor')}\`.`);
  }
  return error;
}

/** A session's MCP server, and how many MCP tasks it runs now (a session running one is in use between its polls). */
export type SessionServer = Server & { tasksRunning(): number };

export function createSessionServer({ tools, settings, gateway, attachments, door, readOnly }: SessionOptions): SessionServer {
  const session: SessionMemory = {};
  const tasks = new SessionTasks();
  const offersTasks = tools.some((tool) => tool.taskSupport);
  const offersResources = offersThreadResources(tools);
  const server = new Server(
    { name: 'comet-relay', version: VERSION },
    {
      instructions: instructionsOf(tools),
      jsonSchemaValidator: new WhenElicited(),
      // What McpServer declared for registered tools (listChanged included), kept as clients knew it.
      capabilities: {
        tools: { listChanged: true },
        ...(offersResources ? { resources: {} } : {}),
        ...(offersTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      },
      ...(offersTasks ? { taskStore: tasks.store } : {}),
    },
  );
  server.oninitialized = () => {
    const client = server.getClientVersion();
    gateway.identify({ name: client?.name ?? 'unknown client', version: client?.version });
  };
  server.onclose = () => tasks.abortAll();

  const canElicit = () => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
  };

  /**
   * `taskId` when the call runs as an MCP task. Its request was answered (CreateTaskResult) at
   * once, so its progress cannot ride on that request: over Streamable HTTP a notification related
   * to an answered request has no stream and is dropped. A task's progress goes out unrelated (the
   * session's event stream; MCP keeps the progress token valid until the task ends), and each
   * message becomes the task's statusMessage, which a client polling tasks/get sees.
   */
  async function run(tool: ToolDefinition, args: Record<string, unknown>, extra: Extra, signal: AbortSignal, taskId?: string): Promise<CallToolResult> {
    const asTask = taskId !== undefined;
    let step = 0;
    const progressToken = extra._meta?.progressToken;
    const trace = extra._meta?.[TRACE_META] === true ? {} : undefined;
    const started = trace ? performance.now() : 0;
    const browser = gateway.scoped({ tool: tool.name, summary: tool.summarize?.(args as never) }, tool.uses, trace);
    const context: ToolContext = {
      browser,
      session,
      settings,
      signal,
      // Storing an upload goes through the same checks as a browser call (its `uses`, the door, --read-only; review
      // 2026-12-05, http #2), then, its fields found sound, the person's policy in the browser: the side panel's
      // Read-only refuses it as every act (review 10, door I1).
      attachments: {
        envelope: async (request) => {
          await browser.admit?.('attachments.store');
          const askBrowser = async () => {
            await browser.call('attachments.admit', { filename: request.filename, sizeBytes: request.sizeBytes }, { signal, timeoutMs: ADMIT_TIMEOUT_MS }).catch((error: unknown) => {
              throw admitFailed(RelayError.from(error));
            });
            // Nothing made for a caller gone while the browser answered (review 11a, R3).
            if (signal.aborted) throw new RelayError('CANCELLED', 'The call was cancelled; no upload envelope was made.');
          };
          return attachments.envelope(request, askBrowser);
        },
        payloads: (urls) => attachments.payloads(urls),
      },
      asTask,
      progress(message) {
        if (taskId !== undefined) void tasks.store.updateTaskStatus(taskId, 'working', message).catch(() => {});
        if (progressToken === undefined) return;
        const notification = { method: 'notifications/progress' as const, params: { progressToken, progress: ++step, message } };
        void (asTask ? server.notification(notification) : extra.sendNotification(notification)).catch(() => {});
      },
      elicit:
        !asTask && canElicit()
          ? (params, elicitSignal) =>
              extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
                signal: elicitSignal,
                timeout: Math.max(settings.COMET_THREAD_HOLD_MS, MIN_ELICIT_WAIT_MS),
              })
          : undefined,
    };
    try {
      const result = atDoor(await tool.handler(args as never, context));
      return trace ? { ...result, _meta: { ...result._meta, [TRACE_META]: { ...trace, mcp: performance.now() - started, mcpSentAt: traceClock() } } } : result;
    } catch (error) {
      return atDoor(errorResult(error));
    }
  }
  /** A failure at the public door names no folder of the person's: their home is `~` there (review 8, errors #9). */
  const atDoor = (result: CallToolResult): CallToolResult => (door === 'public' && result.isError ? withoutHome(result) : result);

  const byName = new Map(tools.map((tool) => [tool.name, { tool, input: inputOf(tool) }]));
  // Our own listing (tool-listing.ts): lean, portable JSON Schemas instead of the SDK's conversion.
  const listing = listingFor(tools);
  server.setRequestHandler(ListToolsRequestSchema, () => listing);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = byName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, notServed(request.params.name, tools, { door, readOnly }));
    const parsed = entry.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return invalidArguments(entry.tool.name, parsed.error);
    if (!request.params.task) return run(entry.tool, parsed.data, extra, extra.signal);
    if (!entry.tool.taskSupport) {
      throw new McpError(ErrorCode.InvalidParams, `Tool ${entry.tool.name} does not run as an MCP task: call it without "task".`);
    }
    const taskStore = extra.taskStore;
    if (!taskStore) throw new McpError(ErrorCode.InternalError, 'No task store in this session.');
    const ttl = Math.min(MAX_TASK_TTL_MS, Math.max(extra.taskRequestedTtl ?? DEFAULT_TASK_TTL_MS, settings.COMET_THREAD_TASK_HOLD_MS + TASK_TTL_MARGIN_MS));
    const task = await taskStore.createTask({ ttl, pollInterval: 1000 });
    const signal = tasks.track(task.taskId);
    void run(entry.tool, parsed.data, extra, signal, task.taskId).then((result) => tasks.finish(task.taskId, result, taskStore, ttl));
    // The SDK's CallTool wrapper validates a task-augmented call's answer as a CreateTaskResult.
    return { task } as unknown as CallToolResult;
  });
  // The library's threads as resources (resources.ts), with the tool that exports them.
  if (offersResources) serveThreadResources(server, gateway, door === 'public' ? (text) => homeAsTilde(text) : undefined);
  requestShapeInWords(server);
  return Object.assign(server, { tasksRunning: () => tasks.count });
}

/**
 * The SDK builds an Ajv instance for every session it serves, which it needs only to check an elicitation's answer:
 * made on the first elicitation instead, and per session still (Ajv keeps every schema it compiled).
 */
class WhenElicited implements jsonSchemaValidator {
  private inner?: AjvJsonSchemaValidator;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.inner ??= new AjvJsonSchemaValidator();
    return this.inner.getValidator(schema);
  }
}

/**
 * What every session of a process derives alike from its tools, made once: `serve` makes a session per client (the
 * Agent API one per call), and building each tool's schemas again for each was most of a session's cost and the
 * garbage that grew serve's heap under churn (issue 23; bench (r)). Tool definitions and each door's list of them
 * are constants, so one listing object (and one instructions text) serves every session of a door.
 */
const inputs = new WeakMap<ToolDefinition, z.ZodObject<z.ZodRawShape>>();
/**
 * Why a tools/call names a tool this session does not serve. One of comet-relay's that this server leaves out is said
 * so, with why, so that an agent whose prompt names it stops trying and the person knows what to restart with (review
 * 8, errors #2); a name of no tool of ours is only "not found". Still a protocol error: the tool is not in tools/list.
 */
export function notServed(name: string, tools: readonly ToolDefinition[], how: { door?: Door; readOnly?: boolean } = {}): string {
  const tool = allTools.find((t) => t.name === name);
  if (!tool) return `Tool ${name} not found: tools/list names the ${tools.length} tools this server serves.`;
  const use = 'Use the tools tools/list names';
  // What the public door never offers, no flag serves there (fixes review 2).
  if (how.door === 'public' && !offeredAt(tool, 'public')) return `Tool ${name} is not served here: it is never offered through the public door (the Agent API's), only to local clients. ${use}.`;
  const why =
    how.readOnly && toolAccess(tool) === 'act'
      ? 'this server serves only tools that read (it was started with --read-only, or as serve --public-url without --allow-acting)'
      : 'this server was started with a --tools list that leaves it out';
  return `Tool ${name} is not served here: ${why}. ${use}; the person at the browser can start comet-relay again to serve it (\`${cliCommand(`help ${how.door ? 'serve' : 'mcp'}`)}\`).`;
}

const listings = new WeakMap<readonly ToolDefinition[], { tools: ReturnType<typeof toolListing>[] }>();
const instructions = new WeakMap<readonly ToolDefinition[], string>();

function inputOf(tool: ToolDefinition): z.ZodObject<z.ZodRawShape> {
  const made = inputs.get(tool) ?? z.object(tool.inputSchema);
  inputs.set(tool, made);
  return made;
}

function listingFor(tools: readonly ToolDefinition[]): { tools: ReturnType<typeof toolListing>[] } {
  const made = listings.get(tools) ?? { tools: tools.map(toolListing) };
  listings.set(tools, made);
  return made;
}

function instructionsOf(tools: readonly ToolDefinition[]): string {
  const made = instructions.get(tools) ?? instructionsFor(tools);
  instructions.set(tools, made);
  return made;
}

/**
 * The MCP tasks of one session: the SDK's in-memory store, plus an abort signal per running task,
 * so tasks/cancel and the session's end stop the wait (the thread itself keeps running in Perplexity).
 */
class SessionTasks {
  private readonly running = new Map<string, AbortController>();
  /** Finished tasks whose result the client has not fetched yet → when the store drops it (its ttl). */
  private readonly unfetched = new Map<string, number>();
  readonly store: InMemoryTaskStore;

  constructor() {
    const { running, unfetched } = this;
    this.store = new (class extends InMemoryTaskStore {
      override async updateTaskStatus(taskId: string, status: Task['status'], message?: string, sessionId?: string) {
        await super.updateTaskStatus(taskId, status, message, sessionId);
        if (status === 'cancelled') running.get(taskId)?.abort();
      }

      override async getTaskResult(taskId: string, sessionId?: string) {
        const result = await super.getTaskResult(taskId, sessionId);
        unfetched.delete(taskId);
        return result;
      }
    })();
  }

  /**
   * Tasks running, and finished ones whose result waits for its client's tasks/result: `serve` keeps such a session
   * as it keeps one in a call (its book ends neither; review 14c: a burst of newcomers evicted a session between a
   * task's end and its client's next poll, and the answer was lost).
   */
  get count(): number {
    const now = Date.now();
    for (const [taskId, until] of this.unfetched) if (until <= now) this.unfetched.delete(taskId);
    return this.running.size + this.unfetched.size;
  }

  track(taskId: string): AbortSignal {
    const controller = new AbortController();
    this.running.set(taskId, controller);
    return controller.signal;
  }

  /** Stores the result through the request's view of the store, which also tells the client the new status. */
  async finish(taskId: string, result: CallToolResult, store: Pick<RequestTaskStore, 'storeTaskResult'>, ttl: number): Promise<void> {
    const controller = this.running.get(taskId);
    if (controller?.signal.aborted) return void this.running.delete(taskId);
    // Waiting for its client from before it stops running: no moment in which the session looks free.
    this.unfetched.set(taskId, Date.now() + ttl);
    this.running.delete(taskId);
    await store.storeTaskResult(taskId, result.isError ? 'failed' : 'completed', result).catch(() => this.unfetched.delete(taskId));
  }

  abortAll(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.unfetched.clear();
    this.store.cleanup();
  }
}

/** "[INVALID_PARAMS] …" naming every field the schema refused. */
function invalidArguments(toolName: string, error: z.ZodError): CallToolResult {
  const problems = error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`);
  return { content: [{ type: 'text', text: `[INVALID_PARAMS] Invalid arguments for ${toolName}: ${problems.join('; ')}.` }], isError: true };
}

/** "[CODE] message" for our typed errors, "Error: message" for anything unexpected (the reference's forms). */
export function errorResult(error: unknown): CallToolResult {
  const text =
    error instanceof RelayError
      ? `[${error.code}] ${error.message}${nextStep(error)}`
      : `Error: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** A result whose texts say `~` for this user's home folder (the errors' host records, sockets, executables). */
export function withoutHome(result: CallToolResult, home = os.homedir()): CallToolResult {
  const content = result.content.map((item) => (item.type === 'text' ? { ...item, text: homeAsTilde(item.text, home) } : item));
  return { ...result, content };
}

/**
 * `text` with this user's home folder said `~`, wherever it begins a path (`[/home/al]`, `file:///home/al/…`), and
 * only there: not inside a longer name on either side (`/home/alice`, `/home/al.old`, a URL's `/search/root-…`:
 * fixes review 2 #5, 3 #4). A Windows home also with forward slashes, JSON-escaped, and in any case.
 */
export function homeAsTilde(text: string, given = os.homedir()): string {
  // `HOME=/home/al/` is the folder /home/al (fixes review 4 #6).
  const home = given.replace(/(?<=.)[\\/]+$/, '');
  if (home.length < 2 || /^[A-Za-z]:$/.test(home)) return text;
  const windows = /^[A-Za-z]:\\/.test(home);
  const forms = windows ? [home, home.replaceAll('\\', '/'), home.replaceAll('\\', '\\\\')] : [home];
  const any = forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return text.replace(new RegExp(`(?<![\\w.~-])(?:${any})(?![\\w~-]|\\.\\w)`, windows ? 'gi' : 'g'), '~');
}

/**
 * The step after an error whose message only says what was found (the worker's JSON readers say which path of which
 * reader missed, for whoever writes the next reader): what the agent can tell the person (review 8, errors #8).
 */
function nextStep(error: RelayError): string {
  if (error.message.includes('selectors add')) return '';
  if (error.code === 'JSON_SHAPE') {
    return ` perplexity.ai's JSON is not in a shape comet-relay reads: the person can add a reader that knows it (\`${cliCommand('selectors add FILE')}\`) or report it with \`${cliCommand('doctor --page')}\`.`;
  }
  // A probe that found nothing on the page it names: the wrong page (the probe's own hint says so), or a page
  // Perplexity has redrawn, which the person can check, save and fix without a rebuild (review 13c, F9).
  if (error.code === 'SELECTOR_MISS') {
    return `${/[.!?]$/.test(error.message) ? '' : '.'} If that is the right page, Perplexity may have redrawn it: the person can check it with \`${cliCommand('doctor --page')}\`, save it with \`${cliCommand('capture')}\`, and add a selector set that reads it (\`${cliCommand('selectors add FILE')}\`).`;
  }
  return '';
}
