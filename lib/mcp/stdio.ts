import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { onDemandAttachments } from './attachments/http';
import { BrowserGateway, type GatewayOptions } from './gateway';
import { createSessionServer } from './server';
import type { ToolDefinition } from './tool';

/** `comet-relay mcp`: one MCP session on stdin/stdout, for desktop and CLI clients. */
export async function runStdio(
  options: Omit<GatewayOptions, 'transport'> & { tools: ToolDefinition[]; stdin?: Readable; stdout?: Writable },
): Promise<void> {
  const gateway = new BrowserGateway({ ...options, transport: 'stdio' });
  const uploads = onDemandAttachments(options);
  const server = createSessionServer({ tools: options.tools, settings: options.settings, gateway, attachments: uploads.attachments, readOnly: options.readOnly });
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // A stdin that fails (a reset socket, EIO) never ends: the SDK only reports the error, and the session would
    // live on with no client, attached to the host and its calls running (review 10, crash F2).
    // `on` for errors: one after the SDK let go of stdin must not be an uncaught 'error' event either.
    stdin.once('end', () => resolve()).once('close', () => resolve()).on('error', () => resolve());
  });
  await server.connect(transport);
  await closed;
  gateway.close();
  await server.close().catch(() => {});
  await uploads.close();
}
