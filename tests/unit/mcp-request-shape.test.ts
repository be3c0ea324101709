import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config/settings';
import type { AttachmentAccess } from '../../lib/mcp/attachments/http';
import type { BrowserGateway } from '../../lib/mcp/gateway';
import { createSessionServer } from '../../lib/mcp/server';
import { allTools } from '../../lib/mcp/tools';

/**
 * A tools/call (or resources/read) whose params are not of the request's shape is the caller's mistake: Invalid
 * params (-32602) naming the field and what to send (lib/mcp/request-shape.ts). The SDK answered -32603 "Internal
 * error" with zod's issues dumped as JSON, on stdio and both HTTP doors alike (review 14c, F1).
 */
async function session() {
  const gateway = { identify() {}, scoped: () => ({}), close() {} } as unknown as BrowserGateway;
  const attachments = {} as AttachmentAccess;
  const server = createSessionServer({ tools: allTools, settings: readSettings({}), gateway, attachments });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies: JSONRPCMessage[] = [];
  client.onmessage = (m) => replies.push(m);
  await server.connect(serverSide);
  await client.start();
  const ask = async (message: Record<string, unknown>) => {
    await client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
    for (let i = 0; i < 50 && !replies.some((r) => 'id' in r && r.id === message.id); i++) await new Promise((r) => setTimeout(r, 10));
    return replies.find((r) => 'id' in r && r.id === message.id) as { error?: { code: number; message: string } };
  };
  await ask({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  return { ask, close: () => server.close() };
}

describe('a request of the wrong shape is refused in words, as Invalid params', () => {
  it('tools/call with arguments that are not an object', async () => {
    const s = await session();
    const reply = await s.ask({ id: 1, method: 'tools/call', params: { name: 'comet_ask', arguments: 'what is the weather' } });
    await s.close();
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).not.toMatch(/^\s*\[/); // not a JSON dump of zod issues
    expect(reply.error?.message).toBe(
      'MCP error -32602: tools/call with params of the wrong shape (params.arguments: expected record, received string): send params {"name": "<tool>", "arguments": {…}}, the arguments an object as tools/list describes the tool.',
    );
  });

  it('tools/call without a tool name', async () => {
    const s = await session();
    const reply = await s.ask({ id: 2, method: 'tools/call', params: { arguments: {} } });
    await s.close();
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).not.toMatch(/^\s*\[/);
    expect(reply.error?.message).toMatch(/name/);
  });

  it('resources/read without a uri', async () => {
    const s = await session();
    const reply = await s.ask({ id: 3, method: 'resources/read', params: {} });
    await s.close();
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).not.toMatch(/^\s*\[/);
    expect(reply.error?.message).toMatch(/uri/);
  });
});

describe('a request of the right shape', () => {
  it('still reaches the tool, whose own argument check answers in its result', async () => {
    const s = await session();
    const reply = (await s.ask({ id: 4, method: 'tools/call', params: { name: 'comet_ask', arguments: { prompt: 7 } } })) as { error?: unknown; result?: { isError?: boolean; content: { text: string }[] } };
    await s.close();
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(true);
    expect(reply.result?.content[0]?.text).toMatch(/^\[INVALID_PARAMS\] Invalid arguments for comet_ask: prompt:/);
  });
});
