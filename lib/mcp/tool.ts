import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Settings } from '../config/settings';
import type { ToolBrowser } from './gateway';

/**
 * A tool is a small declarative object: what it is called, what it takes, whether it only reads
 * or acts on the browser, and a handler. Families (one file each) are listed in tools/index.ts.
 */
export type ToolAccess = 'read' | 'act';

/** What one MCP session remembers between tool calls (comet_wait binds to this session's comet_ask). */
export interface SessionMemory {
  /** This session's last question: comet_wait follows its turn, never another session's. */
  lastAsk?: { turnIndex: number; conversationUrl: string; questionKey: string };
}

export interface ToolContext {
  browser: ToolBrowser;
  session: SessionMemory;
  settings: Settings;
  signal: AbortSignal;
  /** Sends an MCP progress notification when the client asked for progress; otherwise a no-op. */
  progress(message: string): void;
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchema?: z.ZodRawShape;
  /** `read` tools never change the page or the browser; the read-only preset keeps only these. */
  access: ToolAccess;
  /** Acting tools that can lose the user's work (stopping an answer, navigating away). */
  destructive?: boolean;
  /** One line for the side panel's activity feed. */
  summarize?(args: z.infer<z.ZodObject<Shape>>): string;
  handler(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult>;
}

export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failure the tool reports as a normal sentence (the reference prints some failures this way). */
export function errorText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
