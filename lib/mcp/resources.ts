import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { RelayError } from '../protocol/errors';
import { threadMarkdown } from '../protocol/library/markdown';
import { threadRefProblem, threadSlugOf } from '../protocol/library/thread-ref';
import type { BrowserGateway } from './gateway';
import type { ToolDefinition } from './tool';

/**
 * The person's Perplexity threads as MCP resources (issue 29), for clients that attach resources
 * to a conversation: `resources/list` gives the latest threads (paged by a cursor, the library's
 * offset) as `perplexity://thread/<slug>`, titled, `text/markdown`; the template
 * `perplexity://thread/{slug}` names any; `resources/read` is comet_export_thread's Markdown, whole.
 * Served only with the tool (the same door, read-only and allowlist rules decide both).
 */
export const THREAD_RESOURCE_TOOL = 'comet_export_thread';
const SCHEME = 'perplexity://thread/';
const PAGE = 50;

export function threadUri(slug: string): string {
  return `${SCHEME}${encodeURIComponent(slug)}`;
}

/** The slug a thread resource's URI names, or undefined. */
export function slugOfUri(uri: string): string | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  let slug: string;
  try {
    slug = decodeURIComponent(uri.slice(SCHEME.length));
  } catch {
    return undefined;
  }
  return threadSlugOf(slug) === slug ? slug : undefined;
}

export function offersThreadResources(tools: readonly ToolDefinition[]): boolean {
  return tools.some((tool) => tool.name === THREAD_RESOURCE_TOOL);
}

/** A relay error as the JSON-RPC error a resources request answers with: "[CODE] message", as the tools say it. */
function asMcpError(error: unknown, said: (text: string) => string = (text) => text): McpError {
  if (error instanceof McpError) return error;
  const e = RelayError.from(error);
  const code = e.code === 'INVALID_PARAMS' ? ErrorCode.InvalidParams : e.code === 'THREAD_NOT_FOUND' ? -32002 : ErrorCode.InternalError;
  return new McpError(code, said(`[${e.code}] ${e.message}`), e.data);
}

/** `said` words each error as the door it goes out of says it (the public door: no folder of the person's). */
export function serveThreadResources(server: Server, gateway: BrowserGateway, said?: (text: string) => string): void {
  const browser = (request: string) => gateway.scoped({ tool: request }, ['library.list', 'library.thread']);

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor;
    if (cursor !== undefined && !/^\d{1,7}$/.test(cursor)) throw new McpError(ErrorCode.InvalidParams, `Unknown cursor "${cursor.slice(0, 40)}": pass one resources/list returned.`);
    try {
      const page = await browser('resources/list').call('library.list', { limit: PAGE, offset: Number(cursor ?? 0) }, { signal: extra.signal, timeoutMs: 60_000 });
      const resources: Resource[] = page.threads.map((t) => ({
        uri: threadUri(t.slug),
        name: t.title,
        title: t.title,
        mimeType: 'text/markdown',
        ...(t.lastActivity ? { annotations: { lastModified: t.lastActivity } } : {}),
      }));
      return { resources, ...(page.nextOffset !== null ? { nextCursor: String(page.nextOffset) } : {}) };
    } catch (error) {
      throw asMcpError(error, said);
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: `${SCHEME}{slug}`, name: 'Perplexity thread', title: 'Perplexity thread', description: 'A whole thread of your library, as Markdown', mimeType: 'text/markdown' },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const slug = slugOfUri(uri);
    if (!slug) throw new McpError(ErrorCode.InvalidParams, `[INVALID_PARAMS] ${uri.startsWith(SCHEME) ? threadRefProblem(uri.slice(SCHEME.length)) : `"${uri.slice(0, 80)}" is not a ${SCHEME}<slug> resource.`}`);
    try {
      const thread = await browser('resources/read').call('library.thread', { thread: slug }, { signal: extra.signal, timeoutMs: 180_000 });
      return { contents: [{ uri, mimeType: 'text/markdown', text: threadMarkdown(thread) }] };
    } catch (error) {
      throw asMcpError(error, said);
    }
  });
}
