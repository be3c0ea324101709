import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from '../config/settings';
import { RelayError } from '../protocol/errors';
import { VERSION } from '../relay/version';
import type { BrowserGateway } from './gateway';
import { type SessionMemory, type ToolContext, type ToolDefinition, toolAccess } from './tool';

/**
 * One McpServer per client session, each with its own gateway (its own relay connection), so
 * sessions never see each other's calls. tools/list needs no browser.
 */
export interface SessionOptions {
  tools: ToolDefinition[];
  settings: Settings;
  gateway: BrowserGateway;
}

const INSTRUCTIONS =
  'comet-relay drives Perplexity in the user\'s own browser. Typical use: comet_ask, then comet_wait for the answer, then comet_get_sources. If a tool says no browser is connected, ask the user to open their browser with the comet-relay extension.';

export function createSessionServer({ tools, settings, gateway }: SessionOptions): McpServer {
  const session: SessionMemory = {};
  const server = new McpServer({ name: 'comet-relay', version: VERSION }, { instructions: INSTRUCTIONS });
  server.server.oninitialized = () => {
    const client = server.server.getClientVersion();
    gateway.identify({ name: client?.name ?? 'unknown client', version: client?.version });
  };
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: {
          title: tool.title,
          readOnlyHint: toolAccess(tool) === 'read',
          destructiveHint: toolAccess(tool) === 'act' ? Boolean(tool.destructive) : undefined,
          openWorldHint: true,
        },
      },
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        let step = 0;
        const progressToken = extra._meta?.progressToken;
        const context: ToolContext = {
          browser: gateway.scoped({ tool: tool.name, summary: tool.summarize?.(args as never) }, tool.uses),
          session,
          settings,
          signal: extra.signal,
          progress(message) {
            if (progressToken === undefined) return;
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } })
              .catch(() => {});
          },
        };
        try {
          return await tool.handler(args as never, context);
        } catch (error) {
          return errorResult(error);
        }
      },
    );
  }
  return server;
}

/** "[CODE] message" for our typed errors, "Error: message" for anything unexpected (the reference's forms). */
export function errorResult(error: unknown): CallToolResult {
  const text =
    error instanceof RelayError
      ? `[${error.code}] ${error.message}`
      : `Error: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text }], isError: true };
}
