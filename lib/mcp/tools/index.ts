import { RelayError } from '../../protocol/errors';
import { type ToolDefinition, toolAccess } from '../tool';
import { cometTools } from './comet';
import { threadTools } from './threads';

/** Every tool family, in the order tools/list shows them. A new family is one file plus one line here. */
export const allTools: ToolDefinition[] = [...cometTools, ...threadTools];

export interface ToolSelection {
  /** Allowlist of tool names (like the Agent API's allowed_tools); empty or absent means all. */
  allow?: string[];
  /** Keep only tools whose every operation reads (lib/protocol/access.ts). */
  readOnly?: boolean;
}

export function selectTools({ allow, readOnly }: ToolSelection, tools: ToolDefinition[] = allTools): ToolDefinition[] {
  const names = new Set(tools.map((tool) => tool.name));
  const unknown = (allow ?? []).filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new RelayError('CONFIG_ERROR', `Unknown tool name(s) in --tools: ${unknown.join(', ')}. Known tools: ${[...names].join(', ')}.`);
  }
  return tools.filter((tool) => (!allow?.length || allow.includes(tool.name)) && (!readOnly || toolAccess(tool) === 'read'));
}
