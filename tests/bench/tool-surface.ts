import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from '../support/harness';
import { type ListWeight, listWeight, schemaFindings } from '../support/tool-weight';

/**
 * (n) How much of a model's context our tools take, beside Playwright MCP's when it is installed:
 * its package in this repository's node_modules, or the folder PLAYWRIGHT_MCP names (a scratch
 * install, e.g. `npm i @playwright/mcp` in /tmp/pwmcp, then PLAYWRIGHT_MCP=/tmp/pwmcp). It is never
 * installed by the bench; without it the row says so.
 */
export async function ourWeight(client: Client): Promise<ListWeight & { findings: number }> {
  const list = await client.listTools();
  const findings = list.tools.reduce((n, tool) => n + schemaFindings(tool.inputSchema).length + (tool.outputSchema ? schemaFindings(tool.outputSchema).length : 0), 0);
  return { ...listWeight(list), findings };
}

export async function playwrightMcpWeight(): Promise<(ListWeight & { version: string }) | undefined> {
  const dir = playwrightMcpDir();
  if (!dir) return undefined;
  const version = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(dir, 'cli.js'), '--headless'], stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    return { ...listWeight(await client.listTools()), version };
  } finally {
    await client.close();
  }
}

function playwrightMcpDir(): string | undefined {
  const candidates = [
    process.env.PLAYWRIGHT_MCP ? path.join(process.env.PLAYWRIGHT_MCP, 'node_modules', '@playwright', 'mcp') : undefined,
    process.env.PLAYWRIGHT_MCP,
  ];
  try {
    candidates.push(path.dirname(createRequire(path.join(ROOT, 'package.json')).resolve('@playwright/mcp/package.json')));
  } catch {
    // not installed here
  }
  return candidates.find((dir) => dir !== undefined && fs.existsSync(path.join(dir, 'cli.js')));
}
