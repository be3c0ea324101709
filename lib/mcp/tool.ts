import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Settings } from '../config/settings';
import type { AttachmentAccess } from './attachments/http';
import { type Access, accessOfAll, type Operation, reachableAt } from '../protocol/access';
import type { Door } from '../protocol/doors';
import type { ToolBrowser } from './gateway';
import type { AskBinding, PAGE_MODES } from '../protocol/page/page-methods';

type PageModeName = (typeof PAGE_MODES)[number];

/** Asks the person through the client (MCP elicitation form mode); a thread call's hold uses it to answer a checkpoint inside the call. */
export type Elicit = (request: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;

/**
 * A tool is a small declarative object: what it is called, what it takes, which operations it
 * uses (and so whether it only reads or acts), and a handler. Families (one file each) are listed
 * in tools/index.ts.
 */

/** What one MCP session remembers between tool calls (comet_wait binds to this session's comet_ask). */
export interface SessionMemory {
  /** This session's last question: comet_wait follows its turn, never another session's. */
  lastAsk?: AskBinding;
  /** The last comet_ask failed without the page confirming it took the prompt (then lastAsk is unset): comet_wait says so. */
  askFailed?: boolean;
  /**
   * This session's comet_asks: how many were sent, which of them lastAsk and askFailed tell of (a late outcome of an
   * earlier one never overwrites a later one's), and those still being sent (an approval, a page still answering, a new
   * chat loading: up to 180 s), which a comet_wait sent meanwhile waits for (review 15c, F1).
   */
  asks?: { sent: number; told: number; pending: Set<Promise<unknown>> };
  /**
   * The mode this session switched to with comet_mode. Perplexity goes back to Search after every
   * navigation (lib/selectors/README.md, "Mode controls"): comet_ask sets it again when the page
   * dropped it. Bound to the MCP session, not the tab: another session's choice is its own.
   */
  mode?: PageModeName;
}

export interface ToolContext {
  browser: ToolBrowser;
  session: SessionMemory;
  settings: Settings;
  signal: AbortSignal;
  /** Sends an MCP progress notification when the client asked for progress; otherwise a no-op. */
  progress(message: string): void;
  /** Upload envelopes, and attachment_urls turned into files for the page. */
  attachments: AttachmentAccess;
  /** The client runs this call as an MCP task (task-augmented tools/call): it is not held to the short hold. */
  asTask: boolean;
  /** Asks the person through the client (MCP elicitation, form mode); absent when the client cannot. */
  elicit?: Elicit;
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchema?: z.ZodRawShape;
  /**
   * Every browser method (and local operation) the handler may call. Required, so no tool exists
   * unclassified: its access is derived from lib/protocol/access.ts (`toolAccess`), the table the
   * worker's Read-only uses too, and the gateway refuses any call the tool did not declare here.
   */
  uses: readonly Operation[];
  /** Acting tools that can lose the user's work (stopping an answer, navigating away). */
  destructive?: boolean;
  /** A client may run this tool as an MCP task (task-augmented tools/call). */
  taskSupport?: 'optional';
  /** One line for the side panel's activity feed. */
  summarize?(args: z.infer<z.ZodObject<Shape>>): string;
  handler(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult>;
}

export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** `read` when every operation the tool uses always reads: only those tools never change the page or the browser. */
export function toolAccess(tool: Pick<ToolDefinition, 'uses'>): Access {
  return accessOfAll(tool.uses);
}

/**
 * Whether a door offers the tool: not when any operation it uses is one the door never allows
 * (lib/protocol/access.ts): comet_list_tabs and comet_switch_tab (the tab list) at the public door.
 */
export function offeredAt(tool: Pick<ToolDefinition, 'uses'>, door: Door): boolean {
  return tool.uses.every((operation) => reachableAt(door, operation));
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failure the tool reports as a normal sentence (the reference prints some failures this way). */
export function errorText(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export { clip } from '../protocol/text/clip';
