import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway } from '../../lib/mcp/gateway';
import { onDemandAttachments } from '../../lib/mcp/attachments/http';
import { createSessionServer } from '../../lib/mcp/server';
import { allTools } from '../../lib/mcp/tools';

/**
 * Hostile arguments to every tool (the list is iterated, so a new tool is covered the day it is
 * added): each wrong value comes back as an isError result that names the field, never a crash,
 * a protocol error, or a call that reaches the browser.
 */
async function session() {
  const gateway = new BrowserGateway({ home: '/nonexistent-comet-relay-home', settings: { ...readSettings({}), COMET_HOST_WAIT: 0 }, transport: 'stdio' });
  const local = onDemandAttachments({ home: '/nonexistent-comet-relay-home', settings: readSettings({}) });
  const server = createSessionServer({ tools: allTools, settings: readSettings({}), gateway, attachments: local.attachments });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hostile', version: '1' });
  await client.connect(clientSide);
  return { client, close: async () => { await client.close(); await local.close(); } };
}

/** Values of the wrong kind for a field, whatever its schema: the field's own type is left out. */
function wrongValuesFor(schema: z.ZodType): unknown[] {
  const candidates: unknown[] = [{ injected: ['object'] }, [1, 2], 'a string', 12.5, -1, true, '\u0000\u202e😀'.repeat(3)];
  return candidates.filter((value) => !schema.safeParse(value).success);
}

describe('every tool refuses wrong arguments, naming the field', () => {
  it('each field of each tool', async () => {
    const { client, close } = await session();
    let checked = 0;
    try {
      for (const tool of allTools) {
        for (const [field, schema] of Object.entries(tool.inputSchema)) {
          for (const value of wrongValuesFor(schema as z.ZodType)) {
            const result = await client.callTool({ name: tool.name, arguments: { [field]: value } });
            const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
            expect(result.isError, `${tool.name}.${field} = ${JSON.stringify(value)}`).toBe(true);
            expect(text, `${tool.name}.${field} = ${JSON.stringify(value)}`).toContain(field);
            checked += 1;
          }
        }
      }
    } finally {
      await close();
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('arguments that are not an object at all', async () => {
    const { client, close } = await session();
    try {
      for (const tool of allTools) {
        const result = await client.callTool({ name: tool.name, arguments: 'nonsense' as never }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
        expect(result.isError, tool.name).toBe(true);
      }
    } finally {
      await close();
    }
  });
});
