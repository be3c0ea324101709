import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type ToolDefinition, toolAccess } from './tool';

/**
 * What tools/list says about a tool, built here rather than by the SDK so that every schema is
 * lean and portable: a model reads the list on every turn, and clients that map schemas onto a
 * single-`type` dialect (Gemini's function declarations, for one) reject `type: [a, b]`.
 *
 * - JSON Schema 2020-12, MCP's default dialect, so no `$schema` line in every schema;
 * - a nullable value is `anyOf` of single types, never a `type` array;
 * - an integer without a bound of its own carries none (zod writes ±2^53 - 1 otherwise);
 * - a string's `maxLength` is left out: every one of ours guards the process (a 100 kB message, a
 *   200-character id) and none is a rule a caller plans around. The server still parses each call
 *   with the whole zod schema and refuses one past a cap, naming the field;
 * - an output object does not forbid other properties: a client that validates structuredContent
 *   keeps working when a result gains a field;
 * - a schema used more than once in one tool's schema, given an id with `.meta({ id })`, is
 *   written once under `$defs` and referenced as `#/$defs/<id>`.
 *
 * tests/unit/tool-schemas.test.ts walks every schema this writes for what the MCP Inspector's
 * `--strict` reports, and holds the list's weight to its budget.
 */

type JsonSchema = Record<string, unknown>;

export function toolListing(tool: ToolDefinition): Tool {
  const access = toolAccess(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.inputSchema, 'input') as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: jsonSchemaOf(tool.outputSchema, 'output') as Tool['outputSchema'] } : {}),
    // Hints the spec's defaults already give are left out: openWorldHint is true, taskSupport forbidden.
    annotations: access === 'read' ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: Boolean(tool.destructive) },
    ...(tool.taskSupport ? { execution: { taskSupport: tool.taskSupport } } : {}),
  };
}

/** An object schema from a zod shape: `input` as a client may send it (defaults optional), `output` as the tool returns it. */
export function jsonSchemaOf(shape: z.ZodRawShape, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(z.object(shape), { target: 'draft-2020-12', io }) as JsonSchema;
  return portable(schema, { io, depth: 0 });
}

interface Walk {
  io: 'input' | 'output';
  /** How many object schemas enclose this one (0: the tool's own object, or a $defs entry). */
  depth: number;
}

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** Rewrites one schema node and, depth first, every subschema under it. */
function portable(node: JsonSchema, walk: Walk): JsonSchema {
  if (walk.io === 'output' && walk.depth > 0 && node.type === 'object' && isRecord(node.properties)) {
    // A nested part of a result: typed, its fields left to the result's JSON text (unless it is named: $defs).
    return { ...annotationsOf(node), type: 'object' };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' && isRecord(value)) {
      out[key] = mapValues(value, (sub) => portable(sub, { ...walk, depth: 0 }));
    } else if (SUBSCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = mapValues(value, (sub) => portable(sub, { ...walk, depth: walk.depth + 1 }));
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isRecord(sub) ? portable(sub, walk) : sub));
    } else if (SUBSCHEMAS.has(key) && isRecord(value)) {
      out[key] = portable(value, key === 'additionalProperties' ? { ...walk, depth: walk.depth + 1 } : walk);
    } else {
      out[key] = value;
    }
  }
  if (out.type === 'string') delete out.maxLength;
  if (walk.io === 'output' && out.additionalProperties === false) delete out.additionalProperties;
  if (out.type === 'integer') {
    if (out.maximum === SAFE_INTEGER) delete out.maximum;
    if (out.minimum === -SAFE_INTEGER) delete out.minimum;
  }
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    const constraints = Object.fromEntries(Object.entries(rest).filter(([key]) => !ANNOTATIONS.has(key)));
    return { ...annotationsOf(rest), anyOf: (type as string[]).map((single) => (single === 'null' ? { type: 'null' } : { ...constraints, type: single })) };
  }
  return out;
}

/** Subschemas by name: one level of objects deeper. */
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependentSchemas']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SUBSCHEMAS = new Set(['items', 'additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else']);
/** Keywords that describe a value rather than constrain it: they stay on the `anyOf` itself. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function annotationsOf(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => ANNOTATIONS.has(key)));
}

function mapValues(map: JsonSchema, each: (sub: JsonSchema) => JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, isRecord(sub) ? each(sub) : sub]));
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
