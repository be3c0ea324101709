import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: { method: string; params?: unknown }, extra: unknown) => Promise<unknown>;

/** What to send instead, per method whose params a caller gets wrong most. */
const NEXT_STEP: Record<string, string> = {
  'tools/call': 'send params {"name": "<tool>", "arguments": {…}}, the arguments an object as tools/list describes the tool',
  'resources/read': 'send params {"uri": "<uri>"} with a uri resources/list or resources/templates/list gives',
};

/**
 * A request whose params are not of its method's shape is the caller's mistake, said in words as Invalid params
 * (-32602). The SDK parses every request with its method's zod schema before any handler of ours runs, and answered
 * such a request -32603 "Internal error" with zod's issues dumped as JSON for its message (`arguments` sent as a
 * string, a tools/call with no name, a resources/read with no uri: review 14c, F1; no dump: review 8, errors #4).
 * Called once the session's handlers are all set: each is wrapped so that a parse failure of the request's own
 * `params` becomes that sentence; anything else passes as it was.
 */
export function requestShapeInWords(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  // The SDK's own field (1.x): if it moves, this says so at the first session rather than dumping zod again unseen.
  if (!(handlers instanceof Map)) throw new Error('the MCP SDK no longer keeps its request handlers in _requestHandlers: update lib/mcp/request-shape.ts');
  for (const [method, inner] of [...(handlers as Map<string, Handler>)]) {
    handlers.set(method, async (request: { method: string; params?: unknown }, extra: unknown) => {
      try {
        return await inner(request, extra);
      } catch (error) {
        throw paramsProblem(method, error) ?? error;
      }
    });
  }
}

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

/** The request's own parse failure (every issue under `params`), as Invalid params in words; undefined for anything else. */
function paramsProblem(method: string, error: unknown): McpError | undefined {
  const issues = (error as { issues?: unknown })?.issues;
  // zod's error, classic or core (`$ZodError`, what the SDK's parse throws under zod 4).
  if (!/^\$?ZodError$/.test(String((error as { name?: unknown })?.name)) || !Array.isArray(issues) || issues.length === 0) return undefined;
  if (!(issues as Issue[]).every((i) => Array.isArray(i.path) && i.path[0] === 'params')) return undefined;
  const said = (issues as Issue[]).slice(0, 5).map((i) => `${i.path.map(String).join('.')}: ${i.message.replace(/^Invalid input: /, '')}`);
  const step = NEXT_STEP[method] ?? `send the params the MCP specification gives ${method}`;
  return new McpError(ErrorCode.InvalidParams, `${method} with params of the wrong shape (${said.join('; ')}): ${step}.`);
}
