import type { Door } from '../../lib/protocol/doors';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserGateway } from '../../lib/mcp/gateway';
import { createSessionServer } from '../../lib/mcp/server';
import type { ToolDefinition } from '../../lib/mcp/tool';
import { allTools } from '../../lib/mcp/tools';
import { type FakeBrowser, fakeContext } from './fake-browser';

/**
 * One MCP session as `comet-relay mcp` serves it (lib/mcp/server.ts), with `browser` behind every tool and a real MCP
 * client on it over an in-memory transport. The caller closes the client.
 */
export async function connectSession(
  browser: FakeBrowser,
  options: { tools?: ToolDefinition[]; env?: Record<string, string>; capabilities?: ClientCapabilities; door?: Door } = {},
) {
  const { context } = fakeContext(browser, {}, options.env);
  const gateway = { identify() {}, scoped: () => browser } as unknown as BrowserGateway;
  const server = createSessionServer({ tools: options.tools ?? allTools, settings: context.settings, gateway, attachments: context.attachments, door: options.door });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(clientSide);
  return { client, server, settings: context.settings };
}
