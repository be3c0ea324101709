import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { onDemandAttachments } from './attachments/http';
import { BrowserGateway, type GatewayOptions } from './gateway';
import { createSessionServer } from './server';
import type { ToolDefinition } from './tool';

/** `comet-relay mcp`: one MCP session on stdin/stdout, for desktop and CLI clients. */
export async function runStdio(options: Omit<GatewayOptions, 'transport'> & { tools: ToolDefinition[] }): Promise<void> {
  const gateway = new BrowserGateway({ ...options, transport: 'stdio' });
  const uploads = onDemandAttachments(options);
  const server = createSessionServer({ tools: options.tools, settings: options.settings, gateway, attachments: uploads.attachments, readOnly: options.readOnly });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  gateway.close();
  await server.close().catch(() => {});
  await uploads.close();
}
