import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instructionsFor } from '../../lib/mcp/server';
import { allTools, selectTools } from '../../lib/mcp/tools';
import { EVENT_GUIDE } from '../../lib/mcp/tools/threads';
import { THREAD_EVENTS } from '../../lib/protocol/threads/threads';
import { FakeBrowser, removeFakeHomes } from '../support/fake-browser';
import { connectSession } from '../support/mcp-session';
import { checkpoint, question, THREAD } from '../support/thread-fixtures';
import { listWeight, MODEL_BYTES_PER_TOOL, modelBytesBudget, schemaFindings, WHOLE_BYTES_PER_TOOL, wholeBytesBudget } from '../support/tool-weight';

/**
 * tools/list as a real MCP client receives it: within its weight budget, portable (what the MCP
 * Inspector's --strict checks, walked over every input and output schema), and with every tool,
 * parameter, default and required field the tool definitions hold.
 */

const open: Client[] = [];

async function connect(browser = new FakeBrowser(), tools = allTools) {
  const { client } = await connectSession(browser, { tools });
  open.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeFakeHomes);

describe('the weight of tools/list', () => {
  it(`what a model reads stays within ${MODEL_BYTES_PER_TOOL} bytes a tool and the whole list within ${WHOLE_BYTES_PER_TOOL}`, async () => {
    const client = await connect();
    const list = await client.listTools();
    const weight = listWeight(list);
    expect(weight.tools).toBe(25);
    expect(weight.modelBytes).toBeLessThanOrEqual(modelBytesBudget(weight.tools));
    expect(weight.wholeBytes).toBeLessThanOrEqual(wholeBytesBudget(weight.tools));
  });

  it('the event guide is said in the instructions and in call_perplexity_computer, in no other tool', async () => {
    for (const event of THREAD_EVENTS) expect(EVENT_GUIDE, event).toContain(event);
    const client = await connect();
    expect(client.getInstructions()).toContain(EVENT_GUIDE);
    const { tools } = await client.listTools();
    const saying = tools.filter((tool) => tool.description?.includes(EVENT_GUIDE)).map((tool) => tool.name);
    expect(saying).toEqual(['call_perplexity_computer']);
  });

  it('the instructions leave the guide out when no thread tool is served', () => {
    const comet = selectTools({ allow: ['comet_ask', 'comet_wait'] });
    expect(instructionsFor(comet)).not.toContain('call_perplexity_computer');
    expect(instructionsFor(comet)).toContain('comet_ask');
  });
});

describe('portable schemas (what the MCP Inspector --strict reports)', () => {
  it('no input or output schema has a finding', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const findings = tools.flatMap((tool) => [
      ...schemaFindings(tool.inputSchema).map((f) => `${tool.name} inputSchema${f.path}: ${f.rule}`),
      ...(tool.outputSchema ? schemaFindings(tool.outputSchema).map((f) => `${tool.name} outputSchema${f.path}: ${f.rule}`) : []),
    ]);
    expect(findings).toEqual([]);
    // comet_poll and the eleven thread tools return structuredContent.
    expect(tools.filter((tool) => tool.outputSchema).length).toBe(12);
  });

  it('the walker finds what zod writes by itself: a type array for a nullable, an untyped unknown, a remote or dangling $ref', () => {
    const raw = z.toJSONSchema(z.object({ title: z.string().nullable(), anything: z.unknown() }));
    expect(schemaFindings(raw).map((f) => `${f.path}: ${f.rule}`)).toEqual(['.properties.title: type-union', '.properties.anything: untyped-schema']);
    const refs = { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' }, b: { $ref: '#/$defs/missing' }, c: true } };
    expect(schemaFindings(refs).map((f) => f.rule)).toEqual(['remote-ref', 'dangling-ref', 'boolean-schema']);
  });

  it('no schema names a dialect: MCP takes 2020-12 by default', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(JSON.stringify(tools)).not.toContain('$schema');
  });
});

describe('nothing lost', () => {
  it('every parameter, default, enum and required field of every tool is in its input schema', async () => {
    const client = await connect();
    const listed = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect([...listed.keys()]).toEqual(allTools.map((tool) => tool.name));
    for (const tool of allTools) {
      const schema = listed.get(tool.name)?.inputSchema as Tool['inputSchema'] & { properties: Record<string, Record<string, unknown>> };
      expect(Object.keys(schema.properties), tool.name).toEqual(Object.keys(tool.inputSchema));
      const required = Object.entries(tool.inputSchema).filter(([, field]) => !z.safeParse(field, undefined).success).map(([name]) => name);
      expect(schema.required ?? [], tool.name).toEqual(required);
      for (const [name, field] of Object.entries(tool.inputSchema)) {
        const own = z.toJSONSchema(field, { io: 'input' }) as Record<string, unknown>;
        const property = schema.properties[name] ?? {};
        if ('default' in own) expect(property.default, `${tool.name}.${name} default`).toEqual(own.default);
        for (const key of ['enum', 'minimum', 'maximum', 'minLength', 'maxItems'] as const) {
          // ±(2^53 - 1) is zod's way of saying "any integer": no bound of the tool's own.
          if (key in own && Math.abs(Number(own[key])) !== Number.MAX_SAFE_INTEGER) expect(property[key], `${tool.name}.${name} ${key}`).toEqual(own[key]);
        }
        if (own.description) expect(property.description, `${tool.name}.${name} description`).toBe(own.description);
      }
    }
  });

  it('a string past a cap the list leaves out is still refused, naming the field', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'read_thread', arguments: { thread_id: 'x'.repeat(201) } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/\[INVALID_PARAMS\] Invalid arguments for read_thread: thread_id: /);
  });

  it('the client validates a result against the lean output schema and takes it', async () => {
    const browser = new FakeBrowser()
      .on('threads.start', { threadId: THREAD, url: `https://www.perplexity.ai/computer/tasks/${THREAD}`, turn: 0 })
      .on('threads.wait', checkpoint({ event: 'ask_user_question', interactions: [question()] }));
    const client = await connect(browser);
    const result = await client.callTool({ name: 'call_perplexity_computer', arguments: { message: 'Plan my trip' } });
    expect(result.structuredContent).toMatchObject({ thread_id: THREAD, event: 'ask_user_question', interactive: { respond_with_tool: 'answer_question' } });
  });
});
