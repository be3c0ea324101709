import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { readSettings } from '../../lib/config/settings';
import { BrowserGateway } from '../../lib/mcp/gateway';
import { onDemandAttachments } from '../../lib/mcp/attachments/http';
import { createSessionServer } from '../../lib/mcp/server';
import { allTools, selectTools } from '../../lib/mcp/tools';
import { offeredAt } from '../../lib/mcp/tool';
import { PROMPT_MAX } from '../../lib/protocol/limits';
import type { Door } from '../../lib/protocol/doors';

/**
 * Hostile arguments to every tool (the list is iterated, so a new tool is covered the day it is
 * added): each wrong value comes back as an isError result that names the field, never a crash,
 * a protocol error, or a call that reaches the browser.
 */
async function session(tools = allTools, door?: Door, readOnly?: boolean) {
  const gateway = new BrowserGateway({ home: '/nonexistent-comet-relay-home', settings: { ...readSettings({}), COMET_HOST_WAIT: 0 }, transport: 'stdio' });
  const local = onDemandAttachments({ home: '/nonexistent-comet-relay-home', settings: readSettings({}) });
  const server = createSessionServer({ tools, settings: readSettings({}), gateway, attachments: local.attachments, door, readOnly });
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

describe('what the extension would refuse is refused by the tool, in its own words (review 8, errors #3)', () => {
  it('a prompt past the limit names the tool and its field, never a method of the extension', async () => {
    const { client, close } = await session();
    try {
      for (const [name, field] of [['comet_ask', 'prompt'], ['call_perplexity_computer', 'message']] as const) {
        const result = await client.callTool({ name, arguments: { [field]: 'x'.repeat(PROMPT_MAX + 1) } });
        const text = (result.content as { text?: string }[])[0]?.text ?? '';
        expect(result.isError, name).toBe(true);
        expect(text).toMatch(new RegExp(`^\\[INVALID_PARAMS\\] Invalid arguments for ${name}: ${field}: `));
        expect(text).not.toMatch(/page\.ask|threads\.start/);
      }
    } finally {
      await close();
    }
  });
});

describe("answer_question's answers", () => {
  it('an answer of no accepted kind says which kinds are (review 8, errors #7)', async () => {
    const { client, close } = await session();
    try {
      const result = await client.callTool({ name: 'answer_question', arguments: { thread_id: 'AbCdEfGhIjKlMnOpQrStUv', answers: { q: { x: 1 } } } });
      expect((result.content as { text?: string }[])[0]?.text).toMatch(/^\[INVALID_PARAMS\] Invalid arguments for answer_question: answers\.q: expected a string, a number, a boolean, or a list of 1 to 500 strings/);
    } finally {
      await close();
    }
  });
});

describe('a tool this server leaves out says why, not only "not found" (review 8, errors #2)', () => {
  const call = async (tools: typeof allTools, name: string, door?: Door, readOnly?: boolean) => {
    const { client, close } = await session(tools, door, readOnly);
    try {
      return await client.callTool({ name, arguments: { prompt: 'hi' } }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
    } finally {
      await close();
    }
  };

  it('read-only, a --tools list, the public door, and a name of no tool at all', async () => {
    expect(await call(selectTools({ readOnly: true }), 'comet_ask', undefined, true)).toMatch(
      /Tool comet_ask is not served here: this server serves only tools that read \(it was started with --read-only, or as serve --public-url without --allow-acting\)\. .*help mcp`\)\.$/,
    );
    // Only --tools left it out, whatever kind of tool it is (fixes review 2).
    expect(await call(selectTools({ allow: ['comet_poll', 'comet_wait'] }), 'comet_ask')).toMatch(/Tool comet_ask is not served here: this server was started with a --tools list that leaves it out\. .*help mcp`\)\.$/);
    expect(await call(selectTools({ allow: ['comet_poll', 'comet_ask'] }), 'comet_wait', 'loopback')).toMatch(
      /Tool comet_wait is not served here: this server was started with a --tools list that leaves it out\. .*help serve`\)\.$/,
    );
    const never = allTools.find((tool) => !offeredAt(tool, 'public'));
    expect(never, 'a tool the public door never offers').toBeDefined();
    const atPublic = allTools.filter((tool) => offeredAt(tool, 'public'));
    const told = await call(atPublic, never?.name ?? '', 'public');
    expect(told).toMatch(new RegExp(`Tool ${never?.name} is not served here: it is never offered through the public door \\(the Agent API's\\), only to local clients\\. Use the tools tools/list names\\.$`));
    expect(await call(allTools, 'comet_nonsense')).toMatch(/Tool comet_nonsense not found: tools\/list names the \d+ tools this server serves\./);
  });
});

